import type { JsonObject, OpenApiDocument } from './openapi.js';

/**
 * The human reference, rendered from the OpenAPI document at build time: one static HTML page, its stylesheet
 * inline, no script, nothing from another origin. Every route has an anchor (its operation id); every error code
 * links to the error catalogue page (`/docs/errors#<code>`).
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** The Markdown the document's texts use: code spans, bold, paragraphs, tables and `##` headings. */
export function inline(md: string): string {
  return md
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? `<code>${esc(part.slice(1, -1))}</code>` : esc(part).replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')))
    .join('');
}

function blocks(md: string): string {
  const out: string[] = [];
  for (const block of md.split(/\n\s*\n/)) {
    const lines = block.split('\n');
    if (lines[0]!.startsWith('## ')) out.push(`<h3>${inline(lines[0]!.slice(3))}</h3>`, ...(lines.length > 1 ? [`<p>${inline(lines.slice(1).join(' '))}</p>`] : []));
    else if (lines[0]!.startsWith('|')) {
      const cells = (l: string) => l.slice(1, -1).split('|').map((c) => c.trim());
      const [head, , ...rows] = lines;
      out.push(
        `<table><thead><tr>${cells(head!).map((c) => `<th>${inline(c)}</th>`).join('')}</tr></thead><tbody>${rows
          .map((r) => `<tr>${cells(r).map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`)
          .join('')}</tbody></table>`,
      );
    } else out.push(`<p>${inline(block.replace(/\n/g, ' '))}</p>`);
  }
  return out.join('\n');
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
  typeOf(s: Schema): string {
    if (s.$ref) {
      const name = esc(s.$ref.replace('#/components/schemas/', ''));
      return `<a href="#schema-${name}">${name}</a>`;
    }
    if (s.const !== undefined) return esc(JSON.stringify(s.const));
    if (s.enum) return s.enum.map((v) => esc(JSON.stringify(v))).join(' | ');
    const alts = s.anyOf ?? s.oneOf;
    if (alts) return alts.map((a) => this.typeOf(a)).join(' | ');
    if (s.type === 'array') return `array of ${s.items ? this.typeOf(s.items) : 'any'}`;
    if (Array.isArray(s.type)) return esc(s.type.join(' | '));
    if (s.type === 'string' && typeof s['format'] === 'string') return `string (${esc(s['format'] as string)})`;
    return esc(s.type ?? 'any');
  }

  private limits(s: Schema): string {
    const parts: string[] = [];
    const n = (k: string) => (typeof s[k] === 'number' ? String(s[k]) : null);
    if (n('minimum') !== null || n('maximum') !== null) parts.push(`${n('minimum') ?? '…'} to ${n('maximum') ?? '…'}`);
    if (n('minLength') !== null || n('maxLength') !== null) parts.push(`${n('minLength') ?? 0} to ${n('maxLength') ?? '…'} characters`);
    if (n('maxItems') !== null) parts.push(`at most ${n('maxItems')} items`);
    if (s.default !== undefined) parts.push(`default <code>${esc(JSON.stringify(s.default))}</code>`);
    return parts.join('; ');
  }

  /** Rows of fields, nested objects as dotted names (a named schema is linked, not expanded). */
  fieldRows(s: Schema, prefix = '', depth = 0): string[] {
    const target = this.resolve(s);
    const rows: string[] = [];
    const props = target.properties ?? {};
    for (const [name, raw] of Object.entries(props)) {
      const p = raw;
      const full = `${prefix}${name}`;
      const required = target.required?.includes(name) ? 'required' : '';
      const note = [p.description ? inline(p.description) : '', this.limits(p)].filter(Boolean).join(' ');
      rows.push(`<tr><td><code>${esc(full)}</code></td><td>${this.typeOf(p)}</td><td>${required}</td><td>${note}</td></tr>`);
      const inner = p.type === 'array' && p.items ? p.items : (p.anyOf ?? []).find((a) => a.type === 'object' && a.properties) ?? p;
      if (depth < 3 && !inner.$ref && inner.properties) rows.push(...this.fieldRows(inner, `${full}${p.type === 'array' ? '[]' : ''}.`, depth + 1));
    }
    return rows;
  }

  fields(s: Schema): string {
    const target = this.resolve(s);
    const head = s.$ref ? `<p>Schema <code>${this.typeOf(s)}</code>${target.description ? `: ${inline(target.description)}` : ''}</p>` : '';
    const rows = this.fieldRows(s);
    if (!rows.length) return head;
    return `${head}<table><thead><tr><th>Field</th><th>Type</th><th></th><th>Notes</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
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
      return `<p><strong>${esc(t.name)}</strong></p><ul>${ops
        .map((o) => `<li><a href="#${esc(o.op['operationId'] as string)}"><span class="m ${o.method}">${o.method}</span>${esc(o.path)}</a></li>`)
        .join('')}</ul>`;
    })
    .join('');

  const sections = tags
    .map((t) => {
      const ops = byTag.get(t.name) ?? [];
      return `<h2 id="tag-${esc(t.name.toLowerCase().replace(/\s+/g, '-'))}">${esc(t.name)}</h2><p>${inline(t.description)}</p>${ops.map((o) => renderOperation(r, o.method, o.path, o.op)).join('\n')}`;
    })
    .join('\n');

  const schemas = Object.entries(doc.components.schemas)
    .map(([name, s]) => `<section class="op" id="schema-${esc(name)}"><h3><code>${esc(name)}</code></h3>${(s as Schema).description ? `<p>${inline((s as Schema).description!)}</p>` : ''}${r.fields({ ...(s as Schema), description: undefined })}</section>`)
    .join('\n');

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(info.title)} reference</title>
<style>${STYLE}</style>
</head>
<body>
<div class="wrap">
<nav aria-label="Routes"><p><a href="#top"><strong>${esc(info.title)}</strong></a></p><p><a href="/v1/openapi.json">OpenAPI document</a> · <a href="/docs/errors">Errors</a></p>${nav}<p><a href="#schemas"><strong>Schemas</strong></a></p></nav>
<main id="top">
<h1>${esc(info.title)} <small>${esc(info.version)}</small></h1>
${blocks(info.description)}
${sections}
<h2 id="schemas">Schemas</h2>
${schemas}
</main>
</div>
</body>
</html>
`;
}

function renderOperation(r: Renderer, method: string, path: string, op: JsonObject): string {
  const id = op['operationId'] as string;
  const scope = op['x-verity-scope'] as string | null;
  const security = op['security'] as Array<Record<string, string[]>>;
  const auth = security.length === 0 ? 'None' : 'clientSecret' in security[0]! ? "The session's client secret (Bearer)" : 'API key (Bearer)';
  const meta = [
    ['Authentication', esc(auth)],
    ['Scope', scope ? `<code>${esc(scope)}</code>` : security.length && !('clientSecret' in security[0]!) ? 'none (any key)' : '—'],
    ['Rate class', op['x-verity-rate-class'] ? `<code>${esc(op['x-verity-rate-class'] as string)}</code>` : '—'],
    ['Pre-authentication IP limit', op['x-verity-ip-limit'] ? 'counts' : 'no'],
  ];
  if (op['x-verity-publishable-key']) meta.push(['Publishable keys', 'allowed']);

  const params = ((op['parameters'] as JsonObject[] | undefined) ?? []).map((p) =>
    p['$ref'] ? { name: 'Idempotency-Key', in: 'header', required: false, description: 'Makes the request safe to retry (see above).', schema: { type: 'string' } } : p,
  ) as Array<{ name: string; in: string; required: boolean; description?: string; schema: Schema }>;
  const paramTable = params.length
    ? `<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th></th><th>Notes</th></tr></thead><tbody>${params
        .map((p) => `<tr><td><code>${esc(p.name)}</code></td><td>${p.in}</td><td>${r.typeOf(p.schema)}</td><td>${p.required ? 'required' : ''}</td><td>${p.description ? inline(p.description) : ''}</td></tr>`)
        .join('')}</tbody></table>`
    : '';

  const body = op['requestBody'] as { required: boolean; content: Record<string, { schema?: Schema }> } | undefined;
  let bodyHtml = '';
  if (body) {
    const [type, media] = Object.entries(body.content)[0]!;
    const types = Object.keys(body.content).map((t) => `<code>${esc(t)}</code>`).join(', ');
    bodyHtml = `<h4>Body</h4><p>${types}${body.required ? '' : ' (may be left out)'}</p>${media.schema ? r.fields(media.schema) : `<p>The raw ${esc(type.split('/')[0]!)} bytes.</p>`}`;
  }

  const responses = Object.entries(op['responses'] as Record<string, JsonObject>)
    .map(([status, res]) => {
      const codes = res['x-verity-error-codes'] as string[] | undefined;
      if (codes) {
        return `<tr><td>${esc(status)}</td><td>${codes.map((c) => `<a href="/docs/errors#${esc(c)}"><code>${esc(c)}</code></a>`).join(', ')}</td></tr>`;
      }
      const contentTypes = Object.keys((res['content'] as JsonObject | undefined) ?? {});
      return `<tr><td>${esc(status)}</td><td>${inline(res['description'] as string)}${contentTypes.length ? ` <code>${esc(contentTypes.join(', '))}</code>` : ''}</td></tr>`;
    })
    .join('');
  const success = Object.entries(op['responses'] as Record<string, JsonObject>).find(([s]) => s.startsWith('2'));
  const successSchema = (success?.[1]['content'] as Record<string, { schema?: Schema }> | undefined)?.['application/json']?.schema;
  const wrapped = successSchema?.properties?.['data']?.$ref ? successSchema.properties['data'] : undefined;
  const successHtml = !successSchema
    ? ''
    : wrapped
      ? `<h4>Answer ${esc(success![0])}: <code>{ "data": ${r.typeOf(wrapped)} }</code></h4>${r.fields(wrapped)}`
      : `<h4>Answer ${esc(success![0])}</h4>${r.fields(successSchema)}`;

  return `<section class="op" id="${esc(id)}">
<h3><a href="#${esc(id)}"><span class="m ${method}">${method}</span><code>${esc(path)}</code></a></h3>
<p><strong>${inline(op['summary'] as string)}.</strong> ${inline(op['description'] as string)}</p>
<dl class="meta">${meta.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>
${paramTable}${bodyHtml}${successHtml}
<h4>Responses</h4><table><thead><tr><th>Status</th><th>Meaning and error codes</th></tr></thead><tbody>${responses}</tbody></table>
</section>`;
}
