/**
 * The error reference served at `GET /docs/errors`, where every `error.doc_url` points
 * (`<DOCS_BASE_URL>/errors#<code>`). Rendered once, at start, from the error catalogue and docs/errors.md: every
 * code of the catalogue gets an element `id="<code>"` with its status, type and default message, and the
 * explanation of its row in docs/errors.md when it has one; the prose around the table is rendered too. Nothing
 * about a code is written here by hand, so a new code of the catalogue appears by itself. Written with the `html`
 * tag of `@verity/html`: every text is escaped.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CatalogueEntry } from '@verity/errors';
import { html, join, pageHead, raw, type Html } from '@verity/html';
import { inline } from './markdown.js';

/** docs/errors.md of the repository (or of the image, where the Dockerfile copies it): dist/src/docs is five up. */
export const ERRORS_MD_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../docs/errors.md');

export interface ErrorsPage {
  html: string;
  /** The page's headers: a policy that allows only its own inline stylesheet, by hash. */
  headers: Record<string, string>;
  /** A strong validator of the bytes, quoted. */
  etag: string;
}

/** Cached for a while by browsers and proxies; the page only changes with a release. */
export const ERRORS_PAGE_CACHE_CONTROL = 'public, max-age=300';

/** A heading's anchor as GitHub makes it, so that the file's own `#…` links work on the page too. */
function slug(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}

/** Block Markdown of docs/errors.md: `##` headings, paragraphs, `-` lists (with continuation lines), fenced code. */
export function blocks(md: string): Html {
  const out: Html[] = [];
  const lines = md.split('\n');
  for (let i = 0; i < lines.length; ) {
    const line = lines[i]!;
    if (!line.trim()) {
      i++;
      continue;
    }
    if (line.startsWith('```')) {
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) body.push(lines[i]!);
      i++;
      out.push(html`<pre><code>${body.join('\n')}</code></pre>`);
      continue;
    }
    const h = /^(#{2,4})\s+(.*)$/.exec(line);
    if (h) {
      const level = h[1]!.length;
      out.push(html`<h${level} id="${slug(h[2]!)}">${inline(h[2]!)}</h${level}>`);
      i++;
      continue;
    }
    if (/^[-*] /.test(line)) {
      const items: string[] = [];
      while (i < lines.length && lines[i]!.trim() && !lines[i]!.startsWith('#')) {
        if (/^[-*] /.test(lines[i]!)) items.push(lines[i]!.slice(2).trim());
        else items[items.length - 1] += ` ${lines[i]!.trim()}`;
        i++;
      }
      out.push(html`<ul>\n${join(items.map((it) => html`<li>${inline(it)}</li>`), '\n')}\n</ul>`);
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && lines[i]!.trim() && !/^(#|```|[-*] |\|)/.test(lines[i]!)) para.push(lines[i++]!.trim());
    if (para.length) out.push(html`<p>${inline(para.join(' '))}</p>`);
    else i++; // a table row outside the codes table: not rendered
  }
  return join(out, '\n');
}

/** The explanation of each code: the last cell of its row of the codes table. */
export function explanations(md: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of md.split('\n')) {
    const m = /^\| `([a-z_]+)` \| \d{3} \| `[a-z_]+` \| (.*) \|\s*$/.exec(line);
    if (m) out.set(m[1]!, m[2]!.trim());
  }
  return out;
}

/** docs/errors.md in parts: the prose before the codes, the codes section's own prose, and the sections after it. */
function sections(md: string): { intro: string; after: string } {
  const lines = md.split('\n');
  const start = lines.findIndex((l) => /^## Codes\s*$/.test(l));
  if (start < 0) return { intro: lines.filter((l) => !/^# /.test(l)).join('\n'), after: '' };
  let end = lines.findIndex((l, i) => i > start && /^## /.test(l));
  if (end < 0) end = lines.length;
  return { intro: lines.slice(0, start).filter((l) => !/^# /.test(l)).join('\n'), after: lines.slice(end).join('\n') };
}

const STYLE = `
:root { color-scheme: light; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --code: #f3f4f6; --accent: #0a58ca; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: #fff; }
main { max-width: 56rem; margin: 0 auto; padding: 2rem 1.25rem 4rem; }
h1 { font-size: 2rem; margin: 0 0 1rem; }
h2 { font-size: 1.4rem; margin: 2.5rem 0 .75rem; padding-top: .5rem; border-top: 1px solid var(--line); }
h3 { font-size: 1.1rem; margin: 0 0 .5rem; }
a { color: var(--accent); }
code { font: .9em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code); padding: .1em .3em; border-radius: 4px; }
pre { background: var(--code); padding: 1rem; border-radius: 6px; overflow-x: auto; }
pre code { padding: 0; background: none; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.code { padding: 1rem 0; border-bottom: 1px solid var(--line); scroll-margin-top: 1rem; }
.code:target { background: #fff8c5; outline: .5rem solid #fff8c5; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0 0 .5rem; }
dt { color: var(--muted); }
dd { margin: 0; }
.muted { color: var(--muted); }
`;

/** The page, its headers and its validator, from the catalogue and the text of docs/errors.md. */
export function renderErrorsPage(catalogue: Readonly<Record<string, CatalogueEntry>>, errorsMd: string): ErrorsPage {
  const why = explanations(errorsMd);
  const { intro, after } = sections(errorsMd);
  const codes = Object.entries(catalogue);
  const index = join(
    codes.map(([code, e]) => html`<tr><td><a href="#${code}"><code>${code}</code></a></td><td>${e.status}</td><td><code>${e.type}</code></td></tr>`),
    '\n',
  );
  const entries = join(
    codes.map(([code, e]) => {
      const explanation = why.get(code);
      return html`<section class="code" id="${code}">
<h3><a href="#${code}"><code>${code}</code></a></h3>
<dl>
<dt>HTTP status</dt><dd>${e.status} ${STATUS_CODES[e.status] ?? ''}</dd>
<dt>Type</dt><dd><code>${e.type}</code></dd>
<dt>Default message</dt><dd>${e.message}</dd>
</dl>
${explanation && html`<p>${inline(explanation)}</p>`}
</section>`;
    }),
    '\n',
  );
  const page = html`${pageHead({ title: 'Errors · Verity API', referrer: 'no-referrer', links: [html`<style>${raw(STYLE)}</style>`] })}
<body>
<main>
<h1>Errors</h1>
${blocks(intro)}
<h2 id="codes">Codes</h2>
<p class="muted">Every code the API answers with. Each has its own anchor: an error's <code>doc_url</code> ends in <code>#&lt;code&gt;</code>.</p>
<table>
<thead><tr><th>code</th><th>HTTP</th><th>type</th></tr></thead>
<tbody>
${index}
</tbody>
</table>
${entries}
${blocks(after)}
</main>
</body>
</html>
`.text;
  const styleHash = createHash('sha256').update(STYLE).digest('base64');
  const csp = [
    "default-src 'none'",
    `style-src 'sha256-${styleHash}'`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    html: page,
    etag: `"${createHash('sha256').update(page).digest('base64url').slice(0, 27)}"`,
    headers: {
      'content-security-policy': csp,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
    },
  };
}

/** The page of this build: read once at start, so that an image without docs/errors.md fails at start. */
export function loadErrorsPage(catalogue: Readonly<Record<string, CatalogueEntry>>, file = ERRORS_MD_PATH): ErrorsPage {
  let md: string;
  try {
    md = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`the error reference needs ${file} (docs/errors.md; the Dockerfile copies it into the gateway image)`, { cause: e });
  }
  return renderErrorsPage(catalogue, md);
}
