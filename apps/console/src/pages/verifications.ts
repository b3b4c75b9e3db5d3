import { SESSION_STATUSES, SUBJECTS, type Applicant, type CheckOutcome, type CheckType, type IdvHolder, type Session, type SessionCheck, type SessionScreening, type SessionStatus, type StoredArtifact, type TimelineEntry } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import type { Scope } from '@verity/keys';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import { issuesOf, PageContext, type ConsoleApp, type PageResult } from '../app.js';
import { mayOpen, scopesOf } from '../auth/roles.js';
import { html, raw, type Html } from '@verity/html';
import { badge, csrfField, emptyState, notice, pager, table, when } from '../layout.js';
import { compareDates, compareNames } from '@verity/names';
import { CHECK_LABELS } from './labels.js';
import { reasonWords } from './reasons.js';
import { hitTally, screenedPerson, watchlistPanel, type HitForm } from './watchlist-hits.js';
import { applicantCell, filterForm, listFilters, namesOf } from './names.js';

/** A note's limit in characters, as the API's POST /v1/sessions/{id}/notes takes it (libs/domain/api-schema NOTE_MAX). */
export const NOTE_MAX = 2000;
/** A decision reason's limit in characters (libs/domain/api-schema REASON_MAX). */
export const REASON_MAX = 500;
const PAGE_SIZE = 20;

const STATUS_LABELS: Record<SessionStatus, string> = {
  pending: 'Pending',
  in_progress: 'In progress',
  completed: 'Completed',
  manual_review: 'Manual review',
  cancelled: 'Cancelled',
  expired: 'Expired',
  skipped: 'Skipped',
  errored: 'Errored',
};


const ARTIFACT_LABELS: Record<'portrait' | 'front' | 'back' | 'selfie', string> = {
  portrait: 'Portrait from the document',
  front: 'Front of the document',
  back: 'Back of the document',
  selfie: 'Selfie',
};
/** What the console shows a reviewer: the API's images and, to reviewers only, the back of the document (docs/evidence.md). */
const SERVED: readonly string[] = ['portrait', 'front', 'back', 'selfie'];

const EVENT_LABELS: Record<string, string> = {
  'kyc.session.completed': 'Completed',
  'kyc.session.cancelled': 'Cancelled',
  'kyc.session.manual_review_requested': 'Sent to manual review',
  'kyc.session.expired': 'Expired',
  'kyc.session.skipped_by_applicant': 'Skipped by the applicant',
  'kyc.session.watchlist_hit': 'Watchlist hit on a reloaded list: back to review',
};

/** Whether the signed-in person's role carries a scope (the services do not check scopes: the gateway does for keys). */
export function hasScope(ctx: PageContext, scope: Scope): boolean {
  return scopesOf(ctx.viewer.user.role).includes(scope);
}

export function statusBadge(s: Pick<Session, 'status' | 'outcome'>): Html {
  const tone = s.status === 'manual_review' ? 'warn' : s.status === 'errored' ? 'bad' : s.status === 'completed' ? 'ok' : 'neutral';
  return badge(STATUS_LABELS[s.status] ?? s.status, tone);
}

export function outcomeBadge(outcome: Session['outcome']): Html {
  if (outcome === 'approved') return badge('Approved', 'ok');
  if (outcome === 'declined') return badge('Declined', 'bad');
  return html`<span class="muted">—</span>`;
}

function checkTone(o: CheckOutcome | null): 'ok' | 'warn' | 'bad' | 'neutral' {
  return o === 'pass' ? 'ok' : o === 'review' ? 'warn' : o === 'fail' || o === 'error' ? 'bad' : 'neutral';
}

/** The checks of a session as small labelled chips: "Document pass". */
export function checkChips(checks: Session['checks']): Html {
  if (checks.length === 0) return html`<span class="muted">No checks</span>`;
  return html`<ul class="chips">${checks.map((c) => html`<li>${CHECK_LABELS[c.type] ?? c.type} ${badge(c.outcome ?? 'not run', checkTone(c.outcome))}</li>`)}</ul>`;
}

export function checkLabel(t: CheckType): string {
  return CHECK_LABELS[t] ?? t;
}

