import { ERROR_CATALOGUE, isErrorCode, type ErrorCode } from '@verity/errors';
import { SCOPES } from '@verity/keys';
import { TIER_LIMITS, WINDOW_SECONDS, ROUTE_CLASSES } from '@verity/ratelimit';
import { z } from 'zod';
import { REQUEST_COMPONENTS, RESPONSE_COMPONENTS } from './components.js';
import { componentRef } from './refs.js';
import { authOf, routeTableProblems, splitRouteKey, TAGS, type RouteDeclaration, type RouteTable, type SuccessBody } from './routes.js';

export type JsonObject = Record<string, unknown>;

/** The OpenAPI document, as plain JSON. */
export interface OpenApiDocument extends JsonObject {
  openapi: string;
  paths: Record<string, Record<string, JsonObject>>;
  components: JsonObject & { schemas: Record<string, JsonObject> };
}

/** Codes of idempotency (docs/errors.md#idempotency), raised by the gateway on a POST under /v1 once idempotency is in the catalogue. */
const IDEMPOTENCY_CODES = ['idempotency_key_reused', 'idempotency_key_in_use'];

/** A stable operation id from method and path: `GET /v1/sessions/:id/notes` → `getSessionsByIdNotes`. */
export function operationId(key: string): string {
  const { method, path } = splitRouteKey(key);
  const words = path
    .replace(/^\/v1\//, '/')
    .split('/')
    .filter(Boolean)
    .flatMap((seg) => {
      const param = /^\{(.+)\}$/.exec(seg);
      return (param ? `by_${param[1]}` : seg).split(/[^A-Za-z0-9]+/).filter(Boolean);
    });
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/** A zod schema as JSON Schema 2020-12 (the dialect of OpenAPI 3.1), without `$schema`. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonObject;
  return tidy(rest, io);
}

/** Formats say enough: zod's own long patterns for them are dropped. */
const FORMATS_WITHOUT_PATTERN = new Set(['date-time', 'date', 'email']);

/**
 * Answers are documented open (no `additionalProperties: false`): a field may be added within v1, and clients
 * ignore what they do not know. Requests keep it: an unknown field is refused.
 */
function tidy(s: JsonObject, io: 'input' | 'output'): JsonObject {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    const o: JsonObject = {};
    const src = v as JsonObject;
    for (const [k, x] of Object.entries(src)) {
      if (io === 'output' && k === 'additionalProperties' && x === false) continue;
      if (k === 'pattern' && typeof src['format'] === 'string' && FORMATS_WITHOUT_PATTERN.has(src['format'])) continue;
      // zod bounds every integer by the safe range: no limit of the API's own
      if ((k === 'minimum' && x === Number.MIN_SAFE_INTEGER) || (k === 'maximum' && x === Number.MAX_SAFE_INTEGER)) continue;
      o[k] = walk(x);
    }
    return o;
  };
  return walk(s) as JsonObject;
}

/** Named schemas, converted together so that they refer to each other by `$ref`. */
function components(named: Record<string, z.ZodType>, io: 'input' | 'output'): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  for (const [name, schema] of Object.entries(named)) registry.add(schema, { id: name });
  const { schemas } = z.toJSONSchema(registry, { target: 'draft-2020-12', io, unrepresentable: 'any', uri: componentRef });
  const out: Record<string, JsonObject> = {};
  for (const [name, s] of Object.entries(schemas)) {
    const { $schema: _s, $id: _i, ...rest } = s as JsonObject;
    out[name] = tidy(rest, io);
  }
  return out;
}

/**
 * `components.schemas` of the document: request bodies as input (a member with a default is optional), answers
 * as output. Tests compile them with a JSON Schema validator to check hand-written validators against them.
 */
export function componentSchemas(): Record<string, JsonObject> {
  const requests = components(REQUEST_COMPONENTS, 'input');
  const responses = components(RESPONSE_COMPONENTS, 'output');
  for (const name of Object.keys(requests)) if (responses[name]) throw new Error(`schema ${name} is both a request and a response component`);
  return { ...requests, ...responses };
}

