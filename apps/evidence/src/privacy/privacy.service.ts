import { Inject, Injectable } from '@nestjs/common';
import {
  CHALLENGE_FRAME_ARTIFACTS,
  type EvidenceExportReply,
  type Principal,
  type PrivacyEraseReply,
  type PrivacyEraseRequest,
  type PrivacyExportRequest,
  type PurgeTestDataReply,
  type PurgeTestDataRequest,
  type StoredArtifact,
} from '@verity/contracts';
import { DomainError, type Issue } from '@verity/errors';
import { isId } from '@verity/keys';
import { type InternalCaller, LOGGER, type Logger, purgeTarget } from '@verity/platform';
import { ActivityRepository } from '../activity/activity.repository.js';
import { ARTIFACT_STORE, drainDeletions, type ArtifactStore, type OpenedBlob } from '../artifacts/artifact-store.js';
import { StoredImagesRepository, type ImageSource } from './stored-images.repository.js';

const STORED_ARTIFACTS: readonly StoredArtifact[] = ['front', 'back', 'selfie', 'portrait', ...CHALLENGE_FRAME_ARTIFACTS];
const SOURCES: readonly ImageSource[] = ['artifact', 'upload'];

/** The request of `evidence.privacy.export.v1` and `evidence.privacy.erase.v1`, checked; session ids once each. */
export function validatePrivacyRequest(req: unknown): { applicant_id: string; session_ids: string[] } {
  const r = (req ?? {}) as Partial<PrivacyExportRequest>;
  const issues: Issue[] = [];
  if (!isId('applicant', r.applicant_id)) issues.push({ code: 'invalid_string', message: 'applicant_id must be an applicant id', path: ['applicant_id'] });
  if (!Array.isArray(r.session_ids) || !r.session_ids.every((s) => isId('session', s))) {
    issues.push({ code: 'invalid_type', message: 'session_ids must be an array of session ids', path: ['session_ids'] });
  }
  if (issues.length) throw DomainError.validation(issues);
  return { applicant_id: r.applicant_id!, session_ids: [...new Set(r.session_ids!)] };
}

/**
 * The evidence service's steps of a data subject request (docs/privacy.md), the test-data purge, and the stored
 * images an export reads. The applicant's sessions are named by the caller (the sessions service knows them);
 * everything is scoped to the principal's organization and mode.
 */
@Injectable()
export class PrivacyService {
  constructor(
    private readonly images: StoredImagesRepository,
    private readonly activity: ActivityRepository,
    @Inject(ARTIFACT_STORE) private readonly store: ArtifactStore,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  /** `evidence.privacy.export.v1`: every stored image of the sessions (without bytes) and their activity entries. */
  async export(p: Principal, req: PrivacyExportRequest): Promise<EvidenceExportReply> {
    const { session_ids } = validatePrivacyRequest(req);
    const [evidence, activity] = await Promise.all([this.images.list(p, session_ids), this.activity.ofSessions(p, session_ids)]);
    return { evidence, activity };
  }

  /**
   * `evidence.privacy.erase.v1`: every stored image of the sessions, with its bytes. Idempotent (a repeat erases 0).
   * Answers once the bytes are gone from the object store too: when the store cannot delete them now, the request
   * fails (the rows are erased and the objects queued), and its retry, erasing nothing more, deletes them.
   */
  async erase(p: Principal, req: PrivacyEraseRequest): Promise<PrivacyEraseReply> {
    const { applicant_id, session_ids } = validatePrivacyRequest(req);
    const erased = await this.images.erase(p, session_ids);
    await drainDeletions(this.store);
    this.log.info({ org_id: p.org_id, mode: p.mode, applicant_id, sessions: session_ids.length, ...erased }, 'evidence erased');
    return { erased: { ...erased } };
  }

  /** `evidence.admin.purge-test-data.v1` (operator): every test-mode row of the organization. */
  async purgeTestData(req: PurgeTestDataRequest): Promise<PurgeTestDataReply> {
    const orgId = purgeTarget(req);
    const removed = await this.images.purgeTestData(orgId);
    await drainDeletions(this.store);
    this.log.info({ org_id: orgId, ...removed }, 'evidence test data purged');
    return { removed: { ...removed } };
  }

  /**
   * `GET /sessions/{id}/stored-images/{source}/{artifact}` (an export's bytes): any stored image of the caller's
   * session, `back` and uploads included. Nothing recorded for the caller (another owner, unknown, malformed) is
   * 404 resource_not_found; recorded but not stored (never, erased, expired) is 404 artifact_not_available.
   * Not an image-endpoint read: no activity entry.
   */
  async openStoredImage(caller: InternalCaller, sessionId: string, source: string, artifact: string): Promise<OpenedBlob> {
    const src = SOURCES.find((s) => s === source);
    const art = STORED_ARTIFACTS.find((a) => a === artifact);
    if (!src || !art || !isId('session', sessionId)) throw DomainError.notFound();
    const loc = await this.images.locate(caller.principal, sessionId, src, art);
    if (!loc.recorded) throw DomainError.notFound();
    const blob = loc.storage_key === null ? null : await this.store.open(loc.storage_key);
    if (!blob) throw new DomainError('artifact_not_available');
    return blob;
  }
}
