import { SUBJECTS, type Session } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { issuesOf, type ConsoleApp, type PageContext, type PageResult } from '../app.js';
import { mayOpen } from '../auth/roles.js';
import { html, type Html } from '@verity/html';
import { badge, emptyState, notice, pager, table, when } from '../layout.js';
import { checkLabel, hasScope, REASON_MAX, verificationPage } from './verifications.js';
import { CHECK_LABELS } from './labels.js';
import { applicantCell, filterForm, listFilters, namesOf } from './names.js';
import { registerWatchlistHits } from './watchlist-hits.js';

const PAGE_SIZE = 50;

/**
 * The review queue (contract §19): the sessions of the current mode in `manual_review`, each opening its
 * verification page, where a person approves or declines it with a reason (posted here).
 */
export function registerReview(app: ConsoleApp): void {
  app.get('review', '/review', (ctx) => queuePage(ctx));
  registerWatchlistHits(app);

  app.post('review', '/review/:id/decision', async (ctx) => {
    const id = (ctx.req.params as { id: string }).id;
    const outcome = ctx.form.get('outcome') ?? '';
    const reason = ctx.form.get('reason') ?? '';
    const sendBack = (errors: string[], status: number) => verificationPage(ctx, id, { decision: { errors, reason }, status });
    if (!hasScope(ctx, 'sessions:write')) return sendBack(['Your role cannot decide verifications.'], 403);
    // another organization's or mode's session, or an unknown id: the 404 page, before anything else
    const session = await ctx.call(SUBJECTS.sessionsGet, { id });
    const errors: string[] = [];
    if (outcome !== 'approved' && outcome !== 'declined') errors.push('Choose Approve or Decline.');
    // the console asks for a reason every time; an erased applicant's session takes none (the API refuses one)
    if (!session.erased) {
      if (reason.trim() === '') errors.push('Write the reason for your decision: it is kept with the verification.');
      else if ([...reason].length > REASON_MAX) errors.push(`The reason is at most ${REASON_MAX} characters.`);
    }
    if (errors.length > 0) return sendBack(errors, 422);
    const body = session.erased ? { outcome } : { outcome, reason };
    try {
      await ctx.call(SUBJECTS.sessionsDecision, { id: session.id, body });
    } catch (e) {
      if (e instanceof DomainError && e.code === 'validation_error') return sendBack(issuesOf(e), 422);
      if (e instanceof DomainError && e.code === 'invalid_state_transition') return notWaiting(ctx, session.id, e);
      throw e;
    }
    await ctx.record('console.session.decided', session.id, { outcome });
    return { redirect: `/verifications/${encodeURIComponent(session.id)}?decided=${outcome}` };
  });
}

/** Someone decided (or cancelled) it first: the page as it is now, saying so. */
function notWaiting(ctx: PageContext, id: string, e: DomainError): Promise<PageResult> {
  const now = typeof e.details?.status === 'string' ? e.details.status : null;
  const text = `Nothing was changed: this verification is no longer waiting for review${now ? ` (it is ${now.replace('_', ' ')} now)` : ''}.`;
  return verificationPage(ctx, id, { notice: notice('error', text), status: 409 });
}

function needsALook(s: Session): Html {
  const flagged = s.checks.filter((c) => c.outcome === 'review' || c.outcome === 'fail' || c.outcome === 'error');
  if (flagged.length === 0) return html`<span class="muted">screening rules</span>`;
  return html`<ul class="chips">${flagged.map((c) => html`<li>${checkLabel(c.type)} ${badge(c.outcome ?? '', c.outcome === 'review' ? 'warn' : 'bad')}</li>`)}</ul>`;
}

async function queuePage(ctx: PageContext): Promise<PageResult> {
  const f = await listFilters(ctx, PAGE_SIZE, 'manual_review');
  const page = f.errors.length > 0 ? { data: [], next_cursor: null } : await ctx.call(SUBJECTS.sessionsConsoleList, f.request);
  const names = await namesOf(ctx, page.data);
  const rows: Html[][] = page.data.map((s) => [
    html`<a href="/verifications/${s.id}#decision"><code>${s.id}</code></a>`,
    applicantCell(s, names, false),
    needsALook(s),
    when(s.updated_at),
    html`<a class="button small" href="/verifications/${s.id}#decision" aria-label="Review ${s.id}">Review</a>`,
  ]);
  const hint =
    ctx.mode === 'test' && mayOpen(ctx.viewer.user.role, 'test-data')
      ? html`Verifications land here when a check needs review or a screening rule sends them. To try it, create one with the Expected outcome <strong>Needs review</strong> on the <a href="/test-data">Test data</a> page.`
      : html`Verifications land here when a check needs review or a screening rule sends them. You will see them here as they arrive.`;
  const cursor = ctx.query.get('cursor');
  return ctx.render(
    'Review queue',
    html`<p class="muted">Verifications of <strong>${ctx.mode}</strong> mode waiting for a person's decision, newest first. Open one to see its checks, screening and evidence, then approve or decline it with a reason.</p>
${filterForm('/review', 'Filter the review queue', f, null, CHECK_LABELS)}
${f.errors.map((e) => notice('error', e))}
${f.truncated ? notice('info', 'More applicants have this name than a list can filter by: the newest 200 of them are searched. Type more of the name to narrow it.') : ''}
${names === null && page.data.length > 0 ? notice('info', 'Applicant names could not be read just now: the queue shows their ids.') : ''}
${
  page.data.length > 0
    ? table('Verifications waiting for review', ['Verification', 'Applicant', 'Needs a look', 'In review since', ''], rows)
    : f.active
      ? emptyState('Nothing waiting matches these filters', html`Try another name, check or period, or <a href="/review">clear the filters</a>.`)
      : cursor
        ? emptyState('No more verifications waiting', html`<a href="/review">Back to the first page</a>.`)
        : emptyState('Nothing to review', hint)
}
${pager('/review', ctx.query, page.next_cursor)}`,
    f.errors.length > 0 ? 422 : 200,
  );
}
