import { CHECK_TYPES, SUBJECTS, type CheckType, type UsageRow } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import type { Mode } from '@verity/keys';
import { issuesOf, type ConsoleApp, type PageContext, type PageResult } from '../app.js';
import { html, type Html } from '@verity/html';
import { emptyState, notice, table } from '../layout.js';
import { CHECK_LABELS } from './labels.js';

const DAY_MS = 86_400_000;
const MODES: readonly Mode[] = ['test', 'live'];


/** Usage (contract §19): verifications per UTC day and check, test and live apart, from the metering counters. */
export function registerUsage(app: ConsoleApp): void {
  app.get('usage', '/usage', (ctx) => usagePage(ctx));
}

function day(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}

/** The last `n` UTC days, today included. */
function lastDays(n: number): { from: string; to: string } {
  const today = Date.parse(`${day(Date.now())}T00:00:00Z`);
  return { from: day(today - (n - 1) * DAY_MS), to: day(today) };
}

/** A bar as wide as `n` is of `max`, in steps of 5 % (classes of the stylesheet: no inline style under the CSP). */
function bar(n: number, max: number, mode: Mode): Html {
  const step = n <= 0 || max <= 0 ? 0 : Math.max(5, Math.round((n / max) * 20) * 5);
  return html`<span class="usage-bar ${mode}" aria-hidden="true"><span class="w${step}"></span></span>`;
}

async function usagePage(ctx: PageContext): Promise<PageResult> {
  const q = ctx.query;
  const range = q.get('from') || q.get('to') ? { from: (q.get('from') ?? '').slice(0, 10), to: (q.get('to') ?? '').slice(0, 10) } : lastDays(30);
  let got: UsageRow[] | null = null;
  let error: string[] | null = null;
  try {
    got = (await ctx.call(SUBJECTS.sessionsConsoleUsage, { from: range.from, to: range.to })).data;
  } catch (e) {
    if (!(e instanceof DomainError && e.code === 'validation_error')) throw e;
    error = issuesOf(e);
  }
  const presets = [7, 30, 90].map((n) => ({ n, ...lastDays(n) }));
  const form = html`<form method="get" action="/usage" class="filters" aria-label="Days to show">
  <div><label for="from">From</label><input id="from" name="from" type="date" required value="${range.from}"></div>
  <div><label for="to">To</label><input id="to" name="to" type="date" required value="${range.to}"></div>
  <button type="submit" class="secondary">Show</button>
  <span class="hint">${presets.map((p, i) => html`${i > 0 ? ' · ' : ''}<a href="/usage?from=${p.from}&amp;to=${p.to}">Last ${p.n} days</a>`)}</span>
</form>`;
  const intro = html`<p class="muted">Verifications created per day (UTC) and check, from the region's metering: a verification counts once for each check of its workflow. Test and live are counted apart; test mode is counted too, and purging test data does not remove it from here.</p>`;
  if (error || !got) return ctx.render('Usage', html`${intro}${form}${notice('error', html`<ul>${(error ?? []).map((m) => html`<li>${m}</li>`)}</ul>`)}`, 422);
  const rows = got;
  if (rows.length === 0) {
    return ctx.render(
      'Usage',
      html`${intro}${form}${emptyState(`No verifications from ${range.from} to ${range.to}`, html`Verifications created in this period, in test or live mode, are counted here by day and check. Create a test one from <a href="/test-data">Test data</a> or through the API.`)}`,
    );
  }

  // totals per check and mode
  const checks = CHECK_TYPES.filter((c) => rows.some((r) => r.check === c));
  const total = (mode: Mode, check?: CheckType) => rows.filter((r) => r.mode === mode && (!check || r.check === check)).reduce((s, r) => s + r.count, 0);
  const totals = table(
    'Totals per check',
    ['Check', 'Test', 'Live'],
    [
      ...checks.map((c) => [html`${CHECK_LABELS[c] ?? c}`, html`<span class="num">${total('test', c)}</span>`, html`<span class="num">${total('live', c)}</span>`]),
      [html`<strong>All checks</strong>`, html`<strong class="num">${total('test')}</strong>`, html`<strong class="num">${total('live')}</strong>`],
    ],
  );

  // one row per day and mode that has any, newest first
  const days = [...new Set(rows.map((r) => r.day))].sort().reverse();
  const cell = (d: string, mode: Mode, check: CheckType) => rows.find((r) => r.day === d && r.mode === mode && r.check === check)?.count ?? 0;
  const lines = days.flatMap((d) =>
    MODES.map((mode) => ({ d, mode, counts: checks.map((c) => cell(d, mode, c)) }))
      .map((l) => ({ ...l, sum: l.counts.reduce((s, n) => s + n, 0) }))
      .filter((l) => l.sum > 0),
  );
  const max = Math.max(...lines.map((l) => l.sum));
  const perDay = table(
    'Verifications per day and check',
    ['Day', 'Mode', ...checks.map((c) => CHECK_LABELS[c] ?? c), 'All checks', ''],
    lines.map((l, i) => [
      i > 0 && lines[i - 1]!.d === l.d ? html`` : html`<time datetime="${l.d}">${l.d}</time>`,
      html`<span class="badge ${l.mode === 'live' ? 'ok' : 'warn'}">${l.mode}</span>`,
      ...l.counts.map((n) => (n === 0 ? html`<span class="muted num">0</span>` : html`<span class="num">${n}</span>`)),
      html`<strong class="num">${l.sum}</strong>`,
      bar(l.sum, max, l.mode),
    ]),
  );
  return ctx.render(
    'Usage',
    html`${intro}${form}
<h2 id="totals">Totals, ${range.from} to ${range.to}</h2>
<div class="usage-totals">${totals}</div>
<h2 id="per-day">Per day</h2>
<p class="muted">Days without verifications are left out.</p>
<div class="usage-days">${perDay}</div>`,
  );
}
