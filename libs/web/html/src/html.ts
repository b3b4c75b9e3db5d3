/**
 * HTML built from tagged templates: every interpolated value is escaped unless it is itself `Html` (the result of
 * another `html` template, or `raw` for markup the code wrote). Arrays are joined; null, undefined and false
 * render nothing. A page can therefore not put a person's input into markup unescaped by accident. The console's
 * pages, the hosted capture page, the API reference and the error reference are all written with it.
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

/** The items one after another with `separator` between them, each rendered (escaped unless `Html`) as by `html`. */
export function join(items: readonly Renderable[], separator: Renderable): Html {
  return new Html(items.map(render).join(render(separator)));
}

export interface PageHead {
  title: string;
  /** The page's `referrer` policy. */
  referrer: 'no-referrer' | 'same-origin';
  /** Elements between the common `<meta>` elements and the title, a line each. */
  meta?: readonly Html[];
  /** Elements after the title (icon, stylesheet, script), a line each. */
  links?: readonly Html[];
}

/**
 * A page's start, up to `</head>`: the doctype, English, UTF-8, the phone viewport and the referrer policy that
 * every page of the region has, then its own elements.
 */
export function pageHead(h: PageHead): Html {
  const lines = (items: readonly Html[] = []) => items.map((l) => html`\n${l}`);
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="${h.referrer}">${lines(h.meta)}
<title>${h.title}</title>${lines(h.links)}
</head>`;
}