/** The refusals a route can give, by kind of authentication, body, limits and its own. */
export function errorCodesOf(key: string, doc: RouteDeclaration): ErrorCode[] {
  const { method, path } = splitRouteKey(key);
  const codes = new Set<ErrorCode>();
  const access = doc.access;
  const auth = authOf(access);
  if (access.auth === undefined || access.auth === 'key') {
    codes.add('authentication_required').add('invalid_api_key').add('region_mismatch');
    if (access.scope !== null || !access.publishable) codes.add('insufficient_scope');
    if (!access.billingExempt) codes.add('payment_required').add('subscription_required');
  }
  if (auth === 'capture') codes.add('authentication_required').add('invalid_capture_token').add('invalid_state_transition').add('capture_expired');
  const ipLimited = access.auth === 'public' ? access.ipLimited : true;
  if (ipLimited) codes.add('rate_limit_exceeded');
  const kind = doc.body ? (doc.body.kind ?? 'json') : null;
  if (kind === 'json') codes.add('invalid_json').add('request_too_large').add('validation_error');
  if (kind === 'multipart') codes.add('validation_error');
  if (doc.query) codes.add('validation_error');
  // an Idempotency-Key that is not 1 to 255 printable characters is 422 validation_error naming the header
  if (method === 'POST' && path.startsWith('/v1/') && IDEMPOTENCY_CODES.some(isErrorCode)) {
    for (const c of ['validation_error', ...(doc.body?.streamed ? [] : IDEMPOTENCY_CODES)]) if (isErrorCode(c)) codes.add(c);
  }
  for (const c of doc.errors ?? []) codes.add(c);
  codes.add('internal_error');
  // every authenticated route asks a service, which can be away; a public route that asks one says so in `errors`
  if (auth === 'key' || auth === 'capture') codes.add('service_unavailable');
  return [...codes].sort((a, b) => ERROR_CATALOGUE[a].status - ERROR_CATALOGUE[b].status || a.localeCompare(b));
}

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/XRateLimitLimit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/XRateLimitRemaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/XRateLimitReset' },
  'X-RateLimit-Window': { $ref: '#/components/headers/XRateLimitWindow' },
};

function content(body: SuccessBody): JsonObject {
  if ('data' in body) {
    return { 'application/json': { schema: { type: 'object', required: ['data'], properties: { data: { $ref: componentRef(body.data) } } } } };
  }
  if ('schema' in body) return { 'application/json': { schema: { $ref: componentRef(body.schema) } } };
  if ('binary' in body) return { [body.binary]: {} };
  if ('html' in body) return { 'text/html': { schema: { type: 'string' } } };
  return { 'application/json': { schema: { type: 'object', description: 'An OpenAPI 3.1 document.' } } };
}