/** Verifications (contract §19): the sessions of the current mode, filtered and paged; one session in full; its images. */
export function registerVerifications(app: ConsoleApp): void {
  app.get('verifications', '/verifications', (ctx) => listPage(ctx));
  app.get('verifications', '/verifications/:id', (ctx) => verificationPage(ctx, idOf(ctx)));

  app.post('verifications', '/verifications/:id/notes', async (ctx) => {
    const id = idOf(ctx);
    if (!hasScope(ctx, 'sessions:write')) return verificationPage(ctx, id, { note: { errors: ['Your role cannot add notes.'], text: '' }, status: 403 });
    const note = ctx.form.get('note') ?? '';
    const local = note.trim() === '' ? ['Write the note first.'] : [...note].length > NOTE_MAX ? [`A note is at most ${NOTE_MAX} characters.`] : [];
    if (local.length > 0) return verificationPage(ctx, id, { note: { errors: local, text: note }, status: 422 });
    try {
      await ctx.call(SUBJECTS.sessionsNote, { id, body: { note } });
    } catch (e) {
      if (e instanceof DomainError && (e.code === 'validation_error' || e.code === 'invalid_state_transition')) {
        const errors = e.code === 'validation_error' ? issuesOf(e) : ["Notes can't be added to this verification: its applicant's personal data was erased."];
        return verificationPage(ctx, id, { note: { errors, text: note }, status: e.code === 'validation_error' ? 422 : 409 });
      }
      throw e;
    }
    await ctx.record('console.session.noted', id);
    return { redirect: `/verifications/${encodeURIComponent(id)}?noted=1#timeline` };
  });

  // The images are not pages: bytes or a small refusal, never the frame. Same sign-in and role checks as a page.
  app.http.get('/verifications/:id/images/:artifact', (req, reply) => serveImage(app, req, reply));
}

function idOf(ctx: PageContext): string {
  return (ctx.req.params as { id: string }).id;
}

async function listPage(ctx: PageContext): Promise<PageResult> {
  const f = await listFilters(ctx, PAGE_SIZE);
  const page = f.errors.length > 0 ? { data: [], next_cursor: null } : await ctx.call(SUBJECTS.sessionsConsoleList, f.request);
  const names = await namesOf(ctx, page.data);
  const rows: Html[][] = page.data.map((s) => [
    html`<a href="/verifications/${s.id}"><code>${s.id}</code></a>`,
    applicantCell(s, names, true),
    html`<span class="status-cell">${statusBadge(s)}${s.outcome ? html` ${outcomeBadge(s.outcome)}` : ''}</span>`,
    checkChips(s.checks),
    when(s.created_at),
  ]);
  const canTest = mayOpen(ctx.viewer.user.role, 'test-data');
  const hint =
    ctx.mode === 'test'
      ? canTest
        ? html`Create one on the <a href="/test-data">Test data</a> page, or with <code>POST /v1/sessions</code> and a test key.`
        : html`Verifications appear here once your backend creates them with <code>POST /v1/sessions</code> and a test key.`
      : html`Verifications appear here once your backend creates them with <code>POST /v1/sessions</code> and a live key.`;
  return ctx.render(
    'Verifications',
    html`<p class="muted">Verifications of <strong>${ctx.mode}</strong> mode in the ${ctx.deps.cfg.REGION.toUpperCase()} region, newest first.</p>
${filterForm('/verifications', 'Filter verifications', f, SESSION_STATUSES.map((s): [string, string] => [s, STATUS_LABELS[s]]), CHECK_LABELS)}
${f.form.applicant_id ? html`<p class="small">Verifications of the applicant <code>${f.form.applicant_id}</code>. <a href="/verifications">All verifications</a></p>` : ''}
${f.errors.map((e) => notice('error', e))}
${f.truncated ? notice('info', 'More applicants have this name than a list can filter by: the newest 200 of them are searched. Type more of the name to narrow it.') : ''}
${names === null && page.data.length > 0 ? notice('info', 'Applicant names could not be read just now: the list shows their ids.') : ''}
${
  page.data.length > 0
    ? table('Verifications', ['Verification', 'Applicant', 'Status', 'Checks', 'Created'], rows)
    : f.active
      ? emptyState('No verifications match these filters', html`Try another name, status, check or period, or <a href="/verifications">clear the filters</a>.`)
      : emptyState(`No ${ctx.mode} verifications yet`, hint)
}
${pager('/verifications', ctx.query, page.next_cursor)}`,
    f.errors.length > 0 ? 422 : 200,
  );
}

/**
 * A link to a verification of the other mode of the organization (every sign-in starts in test mode): the page says
 * which mode holds it and offers the switch, which opens it. An id of no verification of the organization in either
 * mode is the 404 page, as another organization's is.
 */
