import { html, join, pageHead, raw, type Html } from '@verity/html';
import type { JsonObject, OpenApiDocument } from '@verity/api-schema';
import { inline } from '../docs/markdown.js';

/**
 * The human reference, rendered from the OpenAPI document at build time: one static HTML page, its stylesheet
 * inline, no script, nothing from another origin. Every route has an anchor (its operation id); every error code
 * links to the error catalogue page (`/docs/errors#<code>`). Written with the `html` tag of `@verity/html`: every
 * text of the document is escaped.
 */

function blocks(md: string): Html {
  const out: Html[] = [];
  for (const block of md.split(/\n\s*\n/)) {
    const lines = block.split('\n');
    if (lines[0]!.startsWith('## ')) out.push(html`<h3>${inline(lines[0]!.slice(3))}</h3>`, ...(lines.length > 1 ? [html`<p>${inline(lines.slice(1).join(' '))}</p>`] : []));
    else if (lines[0]!.startsWith('|')) {
      const cells = (l: string) => l.slice(1, -1).split('|').map((c) => c.trim());
      const [head, , ...rows] = lines;
      out.push(
        html`<table><thead><tr>${cells(head!).map((c) => html`<th>${inline(c)}</th>`)}</tr></thead><tbody>${rows.map(
          (r) => html`<tr>${cells(r).map((c) => html`<td>${inline(c)}</td>`)}</tr>`,
        )}</tbody></table>`,
      );
    } else out.push(html`<p>${inline(block.replace(/\n/g, ' '))}</p>`);
  }
  return join(out, '\n');
}

type Schema = JsonObject & {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  description?: string;
  default?: unknown;
  additionalProperties?: Schema | boolean;
};

class Renderer {
  constructor(private readonly doc: OpenApiDocument) {}

  private resolve(s: Schema): Schema {
    let cur = s;
    for (let i = 0; cur.$ref && i < 10; i++) cur = this.doc.components.schemas[cur.$ref.replace('#/components/schemas/', '')] as Schema;
    return cur;
  }

  /** A short type, as HTML: `string`, `integer`, a linked `Applicant`, `array of string`, `"a" | "b"`, `… | null`. */
  typeOf(s: Schema): Html {
    if (s.$ref) {
      const name = s.$ref.replace('#/components/schemas/', '');
      return html`<a href="#schema-${name}">${name}</a>`;
    }
    if (s.const !== undefined) return html`${JSON.stringify(s.const)}`;
    if (s.enum) return join(s.enum.map((v) => JSON.stringify(v)), ' | ');
    const alts = s.anyOf ?? s.oneOf;
    if (alts) return join(alts.map((a) => this.typeOf(a)), ' | ');
    if (s.type === 'array') return html`array of ${s.items ? this.typeOf(s.items) : 'any'}`;
    if (Array.isArray(s.type)) return html`${s.type.join(' | ')}`;
    if (s.type === 'string' && typeof s['format'] === 'string') return html`string (${s['format'] as string})`;
    return html`${s.type ?? 'any'}`;
  }

  private limits(s: Schema): Html {
    const parts: Array<string | Html> = [];
    const n = (k: string) => (typeof s[k] === 'number' ? String(s[k]) : null);
    if (n('minimum') !== null || n('maximum') !== null) parts.push(`${n('minimum') ?? '…'} to ${n('maximum') ?? '…'}`);
    if (n('minLength') !== null || n('maxLength') !== null) parts.push(`${n('minLength') ?? 0} to ${n('maxLength') ?? '…'} characters`);
    if (n('maxItems') !== null) parts.push(`at most ${n('maxItems')} items`);
    if (s.default !== undefined) parts.push(html`default <code>${JSON.stringify(s.default)}</code>`);
    return join(parts, '; ');
  }

  /** Rows of fields, nested objects as dotted names (a named schema is linked, not expanded). */
  fieldRows(s: Schema, prefix = '', depth = 0): Html[] {
    const target = this.resolve(s);
    const rows: Html[] = [];
    const props = target.properties ?? {};
    for (const [name, raw] of Object.entries(props)) {
      const p = raw;
      const full = `${prefix}${name}`;
      const required = target.required?.includes(name) ? 'required' : '';
      const note = join([p.description ? inline(p.description) : '', this.limits(p)].filter((t) => String(t) !== ''), ' ');
      rows.push(html`<tr><td><code>${full}</code></td><td>${this.typeOf(p)}</td><td>${required}</td><td>${note}</td></tr>`);
      const inner = p.type === 'array' && p.items ? p.items : (p.anyOf ?? []).find((a) => a.type === 'object' && a.properties) ?? p;
      if (depth < 3 && !inner.$ref && inner.properties) rows.push(...this.fieldRows(inner, `${full}${p.type === 'array' ? '[]' : ''}.`, depth + 1));
    }
    return rows;
  }

