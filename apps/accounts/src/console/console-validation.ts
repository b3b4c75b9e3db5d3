import { CONSOLE_ROLES, type ConsoleActivityRecordRequest, type ConsoleRole } from '@verity/contracts';
import { checkBody, DomainError } from '@verity/errors';
import { isId, type Mode } from '@verity/keys';
import { z } from 'zod';

/** 422 validation_error naming the field; the message never repeats the value (it may be a password). */
export function invalid(param: string, message: string): DomainError {
  return DomainError.validation([{ code: 'invalid_value', message, path: [param] }], message);
}

export const EMAIL_MAX = 254;
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;
/** The largest `details` of an activity entry, as JSON text in UTF-8. */
export const DETAILS_MAX_BYTES = 4096;
export const ACTION_RE = /^console\.[a-z_.]+$/;
const ACTION_MAX = 100;
/** A target is an identifier with its type prefix (`key_…`, `whs_…`, `ses_…`, `usr_…`). */
const TARGET_RE = /^[a-z]{2,8}_[A-Za-z0-9]{1,64}$/;

const emailSchema = z.email().max(EMAIL_MAX);

/** The address as stored (trimmed, lower-cased), or null when it is not one. */
export function normalizeEmail(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const email = v.trim().toLowerCase();
  return checkBody(emailSchema, email).ok ? email : null;
}

export function emailOf(v: unknown, param = 'email'): string {
  const email = normalizeEmail(v);
  if (email === null) throw invalid(param, `${param} must be an email address of at most ${EMAIL_MAX} characters`);
  return email;
}

export function roleOf(v: unknown): ConsoleRole {
  if (typeof v !== 'string' || !(CONSOLE_ROLES as readonly string[]).includes(v)) throw invalid('role', `role must be one of ${CONSOLE_ROLES.join(', ')}`);
  return v as ConsoleRole;
}

/** Length in characters (code points), not UTF-16 units. */
function lengthOf(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** A new password: 12 to 256 characters. */
export function newPasswordOf(v: unknown, param = 'password'): string {
  if (typeof v !== 'string' || lengthOf(v) < PASSWORD_MIN || lengthOf(v) > PASSWORD_MAX) {
    throw invalid(param, `${param} must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
  }
  return v;
}

/** A password given to sign in: any non-empty text no longer than a new one may be. */
export function loginPasswordOf(v: unknown, param = 'password'): string {
  if (typeof v !== 'string' || v.length === 0 || lengthOf(v) > PASSWORD_MAX) throw invalid(param, `${param} must be 1 to ${PASSWORD_MAX} characters`);
  return v;
}

export function modeOf(v: unknown, param = 'mode'): Mode {
  if (v !== 'test' && v !== 'live') throw invalid(param, `${param} must be test or live`);
  return v;
}

export function limitOf(v: unknown, fallback: number, max: number): number {
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) throw invalid('limit', `limit must be a whole number from 1 to ${max}`);
  return v;
}

/** An activity entry's fields, checked; `mode` and `target_id` left out mean null, `details` left out means {}. */
export function activityOf(req: ConsoleActivityRecordRequest): Omit<ConsoleActivityRecordRequest, 'org_id'> {
  const mode = req.mode === undefined || req.mode === null ? null : modeOf(req.mode);
  if (!isId('consoleUser', req.actor_id)) throw invalid('actor_id', 'actor_id must be a console user id (usr_…)');
  const actorEmail = emailOf(req.actor_email, 'actor_email');
  if (typeof req.action !== 'string' || req.action.length > ACTION_MAX || !ACTION_RE.test(req.action)) {
    throw invalid('action', `action must be console. followed by lower-case letters, dots and underscores, at most ${ACTION_MAX} characters`);
  }
  const target = req.target_id === undefined || req.target_id === null ? null : req.target_id;
  if (target !== null && (typeof target !== 'string' || !TARGET_RE.test(target))) throw invalid('target_id', 'target_id must be an id such as key_… or null');
  const details = req.details === undefined ? {} : req.details;
  if (typeof details !== 'object' || details === null || Array.isArray(details)) throw invalid('details', 'details must be an object');
  if (Buffer.byteLength(JSON.stringify(details)) > DETAILS_MAX_BYTES) throw invalid('details', `details must be at most ${DETAILS_MAX_BYTES} bytes of JSON`);
  for (const [name, value] of Object.entries(details)) {
    const scalar = value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
    if (!scalar) throw invalid('details', `details.${name} must be a string, a number, true, false or null`);
  }
  return { mode, actor_id: req.actor_id, actor_email: actorEmail, action: req.action, target_id: target, details };
}
