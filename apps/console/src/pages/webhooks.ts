import { SESSION_EVENT_TYPES, SUBJECTS, type ListQuery, type WebhookAttempt, type WebhookSubscription, type WebhookSubscriptionWithSecret } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { isId } from '@verity/keys';
import { issuesOf, type ConsoleApp, type PageContext, type PageResult } from '../app.js';
import { html, type Html } from '@verity/html';
import { badge, csrfField, emptyState, notice, pager, table, when } from '../layout.js';

const EVENT_HINTS: Record<string, string> = {
  'kyc.session.completed': 'finished with a verdict (approved or declined)',
  'kyc.session.cancelled': 'an operator cancelled it',
  'kyc.session.manual_review_requested': 'parked for human review',
  'kyc.session.expired': 'reserved: accepted, not sent today',
  'kyc.session.skipped_by_applicant': 'reserved: accepted, not sent today',
  'kyc.session.watchlist_hit': 'an approved live session matched a reloaded watchlist and is back in review',
};
const EVENT_LABELS: Record<string, string> = {
  'kyc.session.completed': 'Completed',
  'kyc.session.cancelled': 'Cancelled',
  'kyc.session.manual_review_requested': 'Manual review requested',
  'kyc.session.expired': 'Expired',
  'kyc.session.skipped_by_applicant': 'Skipped by applicant',
  'kyc.session.watchlist_hit': 'Watchlist hit',
};
const DEFAULT_EVENTS = ['kyc.session.completed', 'kyc.session.cancelled', 'kyc.session.manual_review_requested'];

const ERROR_LABELS: Record<NonNullable<WebhookAttempt['error_code']>, string> = {
  timeout: 'timed out',
  connection_error: 'connection failed',
  dns_error: 'DNS failed',
  tls_error: 'TLS failed',
  http_status: 'HTTP',
  blocked_destination: 'refused address',
};

/** Rows of the delivery log per page. */
const LOG_PAGE = 25;
/** "Replay failed": how many attempts of the log are read back, and how many deliveries are replayed, at most per click. */
const SCAN_PAGES = 10;
const REPLAY_MAX = 100;
/** A subscription list is read whole (the page's check before every call that names one). */
const SUBSCRIPTION_PAGES = 20;

/**
 * Webhooks (contract §19): the organization's endpoints of the current mode; register one (https only, the secret
 * shown once), rotate its secret (shown once), disable it, replay deliveries; the delivery log with filters.
 */
