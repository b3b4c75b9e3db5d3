import { SUBJECTS, type Applicant, type Session, type SessionWatchlistHit, type WatchlistMatchFeatures } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { issuesOf, type ConsoleApp, type PageContext } from '../app.js';
import { html, raw, type Html } from '@verity/html';
import { badge, csrfField, notice, when } from '../layout.js';
import { hasScope, REASON_MAX, verificationPage } from './verifications.js';

/** A hit's decision form sent back with its errors. */
export interface HitForm {
  finding: string;
  errors: string[];
  reason: string;
}

const HOW: Record<string, string> = {
  exact: 'the same word',
  transliteration: 'another transliteration',
  phonetic: 'sounds the same',
  spelling: 'a small spelling difference',
  initial: 'an initial',
};

const DOB: Record<WatchlistMatchFeatures['date_of_birth'], [string, 'ok' | 'warn' | 'bad' | 'neutral']> = {
  exact: ['the same day', 'bad'],
  year: ['the same year (the list gives no more)', 'warn'],
  near: ['within a year', 'warn'],
  mismatch: ['more than a year apart', 'ok'],
  unknown: ['not compared: a side has none', 'neutral'],
};

const NATIONALITY: Record<WatchlistMatchFeatures['nationality'], [string, 'ok' | 'warn' | 'bad' | 'neutral']> = {
  match: ['one of the listed', 'bad'],
  mismatch: ['none of the listed', 'ok'],
  unknown: ['not compared: a side has none', 'neutral'],
};

/**
 * Deciding a watchlist hit (docs/console.md, "Reviewing watchlist hits"): a reviewer clears a false positive or
 * confirms a true match, with a reason, while the verification waits for review. The decision is stored by the sessions
 * service (which owns the hits, the findings of the run), shown on the page and its timeline, and logged. Posted under
 * the review queue's routes: the review roles only.
 */
export function registerWatchlistHits(app: ConsoleApp): void {
  app.post('review', '/review/:id/watchlist/:finding', async (ctx) => {
    const { id, finding } = ctx.req.params as { id: string; finding: string };
    const outcome = ctx.form.get('outcome') ?? '';
    const reason = ctx.form.get('reason') ?? '';
    const sendBack = (errors: string[], status: number) => verificationPage(ctx, id, { hit: { finding, errors, reason }, status });
    if (!hasScope(ctx, 'sessions:write')) return sendBack(['Your role cannot decide watchlist hits.'], 403);
    // another organization's or mode's session, or an unknown id: the 404 page, before anything else
    const session = await ctx.call(SUBJECTS.sessionsGet, { id });
    const errors: string[] = [];
    if (outcome !== 'cleared' && outcome !== 'confirmed') errors.push('Choose Clear or Confirm.');
    if (reason.trim() === '') errors.push('Write the reason for your decision on this hit: it is kept with the verification.');
    else if ([...reason].length > REASON_MAX) errors.push(`The reason is at most ${REASON_MAX} characters.`);
    if (errors.length > 0) return sendBack(errors, 422);
    let decided: SessionWatchlistHit;
    try {
      decided = await ctx.call(SUBJECTS.sessionsWatchlistDecide, { id: session.id, finding_id: finding, body: { outcome, reason, reviewer_email: ctx.viewer.user.email } });
    } catch (e) {
      if (e instanceof DomainError && e.code === 'validation_error') return sendBack(issuesOf(e), 422);
      if (e instanceof DomainError && e.code === 'invalid_state_transition') {
        const text =
          e.details?.decided === true
            ? 'Nothing was changed: this hit has been decided already (see below).'
            : e.details?.erased === true
              ? "Nothing was changed: this applicant's personal data was erased."
              : 'Nothing was changed: this verification is no longer waiting for review.';
        return verificationPage(ctx, session.id, { notice: notice('error', text), status: 409 });
      }
      throw e;
    }
    await ctx.record(`console.watchlist_hit.${decided.decision?.outcome ?? outcome}`, session.id, { finding_id: decided.finding_id, list: decided.list, entity_id: decided.entity_id });
    return { redirect: `/verifications/${encodeURIComponent(session.id)}?hit=${outcome}#watchlist` };
  });
}

