import { Inject, Injectable } from '@nestjs/common';
import { dsarCreateBody } from '@verity/api-schema';
import { type DataSubjectRequest, type DsarArtifact, type ErasureKeySet, type Principal } from '@verity/contracts';
import { DomainError, parseBody } from '@verity/errors';
import { isId, newId } from '@verity/keys';
import { ApplicantsRepository } from '../applicants/applicants.repository.js';
import { DsarRepository, type DsarRow } from './dsar.repository.js';
import { DsarJob } from './dsar.job.js';
import { ERASURE_KEYS } from './tokens.js';
import type { ErasureKeys } from './erasure-keys.js';

export function toDataSubjectRequest(row: DsarRow): DataSubjectRequest {
  const out: DataSubjectRequest = {
    id: row.id,
    object: 'data_subject_request',
    type: row.type,
    applicant_id: row.applicant_id,
    mode: row.mode,
    status: row.status,
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? null,
  };
  if (row.status === 'completed' && row.type === 'access') out.export = row.export;
  if (row.status === 'completed' && row.type === 'erasure' && row.certificate) out.certificate = row.certificate;
  return out;
}

/** POST and GET /v1/data_subject_requests (docs/privacy.md); the runner does the work. */
@Injectable()
export class DsarService {
  constructor(
    private readonly requests: DsarRepository,
    private readonly applicants: ApplicantsRepository,
    private readonly runner: DsarJob,
    @Inject(ERASURE_KEYS) private readonly keys: ErasureKeys,
  ) {}

  async create(p: Principal, body: unknown): Promise<DataSubjectRequest> {
    const { type, applicant_id } = parseBody(dsarCreateBody, body ?? {});
    // an erased applicant is still found (its id stays): erasing it again is harmless, and access shows the erasure
    if (!isId('applicant', applicant_id) || !(await this.applicants.find(p, applicant_id))) throw DomainError.notFound('applicant_id');
    const row = await this.requests.insert({ id: newId('dataSubjectRequest'), type, applicant_id, principal: p });
    this.runner.kick();
    return toDataSubjectRequest(row);
  }

  async get(p: Principal, id: string): Promise<DataSubjectRequest> {
    const row = isId('dataSubjectRequest', id) ? await this.requests.find(p, id) : null;
    if (!row) throw DomainError.notFound();
    return toDataSubjectRequest(row);
  }

  /**
   * One entry of a completed access export's evidence, read out of the stored export by the database: a client
   * fetching each image of a large export does not have the whole export read and sent for each.
   */
  async evidenceEntry(p: Principal, id: string, index: unknown): Promise<DsarArtifact> {
    const i = typeof index === 'number' && Number.isInteger(index) && index >= 0 && index < 1_000_000_000 ? index : null;
    const entry = isId('dataSubjectRequest', id) && i !== null ? await this.requests.evidenceEntry(p, id, i) : null;
    if (!entry) throw DomainError.notFound();
    return entry;
  }

  erasureKeys(): ErasureKeySet {
    return this.keys.keySet;
  }

  /** Operator tooling: the organization's test-mode applicants and requests, gone. */
  purgeTestData(orgId: unknown): Promise<Record<string, number>> {
    if (!isId('org', orgId)) throw DomainError.notFound('org');
    return this.requests.purgeTestData(orgId);
  }
}