export function registerWebhooks(app: ConsoleApp): void {
  app.get('webhooks', '/webhooks', (ctx) => endpointsPage(ctx));
  app.get('webhooks', '/webhooks/deliveries', (ctx) => deliveriesPage(ctx));

  app.post('webhooks', '/webhooks', async (ctx) => {
    const url = (ctx.form.get('url') ?? '').trim();
    const events = ctx.form.getAll('event_types');
    if (events.length === 0) return endpointsPage(ctx, { error: ['Choose at least one event type.'], form: { url, events }, status: 422 });
    let created: WebhookSubscriptionWithSecret;
    try {
      created = await ctx.call(SUBJECTS.webhooksConsoleSubscriptionCreate, { url, event_types: events });
    } catch (e) {
      if (e instanceof DomainError && e.code === 'validation_error') return endpointsPage(ctx, { error: issuesOf(e), form: { url, events }, status: 422 });
      throw e;
    }
    await ctx.record('console.webhook.created', created.id, { host: hostOf(created.url), event_types: created.event_types.join(' ') });
    return endpointsPage(ctx, { shown: { sub: created, title: 'Endpoint registered: copy its signing secret now' } });
  });

  app.post('webhooks', '/webhooks/:id/rotate', async (ctx) => {
    const sub = await ownSubscription(ctx, (ctx.req.params as { id: string }).id, { active: true });
    const rotated = await ctx.call(SUBJECTS.webhooksConsoleSubscriptionRotateSecret, { subscription_id: sub.id });
    await ctx.record('console.webhook.secret_rotated', sub.id, { host: hostOf(sub.url) });
    return endpointsPage(ctx, { shown: { sub: rotated, title: 'Secret rotated: copy the new one now', previousUntil: rotated.previous_secret_expires_at } });
  });

  // disabling cannot be undone: a page that says so, then the form that does it
  app.get('webhooks', '/webhooks/:id/disable', async (ctx) => {
    const sub = await ownSubscription(ctx, (ctx.req.params as { id: string }).id, { active: true });
    return ctx.render(
      'Disable endpoint',
      html`<section class="panel">
<p>Disable <strong>${sub.url}</strong>?</p>
<p>Deliveries to it stop at once, including retries already scheduled, and it cannot be enabled again (register the URL anew if you need it later).</p>
<form method="post" action="/webhooks/${sub.id}/disable" class="inline">${csrfField(ctx.csrf)}<button type="submit" class="danger">Disable endpoint</button></form>
<a href="/webhooks">Cancel</a>
</section>`,
    );
  });

  app.post('webhooks', '/webhooks/:id/disable', async (ctx) => {
    const sub = await ownSubscription(ctx, (ctx.req.params as { id: string }).id, { active: true });
    await ctx.call(SUBJECTS.webhooksConsoleSubscriptionDisable, { subscription_id: sub.id });
    await ctx.record('console.webhook.disabled', sub.id, { host: hostOf(sub.url) });
    return { redirect: `/webhooks?disabled=${encodeURIComponent(sub.id)}` };
  });

  // one delivery again: an event to one of this organization's endpoints (a row of the delivery log)
  app.post('webhooks', '/webhooks/replay', async (ctx) => {
    const sub = await ownSubscription(ctx, ctx.form.get('subscription_id') ?? '', { active: true });
    const eventId = ctx.form.get('event_id') ?? '';
    if (!isId('event', eventId)) throw DomainError.notFound('event_id');
    const res = await ctx.call(SUBJECTS.webhooksConsoleReplay, { event_id: eventId, subscription_id: sub.id });
    await ctx.record('console.webhook.replayed', sub.id, { host: hostOf(sub.url), event_id: eventId, replayed: res.replayed });
    const back = new URLSearchParams({ subscription_id: sub.id, replayed: String(res.replayed), event: eventId });
    return { redirect: `/webhooks/deliveries?${back.toString()}` };
  });

  // every delivery of an endpoint whose newest attempt since a time failed
  app.post('webhooks', '/webhooks/replay-failed', async (ctx) => {
    const sub = await ownSubscription(ctx, ctx.form.get('subscription_id') ?? '', { active: true });
    const sinceText = ctx.form.get('since') ?? '';
    const since = utcInstant(sinceText);
    if (!since) return endpointsPage(ctx, { error: ['Give the time to replay from as a date and time (UTC).'], status: 422 });
    const { eventIds, more } = await failedSince(ctx, sub.id, since);
    let replayed = 0;
    try {
      for (const event_id of eventIds) {
        replayed += (await ctx.call(SUBJECTS.webhooksConsoleReplay, { event_id, subscription_id: sub.id })).replayed;
      }
    } finally {
      // what was queued is logged even when a later replay of the batch failed
      await ctx.record('console.webhook.replayed', sub.id, { host: hostOf(sub.url), since: since.toISOString(), failed_only: true, replayed });
    }
    const back = new URLSearchParams({ replayed: String(replayed), sub: sub.id, since: since.toISOString() });
    if (more) back.set('more', '1');
    return { redirect: `/webhooks?${back.toString()}` };
  });
}

/** The URL's host (what the activity log keeps of an endpoint: never its path or query, which may carry a token). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** A URL that may wrap after its host and each `/` of its path (a long one then does not widen its table column). */
function breakable(url: string): Html {
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/]*\/?/i.exec(url)?.[0] ?? '';
  const path = url.slice(origin.length);
  return html`${origin}<wbr>${path.split(/(?<=\/)/).map((part) => html`${part}<wbr>`)}`;
}