/** The person screened, as the live run screened them: the document's holder, else the applicant's own data. */
interface Screened {
  source: 'document' | 'applicant';
  name: string;
  date_of_birth: string | null;
  nationality: string | null;
}

export function screenedPerson(s: Session, a: Applicant | 'gone' | 'unavailable'): Screened | null {
  const h = s.idv?.holder;
  if (h) return { source: 'document', name: [...h.given_names, h.family_name].join(' '), date_of_birth: h.date_of_birth, nationality: h.nationality ?? null };
  if (typeof a === 'object' && !a.erased) {
    return { source: 'applicant', name: [...(a.given_names ?? []), a.family_name ?? ''].join(' ').trim(), date_of_birth: a.date_of_birth, nationality: null };
  }
  return null;
}

/** One line of the decisions so far: "1 open · 1 cleared · 0 confirmed". */
export function hitTally(hits: readonly SessionWatchlistHit[]): { open: number; cleared: number; confirmed: number } {
  return {
    open: hits.filter((h) => !h.decision).length,
    cleared: hits.filter((h) => h.decision?.outcome === 'cleared').length,
    confirmed: hits.filter((h) => h.decision?.outcome === 'confirmed').length,
  };
}

function pairsList(f: WatchlistMatchFeatures | null): Html {
  if (!f || !Array.isArray(f.pairs) || f.pairs.length === 0) return html`<span class="muted">no word pairs recorded</span>`;
  return html`<ul class="pairs">${f.pairs.map(
    (p) => html`<li><code>${p.query}</code> ↔ <code>${p.listed}</code> ${badge(p.how)} <span class="muted">${HOW[p.how] ?? ''} · ${p.similarity.toFixed(2)}</span></li>`,
  )}</ul>`;
}

function decisionBlock(h: SessionWatchlistHit): Html {
  const d = h.decision!;
  return html`<div class="hit-decision ${d.outcome}">
<p>${d.outcome === 'cleared' ? badge('Cleared: not this person', 'ok') : badge('Confirmed: this person', 'bad')} by <strong>${d.decided_by.email ?? d.decided_by.id}</strong> · ${when(d.decided_at)}</p>
<p class="hit-reason"><span class="muted">Reason:</span> ${d.reason}</p>
</div>`;
}

function hitForm(ctx: PageContext, s: Session, h: SessionWatchlistHit, n: number, sent: HitForm | undefined): Html {
  const mine = sent && sent.finding === h.finding_id ? sent : undefined;
  const field = `hit-reason-${n}`;
  return html`<form method="post" action="/review/${s.id}/watchlist/${h.finding_id}" class="hit-form">
  ${csrfField(ctx.csrf)}
  ${mine && mine.errors.length > 0 ? notice('error', html`<ul>${mine.errors.map((m) => html`<li>${m}</li>`)}</ul>`) : ''}
  <label for="${field}">Reason for hit ${n} <span class="hint">required · up to ${REASON_MAX} characters · kept with the verification</span></label>
  <textarea id="${field}" name="reason" required maxlength="${REASON_MAX}"${mine && mine.errors.length > 0 ? raw(' aria-invalid="true" autofocus') : ''}>${mine?.reason ?? ''}</textarea>
  <div class="actions">
    <button type="submit" name="outcome" value="cleared" class="secondary" aria-label="Clear hit ${n}: not this person">Clear: not this person</button>
    <button type="submit" name="outcome" value="confirmed" class="danger" aria-label="Confirm hit ${n}: this person">Confirm: this person</button>
  </div>
</form>`;
}

/**
 * The hits of the verification's watchlist check, each beside the person screened (the document's names, date of
 * birth and nationality as read): which list, the listed name and id, the score and the features that made it, and
 * either the decision on it or (to a reviewer, while the verification waits for review) the form to clear or confirm it.
 */
