import { CHECK_TYPES, SUBJECTS, type ApplicantName, type ConsoleSessionListRequest, type Session } from '@verity/contracts';
import { checkForm, DomainError } from '@verity/errors';
import { isCalendarDay } from '@verity/metadata';
import { z } from 'zod';
import type { PageContext } from '../app.js';
import { html, type Html } from '@verity/html';

/**
 * Names in the console's lists (docs/decisions.md, "Names in the console's lists"): sessions keep no names; the
 * applicants service gives the names of a page's applicants in one call, and answers a name search with the
 * matching applicants' ids, which the sessions service then filters by.
 */

/** The names of a page's applicants, by id; null when applicants did not answer (the ids are shown alone). */
export async function namesOf(ctx: PageContext, sessions: Session[]): Promise<Map<string, ApplicantName> | null> {
  const ids = [...new Set(sessions.map((s) => s.applicant_id))];
  if (ids.length === 0) return new Map();
  try {
    const { data } = await ctx.call(SUBJECTS.applicantsConsoleNames, { ids });
    return new Map(data.map((n) => [n.id, n]));
  } catch (e) {
    ctx.deps.log.warn({ err: e, request_id: ctx.requestId }, 'applicant names not read for a list');
    return null;
  }
}

/** A name as people read it: the family name first, in bold, then the given names. */
export function personName(family: string, given: readonly string[]): Html {
  return html`<strong>${family}</strong>${given.length > 0 ? html`, ${given.join(' ')}` : ''}`;
}

/**
 * The applicant cell of a list row: their name (or that it was erased), their id, and the document holder's name
 * when a live run read one that is written otherwise.
 */
export function applicantCell(s: Session, names: Map<string, ApplicantName> | null, link: boolean): Html {
  const n = names?.get(s.applicant_id);
  const id = link
    ? html`<a href="/verifications?applicant_id=${encodeURIComponent(s.applicant_id)}" title="This applicant's verifications"><code>${s.applicant_id}</code></a>`
    : html`<code>${s.applicant_id}</code>`;
  const holder = s.idv?.holder ?? null;
  const sameAsApplicant = holder && n && !n.erased && holder.family_name.toLowerCase() === n.family_name.toLowerCase() && holder.given_names.join(' ').toLowerCase() === n.given_names.join(' ').toLowerCase();
  const name = n ? (n.erased ? html`<span class="muted">Erased applicant</span>` : html`<span class="person">${personName(n.family_name, n.given_names)}</span>`) : '';
  return html`<div class="applicant-cell">${name}<span class="small">${id}</span>${holder && !sameAsApplicant ? html`<span class="small holder">Document: ${personName(holder.family_name, holder.given_names)}</span>` : ''}</div>`;
}

/** The filters of a list from its query: what the sessions service takes, what the form shows, what went wrong. */
export interface ListFilters {
  request: ConsoleSessionListRequest;
  /** The form's values, as typed. */
  form: { status: string; check: string; check_outcome: string; from: string; to: string; q: string; applicant_id: string };
  /** Something is filtered. */
  active: boolean;
  errors: string[];
  /** A name search matched more applicants than a list filters by. */
  truncated: boolean;
}

const OUTCOMES = ['pass', 'review', 'fail', 'error'];

/** A list's filter form as typed (each field '' when left empty), with what a person is told when it is wrong. */
const filterFields = z
  .object({
    check: z.string().refine((v) => v === '' || (CHECK_TYPES as readonly string[]).includes(v), 'Choose a check from the list.'),
    check_outcome: z.string().refine((v) => v === '' || OUTCOMES.includes(v), 'Choose a result from the list.'),
    from: z.string().refine((v) => v === '' || isCalendarDay(v), 'From is a day (YYYY-MM-DD).'),
    to: z.string().refine((v) => v === '' || isCalendarDay(v), 'To is a day (YYYY-MM-DD).'),
    applicant_id: z.string().max(100, 'An applicant id is at most 100 characters.'),
    q: z.string().max(100, 'A name to search is at most 100 characters.'),
  })
  .superRefine((f, ctx) => {
    if (f.check_outcome && !f.check) ctx.addIssue({ code: 'custom', message: 'Choose the check whose result you filter by.', path: ['check_outcome'] });
    if (isCalendarDay(f.from) && isCalendarDay(f.to) && f.from > f.to) ctx.addIssue({ code: 'custom', message: 'The From day comes after the To day.', path: ['to'] });
  });