  fields(s: Schema): Html {
    const target = this.resolve(s);
    const head = s.$ref ? html`<p>Schema <code>${this.typeOf(s)}</code>${target.description ? html`: ${inline(target.description)}` : ''}</p>` : html``;
    const rows = this.fieldRows(s);
    if (!rows.length) return head;
    return html`${head}<table><thead><tr><th>Field</th><th>Type</th><th></th><th>Notes</th></tr></thead><tbody>${rows}</tbody></table>`;
  }
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#57606a;--line:#d0d7de;--code:#f3f4f6;--accent:#0b57d0}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9198a1;--line:#30363d;--code:#161b22;--accent:#6ea8fe}}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
.wrap{display:grid;grid-template-columns:17rem 1fr;max-width:90rem;margin:0 auto}
nav{position:sticky;top:0;height:100vh;overflow:auto;padding:1rem;border-right:1px solid var(--line);font-size:13px}
nav ul{list-style:none;margin:0 0 1rem;padding:0}nav a{color:var(--fg);text-decoration:none}nav a:hover,nav a:focus{text-decoration:underline}
main{padding:1rem 2rem 4rem;min-width:0}h1{margin-top:0}h2{border-bottom:1px solid var(--line);padding-bottom:.3rem;margin-top:2.5rem}
section.op{border:1px solid var(--line);border-radius:6px;padding:0 1rem 1rem;margin:1.5rem 0}
.m{display:inline-block;min-width:4.2rem;font:600 12px ui-monospace,monospace;text-transform:uppercase}
.get{color:#1a7f37}.post{color:#0b57d0}.put{color:#9a6700}.patch{color:#8250df}.delete{color:#cf222e}
code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;background:var(--code);padding:.05rem .25rem;border-radius:3px}
table{border-collapse:collapse;width:100%;margin:.5rem 0;font-size:14px}th,td{border:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dl.meta dt{color:var(--muted)}
a{color:var(--accent)}a:focus{outline:2px solid var(--accent)}
@media (max-width:60rem){.wrap{display:block}nav{position:static;height:auto;border-right:0;border-bottom:1px solid var(--line)}}
`;

/** The page, from the document alone. */
export function renderReference(doc: OpenApiDocument): string {
  const r = new Renderer(doc);
  const info = doc['info'] as { title: string; version: string; description: string };
  const tags = (doc['tags'] as Array<{ name: string; description: string }>) ?? [];
  type Op = { method: string; path: string; op: JsonObject };
  const byTag = new Map<string, Op[]>(tags.map((t) => [t.name, []]));
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = (op['tags'] as string[])[0]!;
      byTag.set(tag, [...(byTag.get(tag) ?? []), { method, path, op }]);
    }
  }

  const nav = tags
    .map((t) => {
      const ops = byTag.get(t.name) ?? [];
      return html`<p><strong>${t.name}</strong></p><ul>${ops.map(
        (o) => html`<li><a href="#${o.op['operationId'] as string}"><span class="m ${o.method}">${o.method}</span>${o.path}</a></li>`,
      )}</ul>`;
    });

  const sections = join(
    tags.map((t) => {
      const ops = byTag.get(t.name) ?? [];
      return html`<h2 id="tag-${t.name.toLowerCase().replace(/\s+/g, '-')}">${t.name}</h2><p>${inline(t.description)}</p>${join(
        ops.map((o) => renderOperation(r, o.method, o.path, o.op)),
        '\n',
      )}`;
    }),
    '\n',
  );

  const schemas = join(
    Object.entries(doc.components.schemas).map(
      ([name, s]) =>
        html`<section class="op" id="schema-${name}"><h3><code>${name}</code></h3>${(s as Schema).description && html`<p>${inline((s as Schema).description!)}</p>`}${r.fields({ ...(s as Schema), description: undefined })}</section>`,
    ),
    '\n',
  );

  return html`${pageHead({ title: `${info.title} reference`, referrer: 'no-referrer', links: [html`<style>${raw(STYLE)}</style>`] })}
<body>
<div class="wrap">
<nav aria-label="Routes"><p><a href="#top"><strong>${info.title}</strong></a></p><p><a href="/v1/openapi.json">OpenAPI document</a> · <a href="/docs/errors">Errors</a></p>${nav}<p><a href="#schemas"><strong>Schemas</strong></a></p></nav>
<main id="top">
<h1>${info.title} <small>${info.version}</small></h1>
${blocks(info.description)}
${sections}
<h2 id="schemas">Schemas</h2>
${schemas}
</main>
</div>
</body>
</html>
`.text;
}

function renderOperation(r: Renderer, method: string, path: string, op: JsonObject): Html {
  const id = op['operationId'] as string;
  const scope = op['x-verity-scope'] as string | null;
  const security = op['security'] as Array<Record<string, string[]>>;
  const auth = security.length === 0 ? 'None' : 'clientSecret' in security[0]! ? "The session's client secret (Bearer)" : 'API key (Bearer)';
  const meta: Array<[string, string | Html]> = [
    ['Authentication', auth],
    ['Scope', scope ? html`<code>${scope}</code>` : security.length && !('clientSecret' in security[0]!) ? 'none (any key)' : '—'],
    ['Rate class', op['x-verity-rate-class'] ? html`<code>${op['x-verity-rate-class'] as string}</code>` : '—'],
    ['Pre-authentication IP limit', op['x-verity-ip-limit'] ? 'counts' : 'no'],
  ];
  if (op['x-verity-publishable-key']) meta.push(['Publishable keys', 'allowed']);

  const params = ((op['parameters'] as JsonObject[] | undefined) ?? []).map((p) =>
    p['$ref'] ? { name: 'Idempotency-Key', in: 'header', required: false, description: 'Makes the request safe to retry (see above).', schema: { type: 'string' } } : p,
  ) as Array<{ name: string; in: string; required: boolean; description?: string; schema: Schema }>;
  const paramTable = params.length
    ? html`<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th></th><th>Notes</th></tr></thead><tbody>${params.map(
        (p) => html`<tr><td><code>${p.name}</code></td><td>${p.in}</td><td>${r.typeOf(p.schema)}</td><td>${p.required && 'required'}</td><td>${p.description && inline(p.description)}</td></tr>`,
      )}</tbody></table>`
    : '';

  const body = op['requestBody'] as { required: boolean; content: Record<string, { schema?: Schema }> } | undefined;
  let bodyHtml: Html | '' = '';
  if (body) {
    const [type, media] = Object.entries(body.content)[0]!;
    const types = join(Object.keys(body.content).map((t) => html`<code>${t}</code>`), ', ');
    bodyHtml = html`<h4>Body</h4><p>${types}${!body.required && ' (may be left out)'}</p>${media.schema ? r.fields(media.schema) : html`<p>The raw ${type.split('/')[0]!} bytes.</p>`}`;
  }

  const responses = Object.entries(op['responses'] as Record<string, JsonObject>).map(([status, res]) => {
    const codes = res['x-verity-error-codes'] as string[] | undefined;
    if (codes) {
      return html`<tr><td>${status}</td><td>${join(
        codes.map((c) => html`<a href="/docs/errors#${c}"><code>${c}</code></a>`),
        ', ',
      )}</td></tr>`;
    }
    const contentTypes = Object.keys((res['content'] as JsonObject | undefined) ?? {});
    return html`<tr><td>${status}</td><td>${inline(res['description'] as string)}${contentTypes.length > 0 && html` <code>${contentTypes.join(', ')}</code>`}</td></tr>`;
  });
  const success = Object.entries(op['responses'] as Record<string, JsonObject>).find(([s]) => s.startsWith('2'));
  const successSchema = (success?.[1]['content'] as Record<string, { schema?: Schema }> | undefined)?.['application/json']?.schema;
  const wrapped = successSchema?.properties?.['data']?.$ref ? successSchema.properties['data'] : undefined;
  const successHtml = !successSchema
    ? ''
    : wrapped
      ? html`<h4>Answer ${success![0]}: <code>{ "data": ${r.typeOf(wrapped)} }</code></h4>${r.fields(wrapped)}`
      : html`<h4>Answer ${success![0]}</h4>${r.fields(successSchema)}`;

  return html`<section class="op" id="${id}">
<h3><a href="#${id}"><span class="m ${method}">${method}</span><code>${path}</code></a></h3>
<p><strong>${inline(op['summary'] as string)}.</strong> ${inline(op['description'] as string)}</p>
<dl class="meta">${meta.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
${paramTable}${bodyHtml}${successHtml}
<h4>Responses</h4><table><thead><tr><th>Status</th><th>Meaning and error codes</th></tr></thead><tbody>${responses}</tbody></table>
</section>`;
}