function operation(key: string, doc: RouteDeclaration): JsonObject {
  const { method, path, params } = splitRouteKey(key);
  const access = doc.access;
  const limited = access.auth === 'public' ? access.ipLimited : true;
  const common: JsonObject = { 'X-Request-Id': { $ref: '#/components/headers/XRequestId' }, ...(limited ? RATE_LIMIT_HEADERS : {}) };
  const idempotent = method === 'POST' && path.startsWith('/v1/');

  const parameters: JsonObject[] = params.map((name) => {
    const p = doc.params?.[name];
    if (!p) throw new Error(`${key}: path parameter ${name} is not described`);
    return { name, in: 'path', required: true, description: p.description, schema: jsonSchema(p.schema ?? z.string(), 'input') };
  });
  if (doc.query) {
    const q = jsonSchema(doc.query, 'input') as { properties?: Record<string, JsonObject>; required?: string[] };
    for (const [name, s] of Object.entries(q.properties ?? {})) {
      const { description, ...schema } = s;
      parameters.push({ name, in: 'query', required: q.required?.includes(name) ?? false, ...(description ? { description } : {}), schema });
    }
  }
  if (idempotent) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });

  const op: JsonObject = {
    operationId: operationId(key),
    tags: [doc.tag],
    summary: doc.summary,
    description: doc.description,
  };
  if (parameters.length) op['parameters'] = parameters;

  if (doc.body) {
    const kind = doc.body.kind ?? 'json';
    const media =
      kind === 'image'
        ? Object.fromEntries(['image/jpeg', 'image/png', 'image/webp', 'application/octet-stream'].map((t) => [t, {}]))
        : {
            [kind === 'multipart' ? 'multipart/form-data' : 'application/json']: {
              schema: { $ref: componentRef(doc.body.component!) },
              ...(doc.body.example ? { example: doc.body.example } : {}),
            },
          };
    op['requestBody'] = { required: !doc.body.optional, content: media };
  }

  const responses: JsonObject = {};
  const successHeaders: JsonObject = { ...common };
  for (const [name, value] of Object.entries(doc.success.headers ?? {})) successHeaders[name] = { description: `Always \`${value}\`.`, schema: { type: 'string', const: value } };
  if (idempotent && !doc.body?.streamed) successHeaders['Idempotent-Replayed'] = { $ref: '#/components/headers/IdempotentReplayed' };
  responses[String(doc.success.status)] = { description: doc.success.description, headers: successHeaders, content: content(doc.success.body) };
  for (const o of doc.other ?? []) responses[String(o.status)] = { description: o.description, headers: common, content: content(o.body) };

  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(key, doc)) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of byStatus) {
    if (responses[String(status)]) continue; // a route's own answer of that status (an HTML page, a health report)
    responses[String(status)] = {
      description: codes.map((c) => `\`${c}\``).join(', '),
      headers: common,
      content: {
        'application/json': {
          schema: { allOf: [{ $ref: componentRef('Error') }, { type: 'object', properties: { error: { type: 'object', properties: { code: { enum: codes } } } } }] },
        },
      },
      'x-verity-error-codes': codes,
    };
  }
  op['responses'] = responses;

  if (access.auth === undefined || access.auth === 'key') {
    op['security'] = [{ apiKey: access.scope === null ? [] : [access.scope] }];
    op['x-verity-scope'] = access.scope;
    op['x-verity-rate-class'] = access.rateClass;
    if (access.publishable) op['x-verity-publishable-key'] = true;
    if (access.billingExempt) op['x-verity-billing-exempt'] = true;
  } else if (access.auth === 'capture') {
    op['security'] = [{ clientSecret: [] }];
    op['x-verity-scope'] = null;
    op['x-verity-rate-class'] = 'capture';
  } else {
    op['security'] = [];
    op['x-verity-scope'] = null;
  }
  op['x-verity-ip-limit'] = limited;
  return op;
}

