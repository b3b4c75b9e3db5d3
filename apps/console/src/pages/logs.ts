import { SUBJECTS, type ActivityEntry, type ConsoleActivityEntry, type EmailLogEntry } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { issuesOf, type ConsoleApp, type PageContext, type PageResult } from '../app.js';
import { html, type Html } from '@verity/html';
import { badge, emptyState, notice, pager, table, when } from '../layout.js';

const EMAILS = 50;
const ACTIVITY_PAGE = 25;
const EVIDENCE = 50;

const EMAIL_STATUS: Record<EmailLogEntry['status'], { label: string; tone: 'ok' | 'warn' | 'bad' | 'neutral' }> = {
  suppressed: { label: 'suppressed (test mode)', tone: 'neutral' },
  pending: { label: 'pending', tone: 'warn' },
  sent: { label: 'sent', tone: 'ok' },
  failed: { label: 'failed', tone: 'bad' },
  skipped: { label: 'skipped', tone: 'neutral' },
};

const EVIDENCE_ACTIONS: Record<string, string> = {
  'kyc.idv.evidence_exported': 'Evidence image served',
  'kyc.idv.evidence_export_failed': 'Evidence image not available',
  'kyc.idv.document_scanned': 'ID document scanned',
};

/** What a console change is, in words; an action the console does not know yet is shown as written. */
const CONSOLE_ACTIONS: Record<string, string> = {
  'console.key.created': 'API key created',
  'console.key.rotated': 'API key rotated',
  'console.key.revoked': 'API key revoked',
  'console.webhook.created': 'Webhook endpoint registered',
  'console.webhook.secret_rotated': 'Webhook secret rotated',
  'console.webhook.disabled': 'Webhook endpoint disabled',
  'console.webhook.replayed': 'Webhook deliveries replayed',
  'console.session.decided': 'Verification decided',
  'console.watchlist_hit.cleared': 'Watchlist hit cleared',
  'console.watchlist_hit.confirmed': 'Watchlist hit confirmed',
  'console.user.created': 'Person added',
};

/**
 * Logs (contract §19): the emails of the current mode (test mode ones are suppressed and appear only here), the
 * console's activity log (every change, with who made it) and the evidence access entries.
 */
export function registerLogs(app: ConsoleApp): void {
  app.get('logs', '/logs', (ctx) => logsPage(ctx));
}

/** A failed read of one section is shown in that section; the others still show. */
async function section<T>(read: () => Promise<T>): Promise<{ ok: T } | { error: string[] }> {
  try {
    return { ok: await read() };
  } catch (e) {
    if (e instanceof DomainError && e.code === 'validation_error') return { error: issuesOf(e) };
    throw e;
  }
}

async function logsPage(ctx: PageContext): Promise<PageResult> {
  const before = ctx.query.get('cursor') ?? undefined;
  const [emails, activity, evidence] = await Promise.all([
    section(() => ctx.call(SUBJECTS.sessionsConsoleEmailLog, { limit: EMAILS })),
    section(() => ctx.call(SUBJECTS.accountsConsoleActivityList, { limit: ACTIVITY_PAGE, ...(before ? { before } : {}) })),
    section(() => ctx.call(SUBJECTS.evidenceConsoleActivityList, { limit: EVIDENCE })),
  ]);
  const actData = 'ok' in activity ? activity.ok.data : [];
  const nextBefore = actData.length === ACTIVITY_PAGE ? actData[actData.length - 1]!.id : null;
  return ctx.render(
    'Logs',
    html`<nav class="tabs" aria-label="On this page"><a href="#emails">Emails</a><a href="#activity">Console activity</a><a href="#evidence">Evidence access</a></nav>

<h2 id="emails">Emails <span class="hint">${ctx.mode} mode, newest ${EMAILS}</span></h2>
${
  ctx.mode === 'test'
    ? html`<p class="muted">Test mode emails are never delivered: they are <strong>suppressed</strong> and listed here so you can see what would have been sent. Recipients are masked; bodies are not kept.</p>`
    : html`<p class="muted">Invitations sent to applicants of live verifications. Recipients are masked; bodies are not kept.</p>`
}
${'error' in emails ? errorList(emails.error) : emailTable(emails.ok.data, ctx)}

<h2 id="activity">Console activity <span class="hint">both modes</span></h2>
<p class="muted">Every change made in this console: keys, webhooks, decisions, test data and people, with who made it. Never a secret.</p>
${'error' in activity ? errorList(activity.error) : activityTable(activity.ok.data, !!before)}
${'error' in activity ? '' : pager('/logs', before ? new URLSearchParams({ cursor: before }) : new URLSearchParams(), nextBefore)}

<h2 id="evidence">Evidence access <span class="hint">both modes, newest ${EVIDENCE}</span></h2>
<p class="muted">Each time evidence images of a verification were fetched (through the API or this console) and each ID document scanned, with the key that asked.</p>
${'error' in evidence ? errorList(evidence.error) : evidenceTable(evidence.ok.data)}`,
  );
}

