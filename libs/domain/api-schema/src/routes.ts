import type { ErrorCode } from '@verity/errors';
import type { Scope } from '@verity/keys';
import type { RouteClass } from '@verity/ratelimit';
import type { z } from 'zod';
import type { RequestComponent, ResponseComponent } from './components.js';

/** Groups of the reference, in its order. */
export const TAGS = [
  { name: 'Account', description: 'The calling key.' },
  { name: 'Applicants', description: 'The people verified.' },
  { name: 'Workflow templates', description: 'Checks and screening rules a session runs (docs/screening.md).' },
  { name: 'Sessions', description: 'Verifications of one applicant against one template version (docs/sessions.md).' },
  { name: 'Evidence', description: 'Images of an identity check.' },
  { name: 'ID scan', description: 'Stateless reading of a document image (docs/id-scan.md).' },
  { name: 'Webhooks', description: 'The delivery log (docs/webhooks.md).' },
  { name: 'Privacy', description: 'Data subject requests and erasure certificates (docs/privacy.md).' },
  { name: 'Capture', description: "The applicant's side of a live session, authenticated by the session's client secret (docs/capture.md)." },
  { name: 'Operations', description: 'Health of the region, without authentication (docs/operations.md).' },
  { name: 'Reference', description: 'This document.' },
] as const;
export type Tag = (typeof TAGS)[number]['name'];

/** Who may call a route. Every route says it explicitly, so that no route is open by omission. */
export type RouteAccess = KeyRouteAccess | CaptureRouteAccess | PublicRouteAccess;

/** A /v1 route called with an API key: the scope it needs and the rate class it counts against. */
export interface KeyRouteAccess {
  auth?: 'key';
  /** null: any authenticated key (GET /v1/me). */
  scope: Scope | null;
  rateClass: RouteClass;
  /** Publishable keys are allowed (only GET /v1/me). */
  publishable?: boolean;
  /** Account-state read exempt from billing refusals. */
  billingExempt?: boolean;
}

/** A /v1 route of the capture flow (docs/capture.md): a session's client secret, not an API key; rate class `capture`. */
export interface CaptureRouteAccess {
  auth: 'capture';
}

/**
 * A route that needs no credential at all (the document itself, health, the erasure key set, the hosted capture
 * page): no rate class; `ipLimited` when the pre-authentication limit per client address counts it.
 */
export interface PublicRouteAccess {
  auth: 'public';
  ipLimited: boolean;
}

/** What a successful answer carries. */
export type SuccessBody =
  /** `{ "data": <component> }` */
  | { data: ResponseComponent }
  /** the component itself (a page, a health report, a key set) */
  | { schema: ResponseComponent }
  /** raw bytes of this media type */
  | { binary: string }
  /** an HTML page */
  | { html: true }
  /** the OpenAPI document itself */
  | { openapi: true };

/** How the reference describes a route. */
export interface RouteDoc {
  tag: Tag;
  summary: string;
  /** Markdown: what the route does, and the rules a schema cannot say. */
  description: string;
  /** Path parameters by name (as `:name` in the route key): description and schema (default: a string). */
  params?: Record<string, { description: string; schema?: z.ZodType }>;
  /** The list parameters, an object schema of query parameters. */
  query?: z.ZodObject;
  body?: {
    component?: RequestComponent;
    /** `json` (default), `multipart` (form-data), `image` (raw image bytes). */
    kind?: 'json' | 'multipart' | 'image';
    /** The body may be left out entirely. */
    optional?: boolean;
    /** Streamed to a service, never kept: an `Idempotency-Key` is checked but no answer is replayed. */
    streamed?: boolean;
    /**
     * A JSON body that the route accepts (valid against `component`), published in the document. Ids in it
     * (`applicant_id`, …) are examples of the format: the isolation tests put real ones in their place.
     */
    example?: Record<string, unknown>;
  };
  success: { status: number; description: string; body: SuccessBody; headers?: Record<string, string> };
  /** Refusals of this route besides those of its kind of authentication, body and limits (added by the generator). */
  errors?: ErrorCode[];
  /** Answers besides success and the envelope (a health report's 503, the capture page's own pages). */
  other?: Array<{ status: number; description: string; body: SuccessBody }>;
}

/** A route as the gateway declares it beside its handler (`@Route`): who may call it, and its description. */
export interface RouteDeclaration extends RouteDoc {
  access: RouteAccess;
}

/** Every route of the gateway, keyed `METHOD /path/:param` as the router reports the matched route. */
export type RouteTable = Record<string, RouteDeclaration>;

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** `GET /v1/sessions/:id` → `GET` and `/v1/sessions/{id}`. */
export function splitRouteKey(key: string): { method: string; path: string; params: string[] } {
  const [method, pattern] = key.split(' ') as [string, string];
  const params = [...pattern.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);
  return { method, path: pattern.replace(/:([A-Za-z_]+)/g, '{$1}'), params };
}

/** The kind of authentication of a route: `key`, `capture` or `public`. */
export function authOf(access: RouteAccess): 'key' | 'capture' | 'public' {
  return access.auth ?? 'key';
}

/**
 * What is wrong with a route table; empty when nothing is. Only /v1 routes pass through the access check, so a
 * route that needs a credential must be one; every path parameter must be described.
 */
export function routeTableProblems(routes: RouteTable): string[] {
  const out: string[] = [];
  for (const [key, route] of Object.entries(routes)) {
    const { method, path, params } = splitRouteKey(key);
    if (!METHODS.includes(method) || !path.startsWith('/')) out.push(`${key}: not METHOD /path`);
    const inV1 = path === '/v1' || path.startsWith('/v1/');
    if (!inV1 && authOf(route.access) !== 'public') out.push(`${key}: only /v1 routes are authenticated; a route outside /v1 is public`);
    for (const p of params) if (!route.params?.[p]) out.push(`${key}: path parameter ${p} is not described`);
    for (const p of Object.keys(route.params ?? {})) if (!params.includes(p)) out.push(`${key}: describes ${p}, which is not in its path`);
  }
  return out;
}

/** Text shared by the descriptions of several routes. */
export const LIST_TEXT =
  'Newest first. `limit` 1 to 100 (default 20); `cursor` is the `next_cursor` of the previous page. A bad value or an unknown parameter is 422 `validation_error` naming it.';

/** The `:id` parameter of a resource. */
export const idParam = (what: string) => ({ description: `The ${what}'s id. A malformed id is answered like an unknown one (404 \`resource_not_found\`).` });