/** A `datetime-local` value (`YYYY-MM-DDTHH:MM[:SS]`), read as UTC; null when it is not one. */
function utcInstant(v: string): Date | null {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?$/.exec(v.trim());
  const d = m ? new Date(`${m[1]}T${m[2]}${m[3] ?? ':00'}Z`) : null;
  return d && !Number.isNaN(d.getTime()) ? d : null;
}

/** The organization's subscriptions of the current mode, newest first. */
async function subscriptionsOf(ctx: PageContext): Promise<WebhookSubscription[]> {
  const all: WebhookSubscription[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < SUBSCRIPTION_PAGES; i++) {
    const page: { data: WebhookSubscription[]; next_cursor: string | null } = await ctx.call(SUBJECTS.webhooksConsoleSubscriptionList, {
      limit: '100',
      ...(cursor ? { cursor } : {}),
    });
    all.push(...page.data);
    cursor = page.next_cursor;
    if (!cursor) break;
  }
  return all;
}

/**
 * The subscription named by the request, if it is one of this organization's of the current mode (else 404), and
 * whether it is active: webhook-delivery checks the organization and mode again, from the signed principal.
 */
async function ownSubscription(ctx: PageContext, id: string, opts: { active?: boolean } = {}): Promise<WebhookSubscription> {
  if (!isId('webhookSubscription', id)) throw DomainError.notFound('subscription_id');
  const sub = (await subscriptionsOf(ctx)).find((s) => s.id === id && s.org_id === ctx.orgId && s.mode === ctx.mode);
  if (!sub) throw DomainError.notFound('subscription_id');
  if (opts.active && sub.status !== 'active') throw new DomainError('invalid_state_transition', { message: 'That endpoint is disabled: nothing can be sent to it any more.' });
  return sub;
}

/**
 * The events of the endpoint's deliveries whose newest attempt since `since` failed, read back from the delivery
 * log (principal-scoped: this organization and mode only). The replay subject's own `since` would send every
 * delivery again, the successful ones too; this sends the failed ones only, each by its event.
 */
async function failedSince(ctx: PageContext, subscriptionId: string, since: Date): Promise<{ eventIds: string[]; more: boolean }> {
  const newest = new Map<string, WebhookAttempt>();
  let cursor: string | null = null;
  let more = false;
  scan: for (let i = 0; i < SCAN_PAGES; i++) {
    const page: { data: WebhookAttempt[]; next_cursor: string | null } = await ctx.call(SUBJECTS.webhookAttemptsList, { subscription_id: subscriptionId, limit: '100', ...(cursor ? { cursor } : {}) });
    for (const a of page.data) {
      if (Date.parse(a.created_at) < since.getTime()) break scan;
      if (!newest.has(a.delivery_id)) newest.set(a.delivery_id, a);
    }
    cursor = page.next_cursor;
    if (!cursor) break;
    if (i === SCAN_PAGES - 1) more = true;
  }
  const failed = [...newest.values()].filter((a) => a.status === 'failed').map((a) => a.event_id);
  return { eventIds: failed.slice(0, REPLAY_MAX), more: more || failed.length > REPLAY_MAX };
}

function tabs(current: 'endpoints' | 'deliveries'): Html {
  const tab = (name: typeof current, href: string, label: string) => html`<a href="${href}"${name === current ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="tabs" aria-label="Webhooks">${tab('endpoints', '/webhooks', 'Endpoints')}${tab('deliveries', '/webhooks/deliveries', 'Delivery log')}</nav>`;
}

interface EndpointsOpts {
  shown?: { sub: WebhookSubscriptionWithSecret; title: string; previousUntil?: string };
  error?: string[];
  form?: { url: string; events: string[] };
  status?: number;
}