function errorList(messages: string[]): Html {
  return notice('error', html`<ul>${messages.map((m) => html`<li>${m}</li>`)}</ul>`);
}

function modeBadge(mode: string | null): Html {
  return mode ? badge(mode, mode === 'live' ? 'ok' : 'warn') : html``;
}

function sessionLink(id: string | null): Html {
  return id ? html`<a href="/verifications/${id}"><code class="id">${id}</code></a>` : html`<span class="muted">—</span>`;
}

function emailTable(rows: EmailLogEntry[], ctx: PageContext): Html {
  if (rows.length === 0) {
    return emptyState(
      `No ${ctx.mode} emails yet`,
      ctx.mode === 'test'
        ? 'When a test verification invites its applicant by email, the message that would have gone out appears here (it is never sent).'
        : 'When a live verification invites its applicant by email, the message appears here with its delivery status.',
    );
  }
  return table(
    'Emails',
    ['Created', 'Email', 'To', 'Status', 'Verification'],
    rows.map((e) => {
      const s = EMAIL_STATUS[e.status] ?? { label: e.status, tone: 'neutral' as const };
      return [
        when(e.created_at),
        html`<div>${e.subject}<br><code class="id muted">${e.template}</code></div>`,
        html`<span class="mono">${e.recipient}</span>`,
        html`<div>${badge(s.label, s.tone)}${e.sent_at ? html`<br><span class="hint">sent ${when(e.sent_at)}</span>` : ''}</div>`,
        sessionLink(e.session_id),
      ];
    }),
  );
}

/** The changed object's id, then the entry's details (identifiers and settings, never a secret). */
function details(target: string | null, d: ConsoleActivityEntry['details']): Html {
  const entries = Object.entries(d ?? {}).filter(([, v]) => v !== null && v !== '');
  if (!target && entries.length === 0) return html`<span class="muted">—</span>`;
  return html`<div class="details">${target ? html`<code class="id">${target}</code>` : ''}<ul class="kv">${entries.map(([k, v]) => html`<li><span class="muted">${k.replace(/_/g, ' ')}</span> <code>${String(v)}</code></li>`)}</ul></div>`;
}

function activityTable(rows: ConsoleActivityEntry[], paged: boolean): Html {
  if (rows.length === 0) {
    return paged
      ? emptyState('No older changes', html`<a href="/logs">Back to the newest</a>`)
      : emptyState('No changes yet', 'When someone of your team creates or rotates a key, registers a webhook, decides a verification or makes test data, it is recorded here with their email.');
  }
  return table(
    'Console activity',
    ['When', 'Who', 'What', 'Details'],
    rows.map((a) => [
      when(a.created_at),
      html`<span class="email">${a.actor_email}</span>`,
      html`<div><span title="${a.action}">${CONSOLE_ACTIONS[a.action] ?? a.action}</span> ${modeBadge(a.mode)}</div>`,
      details(a.target_id, a.details),
    ]),
  );
}

function evidenceTable(rows: ActivityEntry[]): Html {
  if (rows.length === 0) {
    return emptyState('No evidence accessed yet', 'When someone fetches the images of a verification (GET /v1/sessions/{id}/idv-image/…, or its page here) or scans an ID document, it is recorded here with the key that asked.');
  }
  return table(
    'Evidence access',
    ['When', 'What', 'Verification', 'Image', 'Outcome', 'Key'],
    rows.map((a) => [
      when(a.created_at),
      html`<div><span title="${a.action}">${EVIDENCE_ACTIONS[a.action] ?? a.action}</span> ${modeBadge(a.mode)}</div>`,
      sessionLink(a.session_id),
      a.artifact ? html`${a.artifact}` : html`<span class="muted">—</span>`,
      html`<code>${a.outcome}</code>`,
      a.key_id ? html`<code class="id">${a.key_id}</code>` : html`<span class="muted">—</span>`,
    ]),
  );
}
