import type { ConsoleRole } from '@verity/contracts';
import type { Mode } from '@verity/keys';
import { PAGES, type PageName } from './auth/roles.js';
import { html, pageHead, raw, type Html, type Renderable } from '@verity/html';

export const STYLESHEET_PATH = '/assets/console.css';
export const FAVICON_PATH = '/assets/favicon.svg';
/** The console's icon: a check mark on the brand's blue, served from its own origin like everything else. */
export const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2553c8"/><path d="M8.5 16.5l5 5 10-11" fill="none" stroke="#fff" stroke-width="3.5" stroke-linecap="round" stroke-linejoin="round"/></svg>';

/** What the frame of every signed-in page needs to know. */
export interface Frame {
  region: string;
  email: string;
  role: ConsoleRole;
  orgName: string;
  mode: Mode;
  csrf: string;
  current: PageName | null;
  /** The person must set up two-factor sign-in before anything else: no navigation. */
  enrolOnly?: boolean;
}

function head(title: string): Html {
  return pageHead({
    title: `${title} · Verity console`,
    referrer: 'same-origin',
    meta: [html`<meta name="robots" content="noindex, nofollow">`],
    links: [html`<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">`, html`<link rel="stylesheet" href="${STYLESHEET_PATH}">`],
  });
}

/** A hidden field carrying the session's form token: every form that changes something includes it. */
export function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="_csrf" value="${csrf}">`;
}

/** A signed-in page: the bar (organization, region, the test/live switch, sign-out), navigation by role, the content. */
export function layout(f: Frame, title: string, content: Html): string {
  const nav = f.enrolOnly ? [] : PAGES.filter((p) => p.roles.includes(f.role) && !p.inBar);
  const other: Mode = f.mode === 'test' ? 'live' : 'test';
  return html`${head(title)}
<body class="mode-${f.mode}">
<a class="skip" href="#main">Skip to content</a>
<header class="bar">
  <p class="brand"><a href="/">Verity</a> <span class="region" title="Data region">${f.region.toUpperCase()}</span> <span class="org">${f.orgName}</span></p>
  <form method="post" action="/mode" class="mode-switch">
    ${csrfField(f.csrf)}<input type="hidden" name="mode" value="${other}">
    <span class="mode-badge" data-mode="${f.mode}">${f.mode === 'test' ? 'Test mode' : 'Live mode'}</span>
    <button type="submit" class="link">Switch to ${other}</button>
  </form>
  <form method="post" action="/logout" class="signout">
    ${csrfField(f.csrf)}<a class="who" href="/account"${f.current === 'account' ? raw(' aria-current="page"') : ''}>${f.email} · ${f.role}</a> <button type="submit" class="link">Sign out</button>
  </form>
</header>
${f.mode === 'test' ? html`<p class="test-banner" role="note">You are viewing test data. Nothing here touches live verifications or billing.</p>` : ''}
<div class="shell">
<nav class="nav" aria-label="Console">
  <ul>${nav.map((p) => html`<li><a href="${p.path}"${p.name === f.current ? raw(' aria-current="page"') : ''}>${p.title}</a></li>`)}</ul>
</nav>
<main id="main" tabindex="-1">
<h1>${title}</h1>
${content}
</main>
</div>
</body>
</html>`.text;
}

/** A page outside the signed-in frame (sign-in, errors before sign-in). */
export function bare(title: string, content: Html): string {
  return html`${head(title)}
<body class="bare">
<main id="main" class="card">
<p class="brand">Verity</p>
${content}
</main>
</body>
</html>`.text;
}

/** A notice at the top of a page: what just happened, or what went wrong. */
export function notice(kind: 'success' | 'error' | 'info', text: Renderable): Html {
  return html`<div class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</div>`;
}

/** An empty list that says what to do next. */
export function emptyState(title: string, hint: Renderable): Html {
  return html`<div class="empty"><p class="empty-title">${title}</p><p>${hint}</p></div>`;
}

/**
 * A table with a caption for screen readers; `rows` already rendered as cells. On a phone each row becomes a card of
 * labelled lines: each cell's content is one box (`.cell`) beside its label, however many parts it has (a key's scopes,
 * its Rotate and Revoke).
 */
export function table(caption: string, headers: string[], rows: Html[][]): Html {
  return html`<div class="table-wrap"><table>
<caption class="visually-hidden">${caption}</caption>
<thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${r.map((c, i) => html`<td data-label="${headers[i] ?? ''}"><div class="cell">${c}</div></td>`)}</tr>`)}</tbody>
</table></div>`;
}

/** "Next page" link of a keyset-paged list: the page's own query with `cursor` replaced. */
export function pager(path: string, query: URLSearchParams, nextCursor: string | null | undefined): Html {
  const first = query.has('cursor');
  if (!nextCursor && !first) return html``;
  const next = new URLSearchParams(query);
  if (nextCursor) next.set('cursor', nextCursor);
  const start = new URLSearchParams(query);
  start.delete('cursor');
  return html`<nav class="pager" aria-label="Pages">
${first ? html`<a href="${path}${start.size ? `?${start.toString()}` : ''}">First page</a>` : ''}
${nextCursor ? html`<a href="${path}?${next.toString()}" rel="next">Next page</a>` : ''}
</nav>`;
}

/** A date as people read it, in UTC (the region's records are UTC). */
export function when(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="muted">—</span>`;
  const d = new Date(iso);
  return html`<time datetime="${iso}">${d.toISOString().slice(0, 16).replace('T', ' ')} UTC</time>`;
}

export function badge(text: string, tone: 'ok' | 'warn' | 'bad' | 'neutral' = 'neutral'): Html {
  return html`<span class="badge ${tone}">${text}</span>`;
}
