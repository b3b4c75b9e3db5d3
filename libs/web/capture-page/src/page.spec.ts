import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { escapeHtml } from '@verity/html';
import {
  ASSET_CACHE_CONTROL,
  ASSET_NAMES,
  CONTENT_SECURITY_POLICY,
  PAGE_TEXTS,
  SECURITY_HEADERS,
  assetUrl,
  assetVariant,
  captureAsset,
  capturePage,
  errorPage,
} from './index.js';

const SECRET = `vcs_${'A1b2C3d4E5'.repeat(4)}xyz`;

/** Every piece of markup that would run or style inline, which the CSP would block. */
function inlineCode(html: string): string[] {
  const found: string[] = [];
  for (const m of html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/gi)) {
    if (!/\ssrc="[^"]+"/.test(m[0]) || m[1]!.trim() !== '') found.push(m[0]);
  }
  for (const m of html.matchAll(/<style\b/gi)) found.push(m[0]);
  for (const m of html.matchAll(/\sstyle\s*=/gi)) found.push(m[0]);
  for (const m of html.matchAll(/\son[a-z]+\s*=/gi)) found.push(m[0]);
  for (const m of html.matchAll(/javascript:/gi)) found.push(m[0]);
  return found;
}

/** Every URL the HTML loads from: none may name another origin. */
function urls(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
}