async function endpointsPage(ctx: PageContext, opts: EndpointsOpts = {}): Promise<PageResult> {
  const subs = await subscriptionsOf(ctx);
  const active = subs.filter((s) => s.status === 'active');
  const q = ctx.query;
  const disabled = q.get('disabled');
  const replayed = q.get('replayed');
  const replayedTo = subs.find((s) => s.id === q.get('sub'));
  const events = opts.form?.events ?? DEFAULT_EVENTS;
  const rows: Html[][] = subs.map((s) => [
    html`<div><span class="wh-url">${breakable(s.url)}</span><br><code class="id muted">${s.id}</code></div>`,
    html`<div>${s.event_types.map((t) => html`<code>${t}</code><br>`)}</div>`,
    s.status === 'active' ? badge('active', 'ok') : badge('disabled', 'neutral'),
    when(s.created_at),
    s.status === 'active'
      ? html`<div class="row-actions"><form method="post" action="/webhooks/${s.id}/rotate" class="inline">${csrfField(ctx.csrf)}<button type="submit" class="secondary" aria-label="Rotate secret of ${s.url}">Rotate secret</button></form><a class="button secondary" href="/webhooks/${s.id}/disable" aria-label="Disable ${s.url}">Disable</a></div>`
      : html``,
  ]);
  const defaultSince = new Date(Date.now() - 86_400_000).toISOString().slice(0, 16);
  return ctx.render(
    'Webhooks',
    html`${tabs('endpoints')}
${opts.shown ? shownOnce(opts.shown.sub, opts.shown.title, opts.shown.previousUntil) : ''}
${disabled ? notice('success', html`Endpoint <code>${disabled}</code> was disabled. Nothing more is sent to it, retries included.`) : ''}
${replayed !== null && replayedTo ? replayNotice(Number(replayed), replayedTo, q.get('since'), q.get('more') === '1') : ''}
${opts.error ? notice('error', html`<ul>${opts.error.map((m) => html`<li>${m}</li>`)}</ul>`) : ''}
<p class="muted">Endpoints of <strong>${ctx.mode}</strong> mode in the ${ctx.deps.cfg.REGION.toUpperCase()} region: each receives the ${ctx.mode} events it subscribes to, signed with its secret (<a href="https://www.standardwebhooks.com/" rel="noreferrer">Standard Webhooks</a>).</p>
${subs.length === 0 ? emptyState(`No ${ctx.mode} endpoints yet`, 'Register an HTTPS endpoint below to be told when a verification finishes.') : table('Webhook endpoints', ['Endpoint', 'Events', 'Status', 'Created', ''], rows)}
<h2 id="new-endpoint">Register a ${ctx.mode} endpoint</h2>
<form method="post" action="/webhooks" class="panel" aria-labelledby="new-endpoint">
  ${csrfField(ctx.csrf)}
  <label for="url">HTTPS URL <span class="hint">your receiver, e.g. https://hooks.example.com/verity</span></label>
  <input id="url" name="url" type="url" required maxlength="2048" placeholder="https://" value="${opts.form?.url ?? ''}">
  <fieldset class="event-types">
    <legend>Events</legend>
    ${SESSION_EVENT_TYPES.map((t) => html`<label><input type="checkbox" name="event_types" value="${t}"${events.includes(t) ? html` checked` : ''}> <span><code>${t}</code> <span class="hint">${EVENT_HINTS[t] ?? ''}</span></span></label>`)}
  </fieldset>
  <button type="submit">Register endpoint</button>
</form>
<h2 id="replay-failed">Replay failed deliveries</h2>
${
  active.length === 0
    ? html`<p class="muted">${subs.length === 0 ? 'Once an endpoint is registered, deliveries it failed to take can be sent again from here.' : 'Only an active endpoint can be sent deliveries again: register one above.'}</p>`
    : html`<form method="post" action="/webhooks/replay-failed" class="panel" aria-labelledby="replay-failed">
  ${csrfField(ctx.csrf)}
  <p class="muted">Sends again, right away and with the same <code>webhook-id</code>, every delivery to the endpoint whose last attempt since that time failed. To send one delivery again, use its row in the <a href="/webhooks/deliveries">delivery log</a>.</p>
  <label for="replay-sub">Endpoint</label>
  <select id="replay-sub" name="subscription_id">${active.map((s) => html`<option value="${s.id}">${s.url}</option>`)}</select>
  <label for="since">Failed since <span class="hint">UTC</span></label>
  <input id="since" name="since" type="datetime-local" required value="${defaultSince}">
  <button type="submit">Replay failed deliveries</button>
</form>`
}`,
    opts.status,
  );
}

