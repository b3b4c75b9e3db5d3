import { escapeHtml, html, raw, type Html } from '@verity/html';

/**
 * Inline Markdown of the pages the gateway serves (the error reference from docs/errors.md, the API reference from
 * the OpenAPI document's texts): code spans, bold, links. A link to another page of docs/ keeps its text only (that
 * page is not served); a link within the page and an absolute http(s) link stay links.
 */
export function inline(md: string): Html {
  const parts = md.split(/(`[^`]*`)/).map((part, i) => {
    if (i % 2 === 1) return html`<code>${part.slice(1, -1)}</code>`;
    // the text is escaped first; only the Markdown's own marks become markup
    let s = escapeHtml(part.replace(/\\\|/g, '|'));
    s = s.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
    s = s.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, text: string, href: string) =>
      /^https?:\/\//.test(href) ? `<a href="${href}" rel="noopener noreferrer">${text}</a>` : href.startsWith('#') ? `<a href="${href}">${text}</a>` : text,
    );
    return raw(s);
  });
  return html`${parts}`;
}
