/**
 * The page's static files: the compiled browser script (dist/browser, built by browser/tsconfig.json), the
 * stylesheet and the pictures (assets/). Read once when the module loads, so that a missing build fails the
 * gateway at start rather than an applicant later.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** This module runs from dist/src: the library's folder is two up. */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Asset {
  body: Buffer;
  contentType: string;
  /** A strong validator of the bytes, quoted. */
  etag: string;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
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
};

function load(name: string, rel: string): Asset {
  let body: Buffer;
  try {
    body = readFileSync(path.join(ROOT, rel));
  } catch {
    throw new Error(`capture page: ${rel} is missing in libs/capture-page (run npm run build)`);
  }
  // the compiled modules name no source map: none is served
  if (name.endsWith('.js')) body = Buffer.from(body.toString('utf8').replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n'));
  const digest = createHash('sha256').update(body).digest('base64url').slice(0, 16);
  return { body, contentType: TYPES[path.extname(name)], etag: `"${digest}"` };
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