function markdownTable(head: string[], rows: string[][]): string {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

const DESCRIPTION = (): string =>
  [
    "Identity verification over REST. Each region (`us`, `eu`) runs a gateway of its own; a key works only at its region's gateway. Bodies are JSON except where stated; successful answers wrap an object as `{ \"data\": … }`.",
    '',
    '## Authentication',
    '`Authorization: Bearer <API_KEY>`; the key reads `idv_{sk|pk}_{us|eu}_{live|test}_<43 letters and digits>`. Each route names the scope it needs (`security`, and `x-verity-scope`). A publishable (`pk`) key may call `GET /v1/me` only. The capture routes take the session\'s client secret (`vcs_…`) instead.',
    '',
    '## Errors',
    'Every refusal is `{ "error": { "code", "message", "type", "doc_url", "request_id", "param"?, "details"? } }`; each response lists the codes it can carry. Whatever the route: an unknown route or method is 404 `route_not_found`; a path with an encoded slash, backslash or NUL, or a dot segment, is 400 `invalid_path`; a request that is not HTTP is 400 `malformed_request`; one too slow is 408 `request_timeout`; headers over 16 KiB are 431 `request_header_too_large`.',
    '',
    '## Rate limits',
    `Per key, per fixed window aligned to the epoch (\`x-verity-rate-class\` names a route's class; every request also counts against \`global\`). Every answer after authentication carries \`X-RateLimit-*\` of the bucket with the fewest requests left; a 429 carries \`details.reset_at\`. Before authentication, a per-address limit applies to every /v1 route and to the public routes marked \`x-verity-ip-limit\`.`,
    '',
    markdownTable(
      ['Class', 'Window', ...Object.keys(TIER_LIMITS)],
      ROUTE_CLASSES.map((c) => [`\`${c}\``, `${WINDOW_SECONDS[c]} s`, ...Object.values(TIER_LIMITS).map((t) => String(t[c]))]),
    ),
    '',
    '## Idempotency',
    'Every `POST` under `/v1` takes `Idempotency-Key` (1 to 255 printable ASCII characters): the first answer of a key is kept for 24 hours per organization and mode, and a retry with the same key, path and body gets it again with `Idempotent-Replayed: true`.',
    '',
    '## Versioning',
    'The version is the path prefix `/v1`. Within it, answers may gain fields and enumerations may gain values: ignore what you do not know.',
  ].join('\n');

export interface BuildOptions {
  /** `info.version`: the release the document describes. */
  version?: string;
}

/** The OpenAPI 3.1 document of the gateway: its routes as declared (access and description) and the schemas. */
export function buildOpenApiDocument(routes: RouteTable, opts: BuildOptions = {}): OpenApiDocument {
  const problems = routeTableProblems(routes);
  if (problems.length) throw new Error(`the route table is wrong:\n${problems.join('\n')}`);

  // grouped as the reference groups them, each group in the order its routes are declared
  const tagOrder = (r: RouteDeclaration) => TAGS.findIndex((t) => t.name === r.tag);
  const entries = Object.entries(routes).sort(([, a], [, b]) => tagOrder(a) - tagOrder(b));
  const paths: OpenApiDocument['paths'] = {};
  for (const [key, doc] of entries) {
    const { method, path } = splitRouteKey(key);
    (paths[path] ??= {})[method.toLowerCase()] = operation(key, doc);
  }

  const schemas = componentSchemas();

  const rateHeader = (description: string) => ({ description, schema: { type: 'string', pattern: '^[0-9]+$' } });
  return {
    openapi: '3.1.1',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'Verity API',
      version: opts.version ?? 'v1',
      summary: 'Identity verification (KYC): applicants, workflow templates, sessions, evidence, ID scan, webhooks, privacy.',
      description: DESCRIPTION(),
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/', description: "The region's gateway that serves this document (each region has its own address)." }],
    tags: TAGS.map((t) => ({ ...t })),
    paths,
    webhooks: {
      'kyc.session': {
        post: {
          operationId: 'sessionEvent',
          summary: 'A session event',
          description:
            'POSTed to each subscribed HTTPS receiver of the mode, signed per Standard Webhooks: `webhook-id` (the event id, stable across retries: deduplicate on it), `webhook-timestamp` (UNIX seconds), `webhook-signature` (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed by the base64 of the secret after `whsec_`; during a rotation, two space-separated). Delivered: `kyc.session.completed`, `kyc.session.cancelled`, `kyc.session.manual_review_requested`, `kyc.session.watchlist_hit` (an approved live session matched a reloaded watchlist). Retries after a failure: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. Ignore unknown types and fields.',
          parameters: ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({ name, in: 'header', required: true, schema: { type: 'string' } })),
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: componentRef('WebhookEvent') } } } },
          responses: { '200': { description: 'Any 2xx acknowledges the delivery; anything else, or no answer in 10 s, is retried.' } },
        },
      },
    },
    components: {
      schemas,
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'idv_{sk|pk}_{us|eu}_{live|test}_<43 characters of [A-Za-z0-9]>',
          description: `An API key of the gateway's region. Scopes: ${SCOPES.map((s) => `\`${s}\``).join(', ')}. A key of the other region is 403 \`region_mismatch\`.`,
        },
        clientSecret: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'vcs_<43 characters of [A-Za-z0-9]>',
          description: "A live session's `client_secret`: the capture routes of that session only, 120 requests a minute (rate class `capture`).",
        },
      },
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Makes the POST safe to retry: the first answer of a key is kept 24 hours per organization and mode, and a retry with the same key, path and body gets it again. Another path or body with the same key: 422 `idempotency_key_reused`; while the first is running: 409 `idempotency_key_in_use`; 5xx answers are not kept.',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
        },
      },
      headers: {
        XRequestId: { description: 'The request id (`req_…`), repeated in `error.request_id`.', required: true, schema: { type: 'string' } },
        XRateLimitLimit: rateHeader('The budget of the bucket shown, per window.'),
        XRateLimitRemaining: rateHeader('Requests left in the window before 429.'),
        XRateLimitReset: rateHeader('UNIX epoch seconds when the window rolls over.'),
        XRateLimitWindow: rateHeader('The window length in seconds.'),
        IdempotentReplayed: { description: '`true` on an answer replayed for a repeated `Idempotency-Key`.', schema: { type: 'string', enum: ['true'] } },
      },
    },
  };
}