/**
 * Reads a list's filters, and turns a name search into the ids of the applicants it matches (applicants searches).
 * `status` is fixed on the review queue.
 */
export async function listFilters(ctx: PageContext, pageSize: number, fixedStatus?: string): Promise<ListFilters> {
  const q = ctx.query;
  const get = (k: string, max = 100) => (q.get(k) ?? '').trim().slice(0, max + 1);
  const form = { status: fixedStatus ?? get('status'), check: get('check'), check_outcome: get('check_outcome'), from: get('from'), to: get('to'), q: get('q'), applicant_id: get('applicant_id') };
  const request: ConsoleSessionListRequest = { limit: pageSize };
  const cursor = q.get('cursor');
  if (cursor) request.cursor = cursor;
  if (form.status) request.status = form.status;
  const checked = checkForm(filterFields, form);
  const errors = checked.ok ? [] : checked.messages;
  if (checked.ok) {
    const f = checked.data;
    if (f.check) request.check = f.check;
    if (f.check_outcome) request.check_outcome = f.check_outcome;
    if (f.from) request.created_from = f.from;
    if (f.to) request.created_to = f.to;
    if (f.applicant_id) request.applicant_ids = [f.applicant_id];
  }
  let truncated = false;
  if (form.q) {
    if (errors.length === 0) {
      try {
        const found = await ctx.call(SUBJECTS.applicantsConsoleNames, { search: form.q });
        truncated = found.truncated;
        const ids = found.data.map((n) => n.id);
        request.applicant_ids = request.applicant_ids ? request.applicant_ids.filter((id) => ids.includes(id)) : ids;
      } catch (e) {
        if (e instanceof DomainError && e.code === 'validation_error') errors.push('Type a name to search (up to 100 characters).');
        else throw e;
      }
    }
  }
  const active = Object.entries(form).some(([k, v]) => v !== '' && !(k === 'status' && fixedStatus));
  return { request, form, active, errors, truncated };
}

const OUTCOME_LABELS: Record<string, string> = { pass: 'Pass', review: 'Review', fail: 'Fail', error: 'Error' };

/** The filter form of a list: a name, the status (unless fixed), a check and its result, the days of creation. */
export function filterForm(path: string, label: string, f: ListFilters, statuses: Array<[string, string]> | null, checkLabels: Record<string, string>): Html {
  const opt = (value: string, text: string, current: string) => html`<option value="${value}"${value === current ? html` selected` : ''}>${text}</option>`;
  return html`<form method="get" action="${path}" class="filters" role="search" aria-label="${label}">
  <div><label for="f-q">Name</label>
  <input id="f-q" name="q" type="search" value="${f.form.q}" placeholder="Family or given name" size="22" maxlength="100" spellcheck="false" autocomplete="off"></div>
  ${
    statuses
      ? html`<div><label for="f-status">Status</label>
  <select id="f-status" name="status">${opt('', 'Any status', f.form.status)}${statuses.map(([v, t]) => opt(v, t, f.form.status))}</select></div>`
      : ''
  }
  <div><label for="f-check">Check</label>
  <select id="f-check" name="check">${opt('', 'Any check', f.form.check)}${CHECK_TYPES.map((c) => opt(c, checkLabels[c] ?? c, f.form.check))}</select></div>
  <div><label for="f-outcome">Result</label>
  <select id="f-outcome" name="check_outcome">${opt('', 'Any result', f.form.check_outcome)}${Object.entries(OUTCOME_LABELS).map(([v, t]) => opt(v, t, f.form.check_outcome))}</select></div>
  <div><label for="f-from">Created from</label>
  <input id="f-from" name="from" type="date" value="${f.form.from}"></div>
  <div><label for="f-to">to</label>
  <input id="f-to" name="to" type="date" value="${f.form.to}"></div>
  ${f.form.applicant_id ? html`<input type="hidden" name="applicant_id" value="${f.form.applicant_id}">` : ''}
  <button type="submit" class="secondary">Filter</button>
  ${f.active ? html`<a href="${path}">Clear filters</a>` : ''}
</form>`;
}