async function otherModePage(ctx: PageContext, id: string): Promise<PageResult | null> {
  const found = await ctx.callInOtherMode(SUBJECTS.sessionsGet, { id }).then(
    () => true,
    (e: unknown) => {
      if (!(e instanceof DomainError && e.code === 'resource_not_found')) ctx.deps.log.warn({ err: e, request_id: ctx.requestId }, 'other mode not asked for a verification');
      return false;
    },
  );
  if (!found) return null;
  const other = ctx.mode === 'test' ? 'live' : 'test';
  return ctx.render(
    `A ${other} verification`,
    html`${notice('info', html`This verification is in <strong>${other} mode</strong>; you are working in ${ctx.mode} mode.`)}
<form method="post" action="/mode" class="switch-to">
  ${csrfField(ctx.csrf)}<input type="hidden" name="mode" value="${other}"><input type="hidden" name="next" value="/verifications/${id}">
  <button type="submit">Switch to ${other} mode and open it</button>
</form>
<p><a href="/verifications">Stay in ${ctx.mode} mode</a></p>`,
    409,
  );
}

export interface VerificationOpts {
  /** A decision form sent back with errors (review.ts). */
  decision?: { errors: string[]; reason: string };
  note?: { errors: string[]; text: string };
  /** A watchlist hit's decision form sent back with errors (watchlist-hits.ts). */
  hit?: HitForm;
  /** Shown at the top of the page. */
  notice?: Html;
  status?: number;
}

/** One verification in full. `opts` carries a form sent back with its errors. */
export async function verificationPage(ctx: PageContext, id: string, opts: VerificationOpts = {}): Promise<PageResult> {
  let session: Session;
  try {
    session = await ctx.call(SUBJECTS.sessionsGet, { id });
  } catch (e) {
    if (e instanceof DomainError && e.code === 'resource_not_found' && ctx.req.method === 'GET') {
      const other = await otherModePage(ctx, id);
      if (other) return other;
    }
    throw e;
  }
  // the applicant and the timeline are shown when they can be read; the verification itself is the page
  const screensWatchlist = session.checks.some((c) => c.type === 'watchlist') && !session.erased;
  const [applicant, timeline, backStored, hits] = await Promise.all([
    ctx.call(SUBJECTS.applicantsGet, { id: session.applicant_id }).then(
      (a): Applicant | 'gone' | 'unavailable' => a,
      (e: unknown) => (e instanceof DomainError && e.code === 'resource_not_found' ? 'gone' : unavailable(ctx, e, 'applicant')),
    ),
    ctx.call(SUBJECTS.sessionsTimeline, { id: session.id }).then(
      (t) => t.data,
      (e: unknown) => unavailable(ctx, e, 'timeline'),
    ),
    // the back of the document is stored, never in the API's idv: asked of evidence for a reviewer who may see images
    session.idv && session.mode === 'live' && hasScope(ctx, 'sessions:read_report')
      ? ctx.call(SUBJECTS.evidenceAvailable, { session_id: session.id }).then(
          (h) => h.back_stored === true,
          (e: unknown) => (unavailable(ctx, e, 'evidence'), false),
        )
      : Promise.resolve(false),
    // the watchlist check's hits with the reviewers' decisions on them (docs/watchlist.md, "Reviewing hits")
    screensWatchlist
      ? ctx.call(SUBJECTS.sessionsWatchlistHits, { id: session.id }).then(
          (r) => r.data,
          (e: unknown) => unavailable(ctx, e, 'watchlist hits'),
        )
      : Promise.resolve([]),
  ]);
  const q = ctx.query;
  const decided = q.get('decided');
  const canDecide = mayOpen(ctx.viewer.user.role, 'review') && hasScope(ctx, 'sessions:write');
  return ctx.render(
    'Verification',
    html`<div class="vpage"><p class="crumbs"><a href="/verifications">← All verifications</a>${mayOpen(ctx.viewer.user.role, 'review') ? html` · <a href="/review">Review queue</a>` : ''}</p>
${opts.notice ?? ''}
${decided === 'approved' || decided === 'declined' ? notice('success', html`You ${decided === 'approved' ? 'approved' : 'declined'} this verification. It is completed, and <code>kyc.session.completed</code> goes to your webhooks.`) : ''}
${q.get('noted') ? notice('success', 'Your note was added to the timeline.') : ''}
${session.erased ? notice('info', "This applicant's personal data was erased (a data subject request): the verification keeps its ids, statuses and outcomes only.") : ''}
${summary(ctx, session)}
${session.status === 'manual_review' && canDecide ? decisionPanel(ctx, session, opts.decision, hits === 'unavailable' ? null : hitTally(hits)) : ''}
${checksPanel(session)}
${watchlistPanel(ctx, session, hits, screenedPerson(session, applicant), canDecide, opts.hit)}
${session.idv?.holder ? personPanel(session, session.idv.holder, applicant) : applicantPanel(session, applicant)}
${screeningPanel(session.screening)}
${idvPanel(ctx, session, backStored)}
${timelinePanel(ctx, session, timeline, opts.note)}
${metadataPanel(session)}</div>`,
    opts.status,
  );
}

