import type { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import type { ActivityEntry, ActivityListRequest, ExpectedOutcome, IdScanResult, PurgeTestDataReply, PurgeTestDataRequest } from '@verity/contracts';
import { idScanUpload } from '@verity/api-schema';
import { DomainError, parseBody, type Issue } from '@verity/errors';
import { z } from 'zod';
import { isId } from '@verity/keys';
import { assertBeforeDeadline, CONFIG, type InternalCaller, purgeTarget, type RpcContext, Semaphore } from '@verity/platform';
import { AuditRepository } from '../audit/audit.repository.js';
import type { IdScanConfig } from '../config.js';
import { EXTRACTORS, type Extractors } from './extractor.js';
import { ImageDecoder, MAX_IMAGE_BYTES } from '@verity/images';
import { readUpload, type UploadLimits, type UploadPolicy } from './multipart.js';

/** The one field of the upload besides the images (test mode): the synthetic result, `pass` when left out. */
const expectedOutcomeField = z.object({ expected_outcome: idScanUpload.shape.expected_outcome.unwrap().default('pass') });

const TEST_POLICY: UploadPolicy = { files: ['front', 'back'], fields: ['expected_outcome'] };
const LIVE_POLICY: UploadPolicy = {
  files: ['front', 'back'],
  fields: [],
  refusedFieldMessage: (name) => (name === 'expected_outcome' ? 'expected_outcome is accepted in test mode only' : undefined),
};

export const IMAGE_DECODER = Symbol('IMAGE_DECODER');

/**
 * POST /v1/id-verification, behind the gateway. Admission (a bounded number of uploads are read at once), then
 * the streamed multipart body under its limits, then the fields, then every image decoded, then extraction:
 * synthetic in test mode (images discarded first), the document reader in live mode (its own admission). A scan
 * that reaches a result writes one audit entry; a refused request writes nothing. Images are never stored or
 * logged.
 */
@Injectable()
export class ScanService {
  private readonly uploads: Semaphore;
  private readonly limits: Omit<UploadLimits, 'deadline'>;

  constructor(
    @Inject(CONFIG) cfg: IdScanConfig,
    @Inject(IMAGE_DECODER) private readonly decoder: ImageDecoder,
    @Inject(EXTRACTORS) private readonly extractors: Extractors,
    private readonly audit: AuditRepository,
  ) {
    this.uploads = new Semaphore(cfg.ID_SCAN_MAX_CONCURRENT_UPLOADS);
    this.limits = { fileBytes: MAX_IMAGE_BYTES, bodyBytes: cfg.ID_SCAN_BODY_LIMIT, fieldBytes: 64 };
  }

  async scan(caller: InternalCaller, body: Readable, contentType: string | undefined): Promise<IdScanResult> {
    const { principal: p, deadline } = caller;
    const release = await this.uploads.acquire(deadline);
    let front: Buffer;
    let back: Buffer | null;
    let expected: ExpectedOutcome;
    try {
      const upload = await readUpload(body, contentType, p.mode === 'test' ? TEST_POLICY : LIVE_POLICY, { ...this.limits, deadline });
      const f = upload.files.get('front');
      if (!f) throw DomainError.validation([{ code: 'invalid_type', message: 'front is required: the document image as a file part', path: ['front'] }]);
      expected = this.expectedOutcome(upload.fields.get('expected_outcome'));
      const b = upload.files.get('back');
      // decoded one after the other: one request never holds two decoding slots
      front = await this.decoder.normalize(f.bytes, f.format, 'front', deadline);
      back = b ? await this.decoder.normalize(b.bytes, b.format, 'back', deadline) : null;
    } finally {
      release();
    }

    const extraction =
      p.mode === 'test'
        ? await this.extractors.test.extract({ mode: 'test', expected_outcome: expected }) // images dropped here, unread
        : await this.extractors.live.extract({ mode: 'live', front, back, deadline });
    const outcome = extraction.readable ? extraction.outcome : p.mode === 'test' ? expected : 'unreadable';
    await this.audit.record(p, { outcome, request_id: caller.requestId, key_id: p.key_id });
    if (!extraction.readable) {
      throw new DomainError('document_unreadable', { details: extraction.reason ? { mode: p.mode, reason: extraction.reason } : { mode: p.mode } });
    }
    return { object: 'id_scan', mode: p.mode, outcome: extraction.outcome, reasons: extraction.reasons, document: extraction.document, holder: extraction.holder };
  }

  private expectedOutcome(v: string | undefined): ExpectedOutcome {
    return parseBody(expectedOutcomeField, { expected_outcome: v }).expected_outcome;
  }

  /** `id-scan.admin.audit.list.v1`: newest first. */
  async listAudit(req: ActivityListRequest): Promise<{ data: ActivityEntry[] }> {
    const issues: Issue[] = [];
    if (!isId('org', req?.org_id)) issues.push({ code: 'invalid_string', message: 'org_id must be an organization id', path: ['org_id'] });
    const limit = req?.limit ?? 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) issues.push({ code: 'too_big', message: 'limit must be a whole number from 1 to 100', path: ['limit'] });
    if (issues.length) throw DomainError.validation(issues);
    return { data: await this.audit.list(req.org_id, limit) };
  }

  /** The test-data purge (operator, docs/privacy.md): the organization's test-mode audit entries, gone for good. */
  async purgeTestData(req: PurgeTestDataRequest, ctx: RpcContext): Promise<PurgeTestDataReply> {
    const orgId = purgeTarget(req);
    assertBeforeDeadline(ctx);
    return { removed: { audit: await this.audit.purgeTestData(orgId) } };
  }
}
