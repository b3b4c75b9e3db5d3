import type { Scope } from '@verity/keys';
import type { RouteClass } from '@verity/ratelimit';

/** What a /v1 route requires. The table below is the public surface of the gateway. */
export type RouteAccess = KeyRouteAccess | CaptureRouteAccess | PublicRouteAccess;

/**
 * A /v1 route that needs no credential at all (the API's own description): only the pre-authentication IP limit,
 * no rate class. Named here explicitly, like every other route, so that no route is public by omission.
 */
export interface PublicRouteAccess {
  auth: 'public';
}

/** A route of the capture flow (docs/capture.md): a session's client secret, not an API key; rate class `capture`. */
export interface CaptureRouteAccess {
  auth: 'capture';
}

/** A route called with an API key. */
export interface KeyRouteAccess {
  auth?: 'key';
  /** null: any authenticated key (GET /v1/me). */
  scope: Scope | null;
  routeClass: RouteClass;
  /** Publishable keys are allowed (only GET /v1/me). */
  publishable?: boolean;
  /** Account-state read exempt from billing refusals. */
  billingExempt?: boolean;
}

/** Keyed by `METHOD path-pattern` as Fastify reports the matched route. */
export const ROUTES: Record<string, RouteAccess> = {
  'GET /v1/me': { scope: null, routeClass: 'reads', publishable: true, billingExempt: true },
  'POST /v1/applicants': { scope: 'applicants:write', routeClass: 'applicants:create' },
  'GET /v1/applicants': { scope: 'applicants:read', routeClass: 'reads' },
  'GET /v1/applicants/:id': { scope: 'applicants:read', routeClass: 'reads' },
  'POST /v1/workflow-templates': { scope: 'workflows:write', routeClass: 'global' },
  'GET /v1/workflow-templates': { scope: 'workflows:read', routeClass: 'reads' },
  'GET /v1/workflow-templates/:id': { scope: 'workflows:read', routeClass: 'reads' },
  'PATCH /v1/workflow-templates/:id': { scope: 'workflows:write', routeClass: 'global' },
  'POST /v1/sessions': { scope: 'sessions:write', routeClass: 'sessions:create' },
  'GET /v1/sessions': { scope: 'sessions:read', routeClass: 'reads' },
  'GET /v1/sessions/:id': { scope: 'sessions:read', routeClass: 'reads' },
  'POST /v1/sessions/:id/notes': { scope: 'sessions:write', routeClass: 'global' },
  'POST /v1/sessions/:id/cancel': { scope: 'sessions:write', routeClass: 'global' },
  'POST /v1/sessions/:id/review': { scope: 'sessions:write', routeClass: 'global' },
  'POST /v1/sessions/:id/decision': { scope: 'sessions:write', routeClass: 'global' },
  'GET /v1/webhook-events': { scope: 'webhooks:read', routeClass: 'reads' },
  'POST /v1/id-verification': { scope: 'idv:scan', routeClass: 'global' },
  'GET /v1/sessions/:id/idv-image/:artifact': { scope: 'sessions:read_report', routeClass: 'sessions:read_image' },
  'POST /v1/data_subject_requests': { scope: 'dsar:write', routeClass: 'dsar:create' },
  'GET /v1/data_subject_requests/:id': { scope: 'dsar:write', routeClass: 'reads' },
  'GET /v1/capture': { auth: 'capture' },
  'PUT /v1/capture/images/:artifact': { auth: 'capture' },
  'POST /v1/capture/submit': { auth: 'capture' },
  'POST /v1/capture/skip': { auth: 'capture' },
  'GET /v1/openapi.json': { auth: 'public' },
};

export function routeKey(method: string, url: string | undefined): string | null {
  return url === undefined ? null : `${method} ${url}`;
}