function unavailable(ctx: PageContext, e: unknown, what: string): 'unavailable' {
  ctx.deps.log.warn({ err: e, request_id: ctx.requestId }, `console: the verification's ${what} could not be read`);
  return 'unavailable';
}

function summary(ctx: PageContext, s: Session): Html {
  const md = s.metadata as Record<string, unknown>;
  const reason = (k: string) => (typeof md[k] === 'string' ? (md[k] as string) : null);
  return html`<section class="panel verification-head" aria-label="Summary">
<p class="verification-id"><code>${s.id}</code> ${statusBadge(s)} ${s.outcome ? outcomeBadge(s.outcome) : ''}</p>
<dl class="facts">
  <dt>Outcome</dt><dd>${s.outcome ? (s.outcome === 'approved' ? 'Approved' : 'Declined') : html`<span class="muted">${s.status === 'pending' || s.status === 'in_progress' || s.status === 'manual_review' ? 'none yet' : 'none'}</span>`}</dd>
  <dt>Mode</dt><dd>${s.mode}</dd>
  <dt>Workflow template</dt><dd><code>${s.workflow_template_id}</code> <span class="muted">version ${s.workflow_template_version}</span></dd>
  <dt>Created</dt><dd>${when(s.created_at)}</dd>
  <dt>Last change</dt><dd>${when(s.updated_at)}</dd>
  ${s.expires_at && (s.status === 'pending' || s.status === 'in_progress') ? html`<dt>Expires</dt><dd>${when(s.expires_at)}</dd>` : ''}
  ${reason('manualReviewReason') ? html`<dt>Sent to review because</dt><dd>${reason('manualReviewReason')}</dd>` : ''}
  ${reason('cancellationReason') ? html`<dt>Cancelled because</dt><dd>${reason('cancellationReason')}</dd>` : ''}
  ${reason('erroredReason') ? html`<dt>Error</dt><dd>${reason('erroredReason')}</dd>` : ''}
</dl>
${ctx.mode === 'live' && s.url ? html`<p class="muted">The applicant's capture link was sent to them; it is not shown here.</p>` : ''}
</section>`;
}

/** Approve or decline with a reason: posted to the review queue's route (review.ts), which checks the role. */
function decisionPanel(ctx: PageContext, s: Session, sent?: { errors: string[]; reason: string }, hits?: { open: number; cleared: number; confirmed: number } | null): Html {
  const total = hits ? hits.open + hits.cleared + hits.confirmed : 0;
  return html`<section class="panel decision" id="decision" aria-labelledby="decision-title">
<h2 id="decision-title">Decide this verification</h2>
<p>It waits in the review queue for a person. Your decision completes it and sends <code>kyc.session.completed</code> with the outcome to your webhooks.</p>
${
  hits && total > 0
    ? html`<p class="hit-summary">Watchlist: <a href="#watchlist">${total === 1 ? '1 hit' : `${total} hits`}</a>, ${hits.open} open, ${hits.cleared} cleared, ${hits.confirmed} confirmed${hits.confirmed > 0 ? ' — a confirmed hit is a listed person: decline unless your policy allows them' : hits.open > 0 ? ' — decide each hit below before you decide the verification' : ''}.</p>`
    : ''
}
${sent && sent.errors.length > 0 ? notice('error', html`<ul>${sent.errors.map((m) => html`<li>${m}</li>`)}</ul>`) : ''}
<form method="post" action="/review/${s.id}/decision">
  ${csrfField(ctx.csrf)}
  ${
    s.erased
      ? html`<p class="muted">The applicant's personal data was erased, so the decision is recorded without a reason.</p>`
      : html`<label for="reason">Reason <span class="hint">required · up to ${REASON_MAX} characters · kept with the verification</span></label>
  <textarea id="reason" name="reason" required maxlength="${REASON_MAX}"${sent && sent.errors.length > 0 ? raw(' aria-invalid="true" autofocus') : ''}>${sent?.reason ?? ''}</textarea>`
  }
  <div class="actions">
    <button type="submit" name="outcome" value="approved" class="approve">Approve</button>
    <button type="submit" name="outcome" value="declined" class="danger">Decline</button>
  </div>
</form>
</section>`;
}

/** A face check's score as a reviewer reads it: what it measures and the number, three places. */
function scoreText(c: SessionCheck): Html {
  if (c.score === null) return html`<span class="muted">—</span>`;
  const what = c.type === 'face_match' ? 'similarity' : c.type === 'liveness' ? 'live' : 'score';
  return html`<span class="score"><span class="muted">${what}</span> <strong>${c.score.toFixed(3)}</strong></span>`;
}

function reasonsText(c: SessionCheck): Html {
  if (c.reasons.length === 0) return html`<span class="muted">${c.outcome === 'pass' ? 'Nothing found' : c.outcome === null ? 'Not run yet' : '—'}</span>`;
  return html`<ul class="reasons">${c.reasons.map((r) => html`<li>${reasonWords(r)} <code class="reason-code">${r}</code></li>`)}</ul>`;
}

function checksPanel(s: Session): Html {
  return html`<section class="panel" aria-labelledby="checks-title">
<h2 id="checks-title">Checks</h2>
${
  s.checks.length === 0
    ? html`<p class="muted">This workflow has no checks.</p>`
    : html`<div class="table-wrap"><table class="compact checks"><caption class="visually-hidden">Checks, their outcomes, scores and reasons</caption>
<thead><tr><th scope="col">Check</th><th scope="col">Outcome</th><th scope="col">Score</th><th scope="col">Why</th></tr></thead>
<tbody>${s.checks.map(
        (c) =>
          html`<tr><td data-label="Check">${checkLabel(c.type)}</td><td data-label="Outcome">${badge(c.outcome ?? 'not run', checkTone(c.outcome))}</td><td data-label="Score">${scoreText(c)}</td><td data-label="Why">${reasonsText(c)}</td></tr>`,
      )}</tbody></table></div>
${s.mode === 'test' ? html`<p class="muted small">Test-mode results are synthetic: they carry no reasons and no score.</p>` : ''}`
}
</section>`;
}

type Mark = 'same' | 'differs' | 'not compared';

function markCell(m: Mark): Html {
  const content = m === 'same' ? badge('same', 'ok') : m === 'differs' ? badge('differs', 'bad') : html`<span class="muted">not compared</span>`;
  return html`<td class="mark${m === 'not compared' ? '' : ` ${m}`}" data-label="Compared">${content}</td>`;
}

/**
 * The applicant as the integrator named them beside the holder the document names, field by field, each marked
 * the same or different by the comparison live runs make (libs/domain/names: transliteration, diacritics, order, initials
 * tolerated). The applicant's data is the applicant's; the document's is the document's; neither stands for the other.
 */
function personPanel(s: Session, holder: IdvHolder, a: Applicant | 'gone' | 'unavailable'): Html {
  const link = html`<a href="/verifications?applicant_id=${encodeURIComponent(s.applicant_id)}">All verifications of this applicant</a>`;
  const usable = typeof a === 'object' && !a.erased && a.family_name !== null;
  const applicant = usable ? (a as Applicant) : null;
  const names = applicant ? compareNames({ familyName: applicant.family_name!, givenNames: applicant.given_names ?? [] }, { familyName: holder.family_name, givenNames: holder.given_names }) : null;
  const dob: Mark = applicant?.date_of_birth ? (compareDates(applicant.date_of_birth, holder.date_of_birth) ? 'same' : 'differs') : 'not compared';
  const family: Mark = names ? (names.match || names.family ? 'same' : 'differs') : 'not compared';
  const given: Mark = names && names.given !== null ? (names.match || names.given ? 'same' : 'differs') : 'not compared';
  const same = names ? names.match && dob !== 'differs' : null;
  const list = (xs: readonly string[] | null | undefined) =>
    xs && xs.length > 0 ? html`<ol class="names">${xs.map((g) => html`<li>${g}</li>`)}</ol>` : html`<span class="muted">none</span>`;
  const cell = (v: Html | string | null | undefined) => (v === null || v === undefined || v === '' ? html`<span class="muted">—</span>` : v);
  const row = (field: string, mine: Html | string, theirs: Html | string, mark: Html) =>
    html`<tr><td class="field" data-label="Field">${field}</td><td data-label="Applicant">${mine}</td><td data-label="Document">${theirs}</td>${mark}</tr>`;
  let note = html``;
  if (a === 'gone') note = html`<p class="muted">This applicant no longer exists.</p>`;
  else if (a === 'unavailable') note = notice('error', 'The applicant could not be read just now; reload the page to try again.');
  else if (a.erased) note = notice('info', html`This applicant's personal data was <strong>erased</strong> (a data subject request).`);
  return html`<section class="panel person" aria-labelledby="person-title">
<h2 id="person-title">Applicant and document</h2>
<p><code>${s.applicant_id}</code> ${
    same === null ? '' : same ? badge('Same person', 'ok') : badge('Not the same person', 'bad')
  }</p>
${note}
<div class="table-wrap"><table class="compact side-by-side"><caption class="visually-hidden">The applicant's data beside the document's, each field marked</caption>
<thead><tr><th scope="col">Field</th><th scope="col">Applicant (as you created them)</th><th scope="col">Document (as read)</th><th scope="col">Compared</th></tr></thead>
<tbody>
${row('Family name', cell(applicant?.family_name), holder.family_name, markCell(family))}
${row('Given names', applicant ? list(applicant.given_names) : cell(null), list(holder.given_names), markCell(given))}
${row('Date of birth', cell(applicant?.date_of_birth), holder.date_of_birth, markCell(dob))}
${row('Nationality', html`<span class="muted">—</span>`, cell(holder.nationality), markCell('not compared'))}
</tbody></table></div>
<p class="muted small">Names are compared as a person would: transliteration, accents, case, order, hyphens, initials and a missing middle name are tolerated. The document never changes the applicant's record. ${link}</p>
</section>`;
}

