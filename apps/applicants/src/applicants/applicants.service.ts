import { Injectable } from '@nestjs/common';
import type { Applicant, ListQuery, Owner, Page } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { isId, newId } from '@verity/keys';
import { assertBeforeDeadline, parseListQuery, toPage, type RpcContext } from '@verity/platform';
import { validateApplicantInput } from './applicant.validation.js';
import { ApplicantsRepository, type ApplicantRow } from './applicants.repository.js';

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
}
