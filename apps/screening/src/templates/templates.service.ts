import { Inject, Injectable } from '@nestjs/common';
import { EVENTS, type ListQuery, type Owner, type Page, type TemplateVersion, type WorkflowTemplate } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { isId, newId } from '@verity/keys';
import { assertBeforeDeadline, parseListQuery, RpcClient, toPage, type RpcContext } from '@verity/platform';
import { applyPatch, validateCreateBody, validatePatchBody } from './template.validation.js';
import { fieldsOf, TemplatesRepository, type TemplateVersionRow } from './templates.repository.js';

export function toTemplateVersion(row: TemplateVersionRow): TemplateVersion {
  return {
    id: row.id,
    mode: row.mode,
    name: row.name,
    version: row.version,
    checks: row.checks,
    screening_rules: row.screening_rules,
    metadata: row.metadata,
    device_intelligence: row.device_intelligence,
    photo_upload: row.photo_upload,
    review_threshold: row.review_threshold,
    signing_document: row.signing_document,
    minimum_age: row.minimum_age,
    accepted_document_types: row.accepted_document_types,
    accepted_issuing_countries: row.accepted_issuing_countries,
    applicant_mismatch: row.applicant_mismatch,
    thresholds: row.thresholds,
    watchlist_thresholds: row.watchlist_thresholds,
  };
}

export function toTemplate(row: TemplateVersionRow): WorkflowTemplate {
  const v = toTemplateVersion(row);
  return {
    id: v.id,
    object: 'workflow_template',
    mode: v.mode,
    name: v.name,
    version: v.version,
    checks: v.checks,
    screening_rules: v.screening_rules,
    metadata: v.metadata,
    device_intelligence: v.device_intelligence,
    photo_upload: v.photo_upload,
    review_threshold: v.review_threshold,
    signing_document: v.signing_document,
    minimum_age: v.minimum_age,
    accepted_document_types: v.accepted_document_types,
    accepted_issuing_countries: v.accepted_issuing_countries,
    applicant_mismatch: v.applicant_mismatch,
    thresholds: v.thresholds,
    watchlist_thresholds: v.watchlist_thresholds,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

@Injectable()
export class TemplatesService {
  constructor(
    private readonly repo: TemplatesRepository,
    @Inject(RpcClient) private readonly rpc: RpcClient,
  ) {}

  async create(owner: Owner, body: unknown, ctx: RpcContext): Promise<WorkflowTemplate> {
    const fields = validateCreateBody(body);
    assertBeforeDeadline(ctx);
    return toTemplate(await this.repo.insert(owner, newId('workflowTemplate'), fields, () => assertBeforeDeadline(ctx)));
  }

  async get(owner: Owner, id: string): Promise<WorkflowTemplate> {
    const row = isId('workflowTemplate', id) ? await this.repo.find(owner, id) : null;
    if (!row) throw DomainError.notFound();
    return toTemplate(row);
  }

  async list(owner: Owner, query: ListQuery): Promise<Page<WorkflowTemplate>> {
    const p = parseListQuery(query);
    const rows = await this.repo.list(owner, p.after, p.limit);
    return toPage(rows, p.limit, (r) => r.seq, toTemplate);
  }

  /** Every accepted PATCH writes a new immutable version; a refusal writes nothing. */
  async update(owner: Owner, id: string, body: unknown, ctx: RpcContext): Promise<WorkflowTemplate> {
    if (!isId('workflowTemplate', id)) throw DomainError.notFound();
    const patch = validatePatchBody(body);
    assertBeforeDeadline(ctx);
    const row = await this.repo.update(owner, id, (current) => applyPatch(fieldsOf(current), patch), () => assertBeforeDeadline(ctx));
    if (!row) throw DomainError.notFound();
    // Published on this service's connection ahead of the reply (publishes keep their order): on one NATS
    // server, a session created after the caller saw the reply reaches the sessions service behind this
    // event, so it pins the new version. Across a cluster the pin cache's TTL bounds the gap.
    this.rpc.publish(EVENTS.templateChanged, { template_id: id, org_id: owner.org_id, mode: owner.mode });
    return toTemplate(row);
  }

  /** The current version, or the one asked for, as a verification run pins it. */
  async version(owner: Owner, id: string, version: number | undefined): Promise<TemplateVersion> {
    if (!isId('workflowTemplate', id)) throw DomainError.notFound();
    if (version !== undefined && !isVersionNumber(version)) throw DomainError.notFound('version');
    const row = await this.repo.findVersion(owner, id, version);
    if (row) return toTemplateVersion(row);
    // `param` says which is unknown: the template, or the version of a template that exists
    throw DomainError.notFound(version !== undefined && (await this.repo.find(owner, id)) ? 'version' : undefined);
  }
}

export function isVersionNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 2_147_483_647;
}