describe('the capture page', () => {
  it('has no inline script or style, and loads only its own relative assets', () => {
    const html = capturePage(SECRET);
    assert.deepEqual(inlineCode(html), []);
    const loaded = urls(html);
    assert.ok(loaded.length > 5);
    for (const u of loaded) assert.match(u, /^assets\/[a-z]+\.(js|css|svg)\?v=[A-Za-z0-9_-]+$/);
    assert.match(html, /<script type="module" src="assets\/capture\.js\?v=/);
    assert.match(html, /<link rel="stylesheet" href="assets\/page\.css\?v=/);
  });

  it('carries the client secret in a meta element, once', () => {
    const html = capturePage(SECRET);
    assert.ok(html.includes(`<meta name="capture-secret" content="${SECRET}">`));
    assert.equal(html.split(SECRET).length - 1, 1);
  });

  it('HTML-escapes the secret (the route only passes well-formed ones; this is the second line)', () => {
    const html = capturePage('vcs_"><script>alert(1)</script>&\'');
    assert.equal(html.includes('<script>alert(1)'), false);
    assert.ok(html.includes('content="vcs_&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;&#39;"'));
    assert.deepEqual(inlineCode(html), []);
  });

  it('is English, fits a phone, and has one main, headed screens and a polite status region', () => {
    const html = capturePage(SECRET);
    assert.match(html, /<html lang="en">/);
    assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    assert.match(html, /<meta name="referrer" content="no-referrer">/);
    assert.equal(html.match(/<main\b/g)?.length, 1);
    assert.match(html, /id="status"[^>]*role="status"[^>]*aria-live="polite"/);
    const sections = [...html.matchAll(/<section class="screen" id="screen-([a-z-]+)"[\s\S]*?<\/section>/g)];
    assert.ok(sections.length >= 10);
    for (const s of sections) assert.match(s[0], /<h1\b[^>]*tabindex="-1"/, `screen ${s[1]} has a focusable heading`);
    // every control is a real button (or the file input behind one)
    assert.equal(/<div[^>]*(data-action|role="button")/.test(html), false);
    for (const b of html.matchAll(/<button\b[^>]*>/g)) assert.match(b[0], /type="button"/);
    assert.match(html, /<input type="file" id="file"[^>]*accept="image\/jpeg,image\/png,image\/webp"/);
    // decorative pictures are silent; the preview photo gets its alt text from the script
    for (const img of html.matchAll(/<img\b[^>]*>/g)) assert.match(img[0], /\salt="/);
    assert.match(html, /<noscript>/);
  });

  it('shows the flow’s own link pages with the same words as the error pages', () => {
    const html = capturePage(SECRET);
    for (const k of ['unknown', 'used', 'expired'] as const) {
      assert.ok(html.includes(`<div data-link="${k}" hidden>`));
      assert.ok(html.includes(escapeHtml(PAGE_TEXTS[k].text)));
    }
  });
});

describe('the error pages', () => {
  it('unknown link: 404, says the link does not work and to ask for a new one', () => {
    const p = errorPage('unknown');
    assert.equal(p.status, 404);
    assert.match(p.html, /<h1 id="page-title">This link does not work<\/h1>/);
    assert.match(p.html, /Check that you opened the whole link\. .*ask the business that sent it for a new link\./);
  });

  it('used link: 410, says the verification is already done', () => {
    const p = errorPage('used');
    assert.equal(p.status, 410);
    assert.match(p.html, /<h1 id="page-title">This verification is already done<\/h1>/);
    assert.match(p.html, /this link no longer works\. .*ask the business for a new link\./);
  });

  it('expired link: 410, says it expired and to ask for a new one', () => {
    const p = errorPage('expired');
    assert.equal(p.status, 410);
    assert.match(p.html, /<h1 id="page-title">This link has expired<\/h1>/);
    assert.match(p.html, /Please ask the business that sent it for a new link\./);
  });

  it('unavailable: 503 and try again in a minute; an internal error 500 likewise', () => {
    assert.equal(errorPage('unavailable').status, 503);
    assert.match(errorPage('unavailable').html, /Please try again in a minute\./);
    assert.equal(errorPage('error').status, 500);
    assert.match(errorPage('error').html, /Please try again in a minute\./);
  });

  it('have no script at all, no inline style, and nothing from another origin', () => {
    for (const kind of ['unknown', 'used', 'expired', 'unavailable', 'error'] as const) {
      const { html } = errorPage(kind);
      assert.equal(/<script/i.test(html), false, kind);
      assert.deepEqual(inlineCode(html), [], kind);
      for (const u of urls(html)) assert.match(u, /^assets\//, kind);
      assert.equal(html.includes('vcs_'), false);
    }
  });
});

describe('the policy and the assets', () => {
  it('the CSP loads nothing from elsewhere, runs nothing inline and cannot be framed', () => {
    assert.equal(
      CONTENT_SECURITY_POLICY,
      "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' blob:; media-src 'self' blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    // WebAssembly of its own origin for the face guide, nothing else unsafe: no eval, no inline code, no worker
    assert.equal(/unsafe|\*|https?:/.test(CONTENT_SECURITY_POLICY.replace(" 'wasm-unsafe-eval'", '')), false);
    assert.equal(/worker-src|'unsafe-eval'|'unsafe-inline'/.test(CONTENT_SECURITY_POLICY), false);
    assert.equal(SECURITY_HEADERS['content-security-policy'], CONTENT_SECURITY_POLICY);
    assert.equal(SECURITY_HEADERS['x-content-type-options'], 'nosniff');
    assert.equal(SECURITY_HEADERS['referrer-policy'], 'no-referrer');
    assert.equal(ASSET_CACHE_CONTROL, 'public, max-age=3600');
  });

  it('serves the script, the modules it imports, the stylesheet and pictures with their types', () => {
    const js = captureAsset('capture.js')!;
    assert.equal(js.contentType, 'text/javascript; charset=utf-8');
    // the modules the script imports are served too
    for (const m of js.body.toString('utf8').matchAll(/import\(`\.\/([a-z]+\.js)/g)) assert.ok(captureAsset(m[1]!), m[1]);
    assert.equal(captureAsset('analysis.js')!.contentType, 'text/javascript; charset=utf-8');
    assert.equal(captureAsset('page.css')!.contentType, 'text/css; charset=utf-8');
    assert.equal(captureAsset('icon.svg')!.contentType, 'image/svg+xml');
    assert.match(captureAsset('page.css')!.etag, /^"[A-Za-z0-9_-]{16}"$/);
    // no source map is named, none is served
    assert.equal(js.body.includes('sourceMappingURL'), false);
    // every asset the page links is served
    for (const u of urls(capturePage(SECRET))) assert.ok(captureAsset(u.slice('assets/'.length).split('?')[0]!), u);
    assert.ok(ASSET_NAMES.includes('flow.js'));
    assert.match(assetUrl('page.css'), /^assets\/page\.css\?v=[A-Za-z0-9_-]{10}$/);
  });

  it('serves nothing else', () => {
    for (const name of ['capture.d.ts', 'tsconfig.tsbuildinfo', '../package.json', '..%2Fpackage.json', 'capture.js.map', 'constructor', '__proto__', 'toString', '']) {
      assert.equal(captureAsset(name), undefined, name);
    }
  });

  it('the browser script never writes inline style or script', () => {
    for (const name of ['capture.js', 'face.js', 'oval.js']) {
      const js = captureAsset(name)!.body.toString('utf8');
      assert.equal(/\.style\b|setAttribute\(\s*['"]style|innerHTML|insertAdjacentHTML|eval\(|new Function/.test(js), false, name);
    }
  });

  it('the face guide: its module, Human, BlazeFace and the WebAssembly are served, with their types', () => {
    // imported by the page only on the selfie step
    assert.match(captureAsset('capture.js')!.body.toString('utf8'), /import\(`\.\/face\.js\$\{version\}`\)/);
    assert.match(captureAsset('face.js')!.body.toString('utf8'), /import\(`\.\/human\.esm\.js\$\{version\}`\)/);
    for (const [name, type] of [
      ['face.js', 'text/javascript; charset=utf-8'],
      ['oval.js', 'text/javascript; charset=utf-8'],
      ['human.esm.js', 'text/javascript; charset=utf-8'],
      ['blazeface.json', 'application/json'],
      ['blazeface.bin', 'application/octet-stream'],
      ['tfjs-backend-wasm-simd.wasm', 'application/wasm'],
      ['tfjs-backend-wasm.wasm', 'application/wasm'],
    ]) {
      assert.equal(captureAsset(name!)?.contentType, type, name);
    }
    // the model's weights are the file its manifest names
    const manifest = JSON.parse(captureAsset('blazeface.json')!.body.toString('utf8')) as { weightsManifest: { paths: string[] }[] };
    assert.deepEqual(manifest.weightsManifest.flatMap((m) => m.paths), ['blazeface.bin']);
    assert.equal(captureAsset('human.esm.js')!.body.includes('sourceMappingURL'), false);
    // the threaded WebAssembly needs cross-origin isolation, which the page does not have: not served
    assert.equal(captureAsset('tfjs-backend-wasm-threaded-simd.wasm'), undefined);
  });

  it("the vendored files are the installed packages' own (vendor/README.md: copy them again on an upgrade)", () => {
    const require = createRequire(import.meta.url);
    const human = path.resolve(path.dirname(require.resolve('@vladmandic/human')), '..');
    const wasm = path.resolve(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm')), '..');
    const version = (dir: string) => (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    assert.equal(version(human), '3.3.6');
    assert.equal(version(wasm), '4.22.0');
    const sources: Record<string, string> = {
      'human.esm.js': path.join(human, 'dist', 'human.esm.js'),
      'blazeface.json': path.join(human, 'models', 'blazeface.json'),
      'blazeface.bin': path.join(human, 'models', 'blazeface.bin'),
      'tfjs-backend-wasm-simd.wasm': path.join(wasm, 'dist', 'tfjs-backend-wasm-simd.wasm'),
      'tfjs-backend-wasm.wasm': path.join(wasm, 'dist', 'tfjs-backend-wasm.wasm'),
    };
    for (const [name, file] of Object.entries(sources)) {
      const installed = readFileSync(file);
      const served = captureAsset(name)!.body;
      // the served script drops only its source map's name
      if (name.endsWith('.js')) assert.equal(served.toString('utf8'), installed.toString('utf8').replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n'), name);
      else assert.ok(served.equals(installed), name);
    }
  });

  it('sends the large files gzip-compressed to a browser that takes gzip, with their own ETag, and as they are otherwise', async () => {
    const plain = (await assetVariant('human.esm.js', undefined))!;
    assert.ok(plain.body.equals(captureAsset('human.esm.js')!.body));
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers.vary, 'Accept-Encoding');
    const gz = (await assetVariant('human.esm.js', 'gzip, deflate, br, zstd'))!;
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gz.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.notEqual(gz.etag, plain.etag);
    assert.equal(gz.headers.etag, gz.etag);
    assert.ok(gunzipSync(gz.body).equals(plain.body));
    assert.equal((await assetVariant('human.esm.js', 'gzip;q=0, br'))!.headers['content-encoding'], undefined);
    assert.equal((await assetVariant('human.esm.js', 'identity'))!.headers['content-encoding'], undefined);
    // the small pictures are sent as they are
    assert.equal((await assetVariant('icon.svg', 'gzip'))!.headers['content-encoding'], undefined);
    assert.equal(await assetVariant('nope.js', 'gzip'), undefined);
    // what an applicant's browser downloads for the face guide (docs/capture.md "The face guide")
    const files = ['face.js', 'oval.js', 'human.esm.js', 'blazeface.json', 'blazeface.bin', 'tfjs-backend-wasm-simd.wasm'];
    let sent = 0;
    for (const f of files) sent += (await assetVariant(f, 'gzip'))!.body.length;
    const raw = files.reduce((n, f) => n + captureAsset(f)!.body.length, 0);
    assert.ok(sent < 1_000_000, `${sent} bytes gzip-compressed (${raw} as they are)`);
  });
});