function replayNotice(n: number, sub: WebhookSubscription, since: string | null, more: boolean): Html {
  const from = since ? html` since ${when(since)}` : '';
  if (n === 0) return notice('info', html`No failed deliveries to <strong>${hostOf(sub.url)}</strong>${from}: nothing was sent again.`);
  return notice(
    'success',
    html`${n} failed ${n === 1 ? 'delivery' : 'deliveries'} to <strong>${hostOf(sub.url)}</strong>${from} ${n === 1 ? 'is' : 'are'} being sent again.${more ? ' There may be more: replay again to send the next ones.' : ''} Follow them in the <a href="/webhooks/deliveries?subscription_id=${sub.id}">delivery log</a>.`,
  );
}

function shownOnce(sub: WebhookSubscriptionWithSecret, title: string, previousUntil?: string): Html {
  return html`<section class="panel" aria-labelledby="shown-title">
<h2 id="shown-title">${title}</h2>
<p>This is the only time the secret is shown. Give it to your receiver to verify the <code>webhook-signature</code> header; the region keeps it encrypted and never shows it again.</p>
<code class="secret" data-testid="webhook-secret">${sub.secret}</code>
<p class="muted">Endpoint <code>${sub.id}</code> · ${sub.url} · ${sub.mode}</p>
${previousUntil ? html`<p>Until ${when(previousUntil)} every delivery carries two signatures, one with this secret and one with the previous secret, so you can deploy the new one at any time before then. After that only this secret signs.</p>` : ''}
</section>`;
}

