import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ASSET_CACHE_CONTROL,
  ASSET_NAMES,
  CONTENT_SECURITY_POLICY,
  PAGE_TEXTS,
  SECURITY_HEADERS,
  assetUrl,
  captureAsset,
  capturePage,
  errorPage,
  escapeHtml,
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
    assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
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
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; media-src 'self' blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    assert.equal(/unsafe|\*|https?:/.test(CONTENT_SECURITY_POLICY), false);
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
    const js = captureAsset('capture.js')!.body.toString('utf8');
    assert.equal(/\.style\b|setAttribute\(\s*['"]style|innerHTML|insertAdjacentHTML|eval\(|new Function/.test(js), false);
  });
});
