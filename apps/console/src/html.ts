/**
 * HTML built from tagged templates: every interpolated value is escaped unless it is itself `Html` (the result of
 * another `html` template, or `raw` for markup the code wrote). Arrays are joined; null, undefined and false
 * render nothing. A page can therefore not put a person's input into markup unescaped by accident.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

export type Renderable = Html | string | number | boolean | null | undefined | readonly Renderable[];

function render(v: Renderable): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: Renderable[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** Markup the code itself wrote (never a value from a request or a service). */
export function raw(text: string): Html {
  return new Html(text);
}