/** The delivery log (GET /v1/webhook-events as the API serves it): one row per attempt, newest first. */
async function deliveriesPage(ctx: PageContext): Promise<PageResult> {
  const q = ctx.query;
  const subs = await subscriptionsOf(ctx);
  const byId = new Map(subs.map((s) => [s.id, s]));
  const filters: Record<string, string> = {};
  for (const name of ['session_id', 'subscription_id'] as const) {
    const v = (q.get(name) ?? '').trim().slice(0, 100);
    if (v) filters[name] = v;
  }
  const cursor = q.get('cursor');
  const listQuery: ListQuery = { ...filters, limit: String(LOG_PAGE), ...(cursor ? { cursor } : {}) };
  let attempts: WebhookAttempt[] = [];
  let next: string | null = null;
  let error: string[] | null = null;
  try {
    const page = await ctx.call(SUBJECTS.webhookAttemptsList, listQuery);
    attempts = page.data;
    next = page.next_cursor;
  } catch (e) {
    if (!(e instanceof DomainError && e.code === 'validation_error')) throw e;
    error = issuesOf(e);
  }
  const replayed = q.get('replayed');
  const event = q.get('event');
  const rows: Html[][] = attempts.map((a) => {
    const sub = byId.get(a.subscription_id);
    return [
      stamp(a.created_at),
      html`<div><span title="${a.event_type}">${EVENT_LABELS[a.event_type] ?? a.event_type}</span><br><code class="id muted">${a.event_id}</code></div>`,
      a.session_id ? html`<a href="/verifications/${a.session_id}"><code class="id">${a.session_id}</code></a>` : html`<span class="muted">—</span>`,
      sub ? html`<div><span title="${sub.url}">${hostOf(sub.url)}</span>${sub.status === 'disabled' ? html`<br><span class="hint">disabled</span>` : ''}</div>` : html`<code class="id">${a.subscription_id}</code>`,
      result(a),
      sub?.status === 'active'
        ? html`<form method="post" action="/webhooks/replay" class="inline">${csrfField(ctx.csrf)}<input type="hidden" name="subscription_id" value="${a.subscription_id}"><input type="hidden" name="event_id" value="${a.event_id}"><button type="submit" class="secondary" aria-label="Replay ${a.event_id} to ${hostOf(sub.url)}">Replay</button></form>`
        : html``,
    ];
  });
  const pageQuery = new URLSearchParams(filters);
  if (cursor) pageQuery.set('cursor', cursor);
  const filtered = Object.keys(filters).length > 0;
  return ctx.render(
    'Webhooks',
    html`${tabs('deliveries')}
${replayed !== null && event ? notice(Number(replayed) > 0 ? 'success' : 'info', Number(replayed) > 0 ? html`The delivery of <code>${event}</code> is being sent again, with the same <code>webhook-id</code>; its new attempts appear here as they end.` : html`Nothing was sent again: <code>${event}</code> was not delivered to that endpoint.`) : ''}
${error ? notice('error', html`<ul>${error.map((m) => html`<li>${m}</li>`)}</ul>`) : ''}
<p class="muted">Every attempt to deliver a <strong>${ctx.mode}</strong> event, newest first, as <code>GET /v1/webhook-events</code> lists them. Never the payload or the secret.</p>
<form method="get" action="/webhooks/deliveries" class="filters delivery-filters" role="search" aria-label="Filter the delivery log">
  <div><label for="f-session">Verification</label><input id="f-session" name="session_id" type="text" placeholder="ses_…" value="${filters.session_id ?? ''}"></div>
  <div><label for="f-sub">Endpoint</label><select id="f-sub" name="subscription_id"><option value="">All endpoints</option>${subs.map((s) => html`<option value="${s.id}"${filters.subscription_id === s.id ? html` selected` : ''}>${s.url}${s.status === 'disabled' ? ' (disabled)' : ''}</option>`)}</select></div>
  <button type="submit" class="secondary">Filter</button>
  ${filtered ? html`<a href="/webhooks/deliveries">Clear</a>` : ''}
</form>
${
  attempts.length === 0
    ? filtered || cursor
      ? emptyState('No attempts match', 'Try another verification or endpoint, or clear the filters.')
      : emptyState(`No ${ctx.mode} deliveries yet`, subs.length === 0 ? html`<a href="/webhooks">Register an endpoint</a>; once a verification it subscribes to finishes, each attempt to deliver it shows here.` : 'When a verification an endpoint subscribes to finishes, each attempt to deliver it shows here.')
    : html`<div class="deliveries">${table('Webhook delivery attempts', ['When', 'Event', 'Verification', 'Endpoint', 'Result', ''], rows)}</div>`
}
${pager('/webhooks/deliveries', pageQuery, next)}`,
  );
}

/** A time in two short lines (date, then time of day): the log's first column stays narrow. */
function stamp(iso: string): Html {
  const t = new Date(iso).toISOString();
  return html`<time datetime="${iso}">${t.slice(0, 10)}<br>${t.slice(11, 16)} UTC</time>`;
}

/** The attempt's outcome, its number and latency, and the next retry when one is due. */
function result(a: WebhookAttempt): Html {
  const facts = html`<br><span class="hint">attempt ${a.attempt} · ${a.latency_ms} ms</span>`;
  if (a.status === 'succeeded') return html`<div>${badge(a.http_status ? `delivered · ${a.http_status}` : 'delivered', 'ok')}${facts}</div>`;
  const why = a.error_code === 'http_status' && a.http_status ? `HTTP ${a.http_status}` : a.error_code ? ERROR_LABELS[a.error_code] : 'failed';
  const retry = a.next_attempt_at ? html`<br><span class="hint">retry ${when(a.next_attempt_at)}</span>` : '';
  return html`<div>${badge(`failed · ${why}`, 'bad')}${facts}${retry}</div>`;
}
