import { randomAlphanumeric } from './api-key.js';

export const ID_PREFIXES = {
  org: 'org',
  key: 'key',
  applicant: 'app',
  session: 'ses',
  workflowTemplate: 'wft',
  webhookSubscription: 'whs',
  event: 'evt',
  webhookDelivery: 'whd',
  /** One attempt of a webhook delivery (a row of GET /v1/webhook-events). */
  webhookAttempt: 'wha',
  dataSubjectRequest: 'dsr',
  activity: 'act',
  /** A console user (docs/console.md). */
  consoleUser: 'usr',
  /** An invitation to a region's console (docs/console.md, "Team"). */
  consoleInvitation: 'inv',
  request: 'req',
} as const;
export type IdKind = keyof typeof ID_PREFIXES;

const ID_BODY_LENGTH = 24;
const ID_RE = /^[A-Za-z0-9]{24}$/;

/** A new opaque identifier with its type prefix, e.g. `app_…`. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${randomAlphanumeric(ID_BODY_LENGTH)}`;
}

/** True when `id` has the shape of an identifier of this kind. A malformed id is answered like an unknown one. */
export function isId(kind: IdKind, id: unknown): id is string {
  if (typeof id !== 'string') return false;
  const prefix = `${ID_PREFIXES[kind]}_`;
  return id.startsWith(prefix) && ID_RE.test(id.slice(prefix.length));
}
