import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ERROR_CATALOGUE, toEnvelope } from '@verity/errors';
import { blocks, ERRORS_MD_PATH, explanations, loadErrorsPage, renderErrorsPage } from './errors-page.js';
import { inline } from './markdown.js';

const md = readFileSync(ERRORS_MD_PATH, 'utf8');

describe('the error reference page (GET /docs/errors)', () => {
  const page = loadErrorsPage(ERROR_CATALOGUE);

  it('has an anchor for every code of the catalogue, with its status, type and default message', () => {
    for (const [code, e] of Object.entries(ERROR_CATALOGUE)) {
      const at = page.html.indexOf(`id="${code}"`);
      assert.ok(at > 0, code);
      assert.equal(page.html.indexOf(`id="${code}"`, at + 1), -1, `${code}: one anchor`);
      const section = page.html.slice(at, page.html.indexOf('</section>', at));
      assert.match(section, new RegExp(`<dd>${e.status} `), code);
      assert.ok(section.includes(`<code>${e.type}</code>`), code);
      const message = e.message.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
      assert.ok(section.includes(message), code);
    }
  });

  it('carries the explanation of every code that docs/errors.md explains', () => {
    const why = explanations(md);
    assert.ok(why.size >= Object.keys(ERROR_CATALOGUE).length - 2, `${why.size} explanations`);
    for (const [code, text] of why) {
      const at = page.html.indexOf(`id="${code}"`);
      const section = page.html.slice(at, page.html.indexOf('</section>', at));
      assert.ok(section.includes(`<p>${inline(text)}</p>`), code);
    }
  });

  it('shows a code docs/errors.md does not know yet, from the catalogue alone', () => {
    const p = renderErrorsPage({ ...ERROR_CATALOGUE, brand_new_code: { status: 418, type: 'invalid_request_error', message: 'A <new> code.' } }, md);
    assert.match(p.html, /<section class="code" id="brand_new_code">[\s\S]*?418 I&#39;m a Teapot[\s\S]*?A &lt;new&gt; code\.[\s\S]*?<\/section>/);
  });

  it('every link within the page leads to an element of the page', () => {
    const ids = new Set([...page.html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
    for (const [, target] of page.html.matchAll(/href="#([^"]+)"/g)) assert.ok(ids.has(target), `#${target}`);
  });

  it('every doc_url the gateway builds names an anchor of the page', () => {
    for (const code of Object.keys(ERROR_CATALOGUE) as (keyof typeof ERROR_CATALOGUE)[]) {
      const url = new URL(toEnvelope({ code, message: 'x' }, 'req_1', 'http://127.0.0.1:8080/docs').error.doc_url);
      assert.equal(url.pathname, '/docs/errors');
      assert.ok(page.html.includes(`id="${url.hash.slice(1)}"`), code);
    }
  });

  it('loads nothing and runs nothing: its only stylesheet is inline and allowed by its hash', () => {
    assert.doesNotMatch(page.html, /<script|<link|<img|src=|@import|url\(/i);
    const style = /<style>([\s\S]*?)<\/style>/.exec(page.html)![1]!;
    const hash = createHash('sha256').update(style).digest('base64');
    assert.equal(
      page.headers['content-security-policy'],
      `default-src 'none'; style-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.match(page.etag, /^"[A-Za-z0-9_-]+"$/);
  });

  it('links to other pages of docs/ keep their text only; absolute links stay links; text is escaped', () => {
    assert.equal(inline('see [capture.md](capture.md) and **this**').text, 'see capture.md and <strong>this</strong>');
    assert.equal(inline('[below](#too-large-413-or-422)').text, '<a href="#too-large-413-or-422">below</a>');
    assert.equal(inline('[site](https://example.com/a?b=1&c=2)').text, '<a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer">site</a>');
    assert.equal(inline('`<a>` & <b> `x|y` a \\| b').text, '<code>&lt;a&gt;</code> &amp; &lt;b&gt; <code>x|y</code> a | b');
    assert.equal(blocks('## Too large: 413 or 422\n\n- one\n  two\n- three\n\npara\ngraph').text, '<h2 id="too-large-413-or-422">Too large: 413 or 422</h2>\n<ul>\n<li>one two</li>\n<li>three</li>\n</ul>\n<p>para graph</p>');
    assert.match(blocks('## Where `doc_url` leads').text, /^<h2 id="where-doc_url-leads">/);
  });

  it('without docs/errors.md the gateway does not start', () => {
    assert.throws(() => loadErrorsPage(ERROR_CATALOGUE, '/nonexistent/errors.md'), /docs\/errors\.md/);
  });
});
