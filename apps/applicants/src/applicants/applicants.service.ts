import { Injectable } from '@nestjs/common';
import { CONSOLE_NAME_SEARCH_MAX, CONSOLE_NAMES_MAX_IDS, type Applicant, type ApplicantName, type ApplicantNamesReply, type ListQuery, type Owner, type Page } from '@verity/contracts';
import { DomainError, parseBody } from '@verity/errors';
import { isId, newId } from '@verity/keys';
import { assertBeforeDeadline, parseListQuery, toPage, type RpcContext } from '@verity/platform';
import { z } from 'zod';
import { validateApplicantInput } from './applicant.validation.js';
import { ApplicantsRepository, type ApplicantRow, type NameRow } from './applicants.repository.js';

export function toApplicant(row: ApplicantRow): Applicant {
  return {
    id: row.id,
    object: 'applicant',
    mode: row.mode,
    family_name: row.family_name,
    given_names: row.given_names,
    name_suffix: row.name_suffix,
    email: row.email,
    phone: row.phone,
    date_of_birth: row.date_of_birth,
    address: row.address,
    external_id: row.external_id,
    erased: row.erased_at !== null,
    created_at: row.created_at.toISOString(),
  };
}

@Injectable()
export class ApplicantsService {
  constructor(private readonly repo: ApplicantsRepository) {}

  async create(owner: Owner, body: unknown, ctx: RpcContext): Promise<Applicant> {
    const input = validateApplicantInput(body);
    assertBeforeDeadline(ctx);
    // the caller's deadline, checked again by the statement itself: nothing is written after the gateway answered
    const row = await this.repo.insert(owner, { id: newId('applicant'), ...input }, new Date(ctx.deadline));
    if (!row) throw new DomainError('service_unavailable');
    return toApplicant(row);
  }

  async get(owner: Owner, id: string): Promise<Applicant> {
    const row = isId('applicant', id) ? await this.repo.find(owner, id) : null;
    if (!row) throw DomainError.notFound();
    return toApplicant(row);
  }

  async list(owner: Owner, query: ListQuery): Promise<Page<Applicant>> {
    const p = parseListQuery(query);
    const rows = await this.repo.list(owner, p.after, p.limit);
    return toPage(rows, p.limit, (r) => r.seq, toApplicant);
  }

  /**
   * `applicants.console.names.v1`: the names of a console list's applicants (`ids`), or the applicants whose names
   * match a search, for the owner of the principal only (docs/decisions.md, "Names in the console's lists").
   */
  async names(owner: Owner, req: unknown): Promise<ApplicantNamesReply> {
    const r = parseBody(namesRequest, req ?? {});
    if (r.search !== undefined) {
      const rows = await this.repo.searchNames(owner, r.search, CONSOLE_NAME_SEARCH_MAX);
      return { data: rows.slice(0, CONSOLE_NAME_SEARCH_MAX).map(toName), truncated: rows.length > CONSOLE_NAME_SEARCH_MAX };
    }
    const ids = [...new Set((r.ids ?? []).filter((id) => isId('applicant', id)))];
    const rows = ids.length > 0 ? await this.repo.names(owner, ids) : [];
    return { data: rows.map(toName), truncated: false };
  }
}

/**
 * The request of `applicants.console.names.v1`: a search (1 to 100 characters of a name, as its words), or the ids of
 * a list's applicants (at most `CONSOLE_NAMES_MAX_IDS`; what is not an applicant id names nobody).
 */
const namesRequest = z
  .object({
    search: z
      .string()
      .transform((v, ctx) => searchTerms(v) ?? (ctx.addIssue({ code: 'custom', message: 'must be 1 to 100 characters of a name' }), z.NEVER))
      .optional(),
    ids: z.array(z.string()).max(CONSOLE_NAMES_MAX_IDS).optional(),
  })
  .refine((r) => r.search !== undefined || r.ids !== undefined, { message: `a search, or a list of at most ${CONSOLE_NAMES_MAX_IDS} applicant ids`, path: ['ids'] });

function toName(r: NameRow): ApplicantName {
  const erased = r.erased_at !== null;
  return { id: r.id, family_name: erased ? '' : (r.family_name ?? ''), given_names: erased ? [] : (r.given_names ?? []), erased };
}

/** A search's words, lower case and escaped for LIKE; null when there is nothing to search or too much. */
export function searchTerms(search: string): string[] | null {
  const s = search.normalize('NFC').trim();
  if (s.length === 0 || s.length > 100) return null;
  const terms = s.toLowerCase().split(/[\s,]+/).filter(Boolean).slice(0, 5);
  return terms.length > 0 ? terms.map((t) => t.replace(/[\\%_]/g, (c) => `\\${c}`)) : null;
}