function applicantPanel(s: Session, a: Applicant | 'gone' | 'unavailable'): Html {
  const link = html`<a href="/verifications?applicant_id=${encodeURIComponent(s.applicant_id)}">All verifications of this applicant</a>`;
  let body: Html;
  if (a === 'gone') body = html`<p class="muted">This applicant no longer exists.</p>`;
  else if (a === 'unavailable') body = notice('error', 'The applicant could not be read just now; reload the page to try again.');
  else if (a.erased) body = notice('info', html`This applicant's personal data was <strong>erased</strong> (a data subject request). Only the id and the creation time remain.`);
  else {
    const facts: Array<[string, Html | string]> = [];
    // the name as the applicant holds it: given names in their order, the family name, the suffix, each its own field
    if (a.given_names && a.given_names.length > 0) facts.push(['Given names', html`<ol class="names">${a.given_names.map((g) => html`<li>${g}</li>`)}</ol>`]);
    if (a.family_name !== null) facts.push(['Family name', a.family_name]);
    if (a.name_suffix !== null) facts.push(['Name suffix', a.name_suffix]);
    if (a.email !== null) facts.push(['Email', a.email]);
    if (a.phone !== null) facts.push(['Phone', a.phone]);
    if (a.date_of_birth !== null) facts.push(['Date of birth', a.date_of_birth]);
    const addr = a.address;
    if (addr) {
      const lines = [addr.line1, addr.line2, [addr.postal_code, addr.city].filter(Boolean).join(' '), addr.region, addr.country].filter((l): l is string => Boolean(l));
      if (lines.length > 0) facts.push(['Address', html`${lines.map((l, i) => html`${i > 0 ? raw('<br>') : ''}${l}`)}`]);
    }
    if (a.external_id !== null) facts.push(['Your reference', html`<code>${a.external_id}</code>`]);
    body = html`<dl class="facts">${facts.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
  }
  return html`<section class="panel" aria-labelledby="applicant-title">
<h2 id="applicant-title">Applicant</h2>
<p><code>${s.applicant_id}</code></p>
${body}
<p class="muted small">${link}</p>
</section>`;
}

function screeningPanel(sc: SessionScreening | null | undefined): Html {
  if (!sc) {
    return html`<section class="panel" aria-labelledby="screening-title"><h2 id="screening-title">Screening</h2>
<p class="muted">Screening has not decided anything for this verification yet (no run has rested, or the run was given up before screening).</p></section>`;
  }
  const decision =
    sc.decision === 'review' ? badge('Review', 'warn') : sc.decision === 'approve' ? badge('Approve', 'ok') : badge('No rule decided', 'neutral');
  const threshold = sc.review_threshold;
  const against =
    threshold === null
      ? html`<span class="muted">(threshold not recorded)</span>`
      : sc.score >= threshold
        ? html`at or above the review threshold of <strong>${threshold}</strong>`
        : html`below the review threshold of <strong>${threshold}</strong>`;
  return html`<section class="panel" aria-labelledby="screening-title">
<h2 id="screening-title">Screening</h2>
<dl class="facts">
  <dt>Decision</dt><dd>${decision}${sc.decision === 'none' ? html` <span class="muted">the check outcomes decided alone</span>` : ''}</dd>
  <dt>Score</dt><dd><strong>${sc.score}</strong> ${against}</dd>
  ${sc.decline_floored ? html`<dt>Decline</dt><dd>A <code>decline</code> rule fired; declines are floored to manual review.</dd>` : ''}
  <dt>Tags</dt><dd>${sc.tags.length > 0 ? sc.tags.map((t) => html`${badge(t)} `) : html`<span class="muted">none</span>`}</dd>
</dl>
<h3>Rule trace</h3>
${
  sc.rules_fired.length === 0
    ? html`<p class="muted">No rule fired.</p>`
    : html`<p class="muted small">The rules that fired, in evaluation order (ascending priority, then position in the template). Field paths only, never the applicant's values.</p>
${table(
  'Rules that fired',
  ['Priority', 'Rule', 'Type', 'Action', 'Fields read'],
  sc.rules_fired.map((r) => [
    html`${r.priority ?? html`<span class="muted">—</span>`}`,
    html`${r.name}`,
    html`<code>${r.rule_type}</code>`,
    badge(r.action, r.action === 'review' || r.action === 'decline' ? 'warn' : r.action === 'approve' ? 'ok' : 'neutral'),
    html`${r.fields.map((f) => html`<code class="field">${f}</code> `)}`,
  ]),
)}`
}
</section>`;
}

function idvPanel(ctx: PageContext, s: Session, backStored: boolean): Html {
  const idv = s.idv;
  if (!idv) return html``;
  // in the order a reviewer compares them: the document's sides, then its portrait beside the selfie
  const stored: StoredArtifact[] = [...idv.available_images, ...(backStored ? (['back'] as const) : [])];
  const images = (['front', 'back', 'portrait', 'selfie'] as const).filter((a) => stored.includes(a));
  const doc = idv.document;
  const allowed = hasScope(ctx, 'sessions:read_report');
  return html`<section class="panel" aria-labelledby="evidence-title">
<h2 id="evidence-title">Identity evidence</h2>
<p class="muted small">Capture: ${idv.capture_acquisition ?? 'not recorded'}${ctx.mode === 'test' ? ' · synthetic images of a test run' : ''}</p>
${
  images.length === 0
    ? html`<p class="muted">No image is stored for this verification.</p>`
    : allowed
      ? html`<div class="images">${images.map(
          (a) => html`<figure><a href="/verifications/${s.id}/images/${a}"><img src="/verifications/${s.id}/images/${a}" alt="${ARTIFACT_LABELS[a]}"></a><figcaption>${ARTIFACT_LABELS[a]}</figcaption></figure>`,
        )}</div>
<p class="muted small">Each image view is written to your organization's evidence access log, as for the API.</p>`
      : notice('info', html`${images.length} image${images.length === 1 ? ' is' : 's are'} stored. Your role (${ctx.viewer.user.role}) does not include evidence images; an owner, admin or reviewer can see them.`)
}
${
  doc
    ? html`<h3>Document read</h3><dl class="facts"><dt>Type</dt><dd>${doc.type.replace('_', ' ')}</dd><dt>Issuing country</dt><dd>${doc.issuing_country ?? '—'}</dd><dt>Number</dt><dd><code>${doc.number}</code></dd><dt>Expires</dt><dd>${doc.expiry_date}</dd></dl>`
    : ctx.mode === 'live'
      ? html`<p class="muted">The document could not be read: look at the images.</p>`
      : ''
}
</section>`;
}

function timelineLine(e: TimelineEntry): Html {
  if (e.kind === 'created') return html`<strong>Verification created</strong>`;
  if (e.kind === 'note') return html`<strong>Note</strong><p class="note-text">${e.text ?? ''}</p>`;
  if (e.kind === 'watchlist_decision') {
    const h = e.hit;
    return html`<strong>Watchlist hit ${e.type === 'confirmed' ? 'confirmed' : 'cleared'}</strong>${h ? html` <span class="muted">${h.matched_name} · <code>${h.list}</code> <code>${h.entity_id}</code>${h.decided_by ? ` · by ${h.decided_by}` : ''}</span>` : ''}<p class="note-text">${e.text ?? ''}</p>`;
  }
  const label = (e.type && EVENT_LABELS[e.type]) ?? 'Event';
  return html`<strong>${label}</strong> <code class="event-type">${e.type ?? ''}</code>${e.text ? html` <span class="muted">status ${e.text}</span>` : ''}`;
}

function timelinePanel(ctx: PageContext, s: Session, timeline: TimelineEntry[] | 'unavailable', sent?: { errors: string[]; text: string }): Html {
  const canNote = hasScope(ctx, 'sessions:write') && !s.erased;
  return html`<section class="panel" id="timeline" aria-labelledby="timeline-title">
<h2 id="timeline-title">Timeline</h2>
${
  timeline === 'unavailable'
    ? notice('error', 'The timeline could not be read just now; reload the page to try again.')
    : timeline.length === 0
      ? html`<p class="muted">Nothing has happened yet.</p>`
      : html`<ol class="timeline">${timeline.map((e) => html`<li class="tl-${e.kind}">${when(e.at)}<div>${timelineLine(e)}</div></li>`)}</ol>`
}
${
  canNote
    ? html`<form method="post" action="/verifications/${s.id}/notes" class="note-form">
  ${csrfField(ctx.csrf)}
  ${sent && sent.errors.length > 0 ? notice('error', html`<ul>${sent.errors.map((m) => html`<li>${m}</li>`)}</ul>`) : ''}
  <label for="note">Add a note <span class="hint">up to ${NOTE_MAX} characters · visible to your team and in the API's session read</span></label>
  <textarea id="note" name="note" required maxlength="${NOTE_MAX}"${sent && sent.errors.length > 0 ? raw(' aria-invalid="true"') : ''}>${sent?.text ?? ''}</textarea>
  <div class="actions"><button type="submit" class="secondary">Add note</button></div>
</form>`
    : ''
}
</section>`;
}

function metadataPanel(s: Session): Html {
  const own = Object.fromEntries(
    Object.entries(s.metadata).filter(([k]) => !['operatorNotes', 'manualReviewReason', 'cancellationReason', 'erroredReason'].includes(k)),
  );
  if (Object.keys(own).length === 0) return html``;
  return html`<details class="panel metadata"><summary>Metadata sent with the verification</summary><pre>${JSON.stringify(own, null, 2)}</pre></details>`;
}

// ---------------------------------------------------------------------------------------------------------------
// Evidence images: fetched from the evidence service's internal HTTP route by the platform's InternalHttpClient,
// as the API's GET /v1/sessions/{id}/idv-image/{artifact} is (apps/gateway/src/streams), signed with the person's
// principal and the console's seal of it.

function refuse(reply: FastifyReply, status: 404 | 503): void {
  void reply
    .code(status)
    .type('text/plain; charset=utf-8')
    .send(status === 404 ? 'Not found' : 'Not available right now');
}

async function serveImage(app: ConsoleApp, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { id, artifact } = req.params as { id: string; artifact: string };
  let viewer: Awaited<ReturnType<ConsoleApp['viewerOf']>>;
  try {
    viewer = await app.viewerOf(req);
  } catch (e) {
    app.deps.log.warn({ err: e, request_id: String(req.id) }, 'console: the viewer of an image request could not be read');
    return refuse(reply, 503);
  }
  // not signed in, a role without the page or without evidence images, a value that is no served artifact: one 404
  if (!viewer || !mayOpen(viewer.user.role, 'verifications') || !scopesOf(viewer.user.role).includes('sessions:read_report') || !SERVED.includes(artifact)) {
    return refuse(reply, 404);
  }
  const ctx = new PageContext(app.deps, req, reply, viewer, 'verifications');
  const base = app.deps.cfg.EVIDENCE_URL;
  if (!base) return refuse(reply, 503);
  const url = `${base}/sessions/${encodeURIComponent(id)}/images/${encodeURIComponent(artifact)}`;
  let res: Dispatcher.ResponseData;
  try {
    res = await app.deps.internalHttp.get(url, { principal: ctx.principal(), requestId: ctx.requestId }, app.deps.cfg.RPC_TIMEOUT_MS);
  } catch (e) {
    const code = e instanceof DomainError ? e.code : null;
    if (code === 'resource_not_found' || code === 'artifact_not_available') return refuse(reply, 404);
    app.deps.log.warn({ err: e, request_id: ctx.requestId, code }, 'console: evidence image not available');
    return refuse(reply, 503);
  }
  reply.code(200).header('content-type', 'image/jpeg').header('cache-control', 'no-store');
  const length = res.headers['content-length'];
  if (typeof length === 'string') reply.header('content-length', length);
  await reply.send(res.body);
}
