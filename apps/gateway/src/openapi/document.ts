import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The OpenAPI document of this gateway and its HTML reference: generated from the routes' declarations and the schemas of
 * libs/domain/api-schema by `npm run build` (build.ts, generate.ts), kept in apps/gateway/openapi/ (committed, shipped
 * with the app), read once at start: the gateway itself never loads the generator. A unit test fails when the
 * files differ from what the code generates.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
/** apps/gateway/openapi, from apps/gateway/dist/src/openapi. */
export const OPENAPI_DIR = path.resolve(here, '../../../openapi');
export const DOCUMENT_PATH = path.join(OPENAPI_DIR, 'openapi.json');
export const REFERENCE_PATH = path.join(OPENAPI_DIR, 'reference.html');

/** A static answer: its bytes, a strong validator and its headers. */
export interface StaticFile {
  body: Buffer;
  etag: string;
  headers: Record<string, string>;
}

function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

function read(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new Error(`${file} is missing: run npm run build (docs/openapi.md)`, { cause: e });
  }
}

/** The document as served: compact JSON, readable by any client (no credential is involved). */
export function loadDocument(file = DOCUMENT_PATH): StaticFile {
  const body = Buffer.from(JSON.stringify(JSON.parse(read(file).toString('utf8'))));
  return {
    body,
    etag: etagOf(body),
    headers: { 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*', 'x-content-type-options': 'nosniff' },
  };
}

/** The reference page, with a policy that allows its own inline stylesheet (by hash) and nothing else. */
export function loadReference(file = REFERENCE_PATH): StaticFile {
  const body = read(file);
  const style = /<style>([\s\S]*?)<\/style>/.exec(body.toString('utf8'))?.[1] ?? '';
  const csp = [
    "default-src 'none'",
    `style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    body,
    etag: etagOf(body),
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
    },
  };
}

/** Cached for a while by browsers and proxies; both change only with a release. */
export const STATIC_CACHE_CONTROL = 'public, max-age=300';
