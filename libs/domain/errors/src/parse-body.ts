import type { z } from 'zod';
import { DomainError, type Issue } from './domain-error.js';

/**
 * zod's issues as the error envelope's `details.issues` (docs/errors.md): an unknown field once per key,
 * `unknown field: <key>` (the key cut at 100 characters); anything else `<path>: <message>` (`body` for the whole).
 * A refinement names a code of its own with `params: { code }` (a receiver URL's `https_required`); else the issue
 * keeps zod's.
 */
export function bodyIssues(raw: z.ZodError['issues']): Issue[] {
  const issues: Issue[] = [];
  for (const i of raw) {
    const path = i.path.map((s) => (typeof s === 'number' ? s : String(s)));
    if (i.code === 'unrecognized_keys') {
      for (const key of i.keys) {
        const k = key.slice(0, 100);
        issues.push({ code: 'unrecognized_keys', message: `unknown field: ${k}`, path: [...path, k] });
      }
    } else {
      const own = i.code === 'custom' ? (i.params as { code?: unknown } | undefined)?.code : undefined;
      issues.push({ code: typeof own === 'string' ? own : i.code, message: `${path.join('.') || 'body'}: ${i.message}`, path });
    }
  }
  return issues;
}

/** A body checked against its schema without throwing: the value when it holds, and every issue either way. */
export function checkBody<T>(schema: z.ZodType<T>, input: unknown): { ok: true; data: T; issues: Issue[] } | { ok: false; issues: Issue[] } {
  const r = schema.safeParse(input);
  return r.success ? { ok: true, data: r.data, issues: [] } : { ok: false, issues: bodyIssues(r.error.issues) };
}

/**
 * The one way a request body (or an RPC's request) is validated: the value as the schema turns it out, or a 422
 * `validation_error` naming every issue, after the `earlier` ones the caller found itself (checks the schema cannot
 * express, made first). Nothing is half-read: the caller acts only on what this returns.
 */
export function parseBody<T>(schema: z.ZodType<T>, input: unknown, earlier: readonly Issue[] = []): T {
  const r = checkBody(schema, input);
  const issues = [...earlier, ...r.issues];
  if (!r.ok || issues.length > 0) throw DomainError.validation(issues);
  return r.data;
}

/**
 * A form a person filled in (the console's filters): the value as the schema turns it out, or each issue's own
 * message, written for people and shown above the form, without the field's path.
 */
export function checkForm<T>(schema: z.ZodType<T>, input: unknown): { ok: true; data: T } | { ok: false; messages: string[] } {
  const r = schema.safeParse(input);
  return r.success ? { ok: true, data: r.data } : { ok: false, messages: r.error.issues.map((i) => i.message) };
}
