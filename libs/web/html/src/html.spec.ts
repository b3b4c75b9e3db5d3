import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeHtml, html, join, pageHead, raw } from './html.js';

describe('html', () => {
  it('escapes every interpolated value unless the code built it as markup', () => {
    const name = `<script>alert("x")</script>&'`;
    assert.equal(html`<p title="${name}">${name}</p>`.text, '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>');
    assert.equal(html`<ul>${['a<b', html`<li>ok</li>`]}</ul>`.text, '<ul>a&lt;b<li>ok</li></ul>');
    assert.equal(html`${null}${undefined}${false}${0}`.text, '0');
    assert.equal(html`${raw('<br>')}`.text, '<br>');
  });

  it('escapes text for content and for either kind of quoted attribute', () => {
    assert.equal(escapeHtml(`a&b<c>d"e'f`), 'a&amp;b&lt;c&gt;d&quot;e&#39;f');
    assert.equal(String(html`<a href='${"x' onclick='y"}'>`), `<a href='x&#39; onclick=&#39;y'>`);
  });

  it('joins items with a separator, escaping both unless they are markup', () => {
    assert.equal(join(['a<b', html`<i>c</i>`, 1], ' | ').text, 'a&lt;b | <i>c</i> | 1');
    assert.equal(join(['x', 'y'], raw('<br>')).text, 'x<br>y');
    assert.equal(join([], '\n').text, '');
  });

  it('starts a page: its title escaped, its own elements a line each around it', () => {
    assert.equal(
      pageHead({ title: 'A & B', referrer: 'no-referrer', meta: [html`<meta name="robots" content="noindex">`], links: [html`<link rel="stylesheet" href="a.css">`] }).text,
      `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>A &amp; B</title>
<link rel="stylesheet" href="a.css">
</head>`,
    );
  });
});
