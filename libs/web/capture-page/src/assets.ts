/**
 * The page's static files: the compiled browser script (dist/browser, built by browser/tsconfig.json), the
 * stylesheet and the pictures (assets/). Read once when the module loads, so that a missing build fails the
 * gateway at start rather than an applicant later.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

/** This module runs from dist/src: the library's folder is two up. */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Asset {
  body: Buffer;
  contentType: string;
  /** A strong validator of the bytes, quoted. */
  etag: string;
  /** Whether the file is worth sending gzip-compressed (text, models, WebAssembly; not the small pictures). */
  compressible: boolean;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.bin': 'application/octet-stream',
  '.wasm': 'application/wasm',
};

/** Every file the page may load, by the name it is served under: nothing else is served. */
const FILES: Record<string, string> = {
  'capture.js': 'dist/browser/capture.js',
  'analysis.js': 'dist/browser/analysis.js',
  'flow.js': 'dist/browser/flow.js',
  'page.css': 'assets/page.css',
  'icon.svg': 'assets/icon.svg',
  'document.svg': 'assets/document.svg',
  'face.svg': 'assets/face.svg',
  'light.svg': 'assets/light.svg',
  'passport.svg': 'assets/passport.svg',
  'card.svg': 'assets/card.svg',
  'licence.svg': 'assets/licence.svg',
  'done.svg': 'assets/done.svg',
  'link.svg': 'assets/link.svg',
  'wait.svg': 'assets/wait.svg',
  // the selfie's face guide (docs/capture.md "The face guide"), loaded by the page only when the selfie step opens:
  // its module, then Human's browser build, the BlazeFace model and TensorFlow.js's WebAssembly (vendor/README.md)
  'face.js': 'dist/browser/face.js',
  'oval.js': 'dist/browser/oval.js',
  'human.esm.js': 'vendor/human.esm.js',
  'blazeface.json': 'vendor/blazeface.json',
  'blazeface.bin': 'vendor/blazeface.bin',
  'tfjs-backend-wasm-simd.wasm': 'vendor/tfjs-backend-wasm-simd.wasm',
  'tfjs-backend-wasm.wasm': 'vendor/tfjs-backend-wasm.wasm',
};

/** Files smaller than this are sent as they are: compressing them saves less than it costs. */
const COMPRESS_MIN_BYTES = 1024;

function load(name: string, rel: string): Asset {
  let body: Buffer;
  try {
    body = readFileSync(path.join(ROOT, rel));
  } catch {
    throw new Error(`capture page: ${rel} is missing in libs/web/capture-page (run npm run build)`);
  }
  // the compiled modules name no source map: none is served
  if (name.endsWith('.js')) body = Buffer.from(body.toString('utf8').replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n'));
  const digest = createHash('sha256').update(body).digest('base64url').slice(0, 16);
  const ext = path.extname(name);
  return { body, contentType: TYPES[ext], etag: `"${digest}"`, compressible: ext !== '.svg' && body.length >= COMPRESS_MIN_BYTES };
}

const ASSETS = new Map(Object.entries(FILES).map(([name, rel]) => [name, load(name, rel)]));

/**
 * One version for the whole set, in the query of the links the HTML makes: a deploy changes it, so a browser
 * never mixes a cached old file with new ones (the script passes its own query on to the modules it imports).
 */
export const ASSET_VERSION = createHash('sha256')
  .update([...ASSETS.values()].map((a) => a.etag).join(''))
  .digest('base64url')
  .slice(0, 10);

export const ASSET_NAMES: readonly string[] = [...ASSETS.keys()];

/** A static file of the page by its name (`capture.js`, `page.css`, …), or undefined for any other name. */
export function captureAsset(name: string): Asset | undefined {
  return Object.hasOwn(FILES, name) ? ASSETS.get(name) : undefined;
}

/** The relative link the page's HTML uses for an asset. */
export function assetUrl(name: string): string {
  return `assets/${name}?v=${ASSET_VERSION}`;
}

const gzipAsync = promisify(gzip);

/**
 * Gzip copies of the compressible assets, made on first request, off the event loop (zlib's thread pool: the face
 * guide's script takes a fifth of a second), and kept.
 */
const GZIPPED = new Map<string, Promise<Buffer>>();

/** What to send for an asset: its bytes, their encoding, validator and headers, by the request's Accept-Encoding. */
export interface AssetVariant {
  body: Buffer;
  etag: string;
  /** `content-type`, `etag`, `vary` and, when compressed, `content-encoding`. */
  headers: Record<string, string>;
}

/**
 * The asset as sent to a client that accepts `acceptEncoding`: gzip when it takes gzip and the file is worth it
 * (about a third of the face guide's 3 MB), else the bytes as they are. Each encoding has its own ETag.
 */
export async function assetVariant(name: string, acceptEncoding: string | string[] | undefined): Promise<AssetVariant | undefined> {
  const a = captureAsset(name);
  if (!a) return undefined;
  const vary = { vary: 'Accept-Encoding' };
  const accepts = /(^|[\s,])gzip(?!\s*;\s*q=0(\.0*)?\s*(,|$))/i.test(Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : (acceptEncoding ?? ''));
  if (!a.compressible || !accepts) return { body: a.body, etag: a.etag, headers: { 'content-type': a.contentType, etag: a.etag, ...vary } };
  let gz = GZIPPED.get(name);
  if (!gz) {
    gz = gzipAsync(a.body, { level: 6 });
    GZIPPED.set(name, gz);
  }
  const etag = `${a.etag.slice(0, -1)}-gz"`;
  return { body: await gz, etag, headers: { 'content-type': a.contentType, etag, 'content-encoding': 'gzip', ...vary } };
}