export function watchlistPanel(ctx: PageContext, s: Session, hits: readonly SessionWatchlistHit[] | 'unavailable', person: Screened | null, canDecide: boolean, sent?: HitForm): Html {
  if (hits === 'unavailable') {
    return html`<section class="panel" id="watchlist" aria-labelledby="watchlist-title"><h2 id="watchlist-title">Watchlist hits</h2>
${notice('error', 'The watchlist hits could not be read just now; reload the page to try again.')}</section>`;
  }
  if (hits.length === 0) return html``;
  const t = hitTally(hits);
  const open = canDecide && s.status === 'manual_review' && !s.erased;
  const hitDone = ctx.query.get('hit');
  const source = person?.source === 'applicant' ? "Applicant (the template reads no document)" : 'Document (as read)';
  const cell = (v: string | null | undefined) => (v ? html`${v}` : html`<span class="muted">—</span>`);
  return html`<section class="panel watchlist" id="watchlist" aria-labelledby="watchlist-title">
<h2 id="watchlist-title">Watchlist hits</h2>
${hitDone === 'cleared' || hitDone === 'confirmed' ? notice('success', `You ${hitDone} the hit. Your decision and its reason are kept with the verification and in its timeline.`) : ''}
<p>The person was screened against the lists loaded in the region; ${hits.length === 1 ? 'one listed person' : `${hits.length} listed persons`} matched at or above the review threshold.
${open ? html`Clear each false positive and confirm each true match, with a reason. Approving or declining the verification stays your decision ${raw('<a href="#decision">above</a>')}.` : ''}</p>
<p class="hit-tally"><strong>${t.open}</strong> open · <strong>${t.cleared}</strong> cleared · <strong>${t.confirmed}</strong> confirmed</p>
${hits.map((h, i) => {
  const n = i + 1;
  const f = h.features;
  const dob = f ? DOB[f.date_of_birth] : undefined;
  const nat = f ? NATIONALITY[f.nationality] : undefined;
  return html`<article class="hit" id="hit-${n}" aria-labelledby="hit-${n}-title">
<h3 id="hit-${n}-title">Hit ${n}: ${h.matched_name} ${badge(`score ${h.score.toFixed(3)}`, h.decision ? 'neutral' : 'warn')}</h3>
<dl class="facts">
  <dt>List</dt><dd><code>${h.list}</code></dd>
  <dt>Entity id</dt><dd><code>${h.entity_id}</code></dd>
  <dt>Listed name</dt><dd>${h.matched_name}</dd>
  <dt>Score</dt><dd><strong>${h.score.toFixed(3)}</strong>${f ? html` <span class="muted">(names ${f.name.toFixed(3)}${f.reordered ? ', in another order' : ''}${f.unpaired && (f.unpaired.query > 0 || f.unpaired.listed > 0) ? `, ${f.unpaired.query} of the person's and ${f.unpaired.listed} of the listed words unpaired` : ''})</span>` : ''}</dd>
</dl>
<div class="table-wrap"><table class="compact side-by-side hit-compare"><caption class="visually-hidden">The person screened beside the listed person of hit ${n}</caption>
<thead><tr><th scope="col">Field</th><th scope="col">${source}</th><th scope="col">Listed (<code>${h.list}</code>)</th><th scope="col">How it matched</th></tr></thead>
<tbody>
<tr><td class="field" data-label="Field">Name</td><td data-label="${source}">${cell(person?.name)}</td><td data-label="Listed">${h.matched_name}</td><td data-label="How it matched">${pairsList(f)}</td></tr>
<tr><td class="field" data-label="Field">Date of birth</td><td data-label="${source}">${cell(person?.date_of_birth)}</td><td data-label="Listed"><span class="muted">as the list gives it</span></td><td data-label="How it matched">${dob ? html`${badge(f!.date_of_birth, dob[1])} ${dob[0]}` : html`<span class="muted">—</span>`}</td></tr>
<tr><td class="field" data-label="Field">Nationality</td><td data-label="${source}">${cell(person?.nationality)}</td><td data-label="Listed"><span class="muted">as the list gives it</span></td><td data-label="How it matched">${nat ? html`${badge(f!.nationality, nat[1])} ${nat[0]}` : html`<span class="muted">—</span>`}</td></tr>
</tbody></table></div>
${h.decision ? decisionBlock(h) : open ? hitForm(ctx, s, h, n, sent) : html`<p class="muted">Not decided.</p>`}
</article>`;
})}
<p class="muted small">A decision on a hit does not change the verification's status: only approving or declining it does.</p>
</section>`;
}
