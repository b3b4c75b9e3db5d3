import { Inject, Injectable } from '@nestjs/common';
import {
  isConsolePrincipal,
  SERVED_ARTIFACTS,
  SUBJECTS,
  type ActivityEntry,
  type ActivityListRequest,
  type EvidenceAvailability,
  type EvidenceHoldings,
  type Principal,
  type EvidenceArtifact,
  type StoreSyntheticRequest,
} from '@verity/contracts';
import { DomainError, type Issue } from '@verity/errors';
import { isId } from '@verity/keys';
import { RpcClient, type InternalCaller } from '@verity/platform';
import { ActivityRepository } from '../activity/activity.repository.js';
import { specimenImages } from '../synthetic/specimen.js';
import { ARTIFACT_STORE, type ArtifactStore, type OpenedBlob } from './artifact-store.js';
import { availableImages, isServedArtifact } from './artifacts.js';
import { EvidenceRepository, type NewArtifact } from './evidence.repository.js';

const ACQUISITIONS = ['camera', 'upload', null] as const;


@Injectable()
export class EvidenceService {
  constructor(
    private readonly repo: EvidenceRepository,
    private readonly activity: ActivityRepository,
    @Inject(ARTIFACT_STORE) private readonly store: ArtifactStore,
    @Inject(RpcClient) private readonly rpc: RpcClient,
  ) {}

  /**
   * The image endpoint. In order: an unserved artifact value or a malformed id is 404 resource_not_found
   * without any lookup; a session the caller cannot see is the same 404 (no activity entry); from there on the
   * request has reached one of the organization's verifications and writes exactly one activity entry before
   * anything is answered: `kyc.idv.evidence_export_failed` when nothing is stored (404 artifact_not_available),
   * `kyc.idv.evidence_exported` when the bytes are about to be streamed.
   */
  async openImage(caller: InternalCaller, sessionId: string, requested: string): Promise<OpenedBlob> {
    const p = caller.principal;
    // the back of a document: to a reviewer signed in to the console only, never to an API key
    const artifact: EvidenceArtifact | 'back' | null = isServedArtifact(requested) ? requested : requested === 'back' && isConsolePrincipal(p) ? 'back' : null;
    if (artifact === null || !isId('session', sessionId)) throw DomainError.notFound();
    const loc = await this.repo.locate(p, sessionId, artifact);
    if (!loc.recorded) await this.assertVisible(caller, sessionId);
    const blob = loc.storage_key === null ? null : await this.store.open(loc.storage_key);
    const entry = { session_id: sessionId, artifact, request_id: caller.requestId, key_id: p.key_id } as const;
    if (!blob) {
      await this.activity.record(p, { ...entry, action: 'kyc.idv.evidence_export_failed', outcome: 'artifact_not_available' });
      throw new DomainError('artifact_not_available');
    }
    try {
      await this.activity.record(p, { ...entry, action: 'kyc.idv.evidence_exported', outcome: 'served' });
    } catch (e) {
      blob.stream.destroy();
      throw e;
    }
    return blob;
  }

  /**
   * Nothing is recorded here for the session: the sessions service says whether the caller can see it, for the
   * caller's own signed principal (`sessions.visible`, a yes or no: evidence reads no session).
   */
  private async assertVisible(caller: InternalCaller, sessionId: string): Promise<void> {
    const remaining = caller.deadline - Date.now();
    if (remaining <= 0) throw new DomainError('service_unavailable');
    const { exists } = await this.rpc.call(SUBJECTS.sessionsVisible, { session_id: sessionId }, { principal: caller.principal, requestId: caller.requestId, timeoutMs: remaining });
    if (!exists) throw DomainError.notFound();
  }

  /** `evidence.synthetic.store.v1`: renders and stores the synthetic artifacts of a test run. Idempotent. */
  async storeSynthetic(p: Principal, req: StoreSyntheticRequest): Promise<EvidenceAvailability> {
    const input = validateStoreSynthetic(req);
    if (p.mode !== 'test') {
      throw DomainError.validation([{ code: 'custom', message: 'synthetic evidence is stored for test-mode verifications only', path: ['session_id'] }]);
    }
    const already = await this.repo.capture(p, input.session_id);
    // another owner's verification: refused before any bytes are written
    if (already && !already.owned) throw DomainError.notFound('session_id');
    const missing = input.artifacts.filter((a) => !already?.artifacts.includes(a));
    const fresh: NewArtifact[] = [];
    let recorded: Awaited<ReturnType<EvidenceRepository['record']>>;
    try {
      const images = missing.length > 0 ? await specimenImages() : null;
      for (const a of missing) {
        const bytes = images![a];
        fresh.push({ artifact: a, ...(await this.store.put(bytes)) });
      }
      recorded = await this.repo.record(p, input.session_id, input.capture_acquisition, fresh);
    } catch (e) {
      // nothing half-stored: the bytes written so far go again
      await this.store.delete(fresh.map((f) => f.storage_key)).catch(() => undefined);
      throw e;
    }
    await this.store.delete(recorded.unused);
    // everything asked for is stored now, by this call or an earlier one
    return {
      available_images: availableImages([...(already?.artifacts ?? []), ...input.artifacts]),
      capture_acquisition: recorded.capture_acquisition,
    };
  }

  /** `evidence.available.v1`: what is held for the session, for `idv` on the session read and the console. */
  async available(p: Principal, sessionId: string): Promise<EvidenceHoldings> {
    const c = isId('session', sessionId) ? await this.repo.capture(p, sessionId) : null;
    if (!c?.owned) return { available_images: [], capture_acquisition: null, back_stored: false };
    return { available_images: availableImages(c.artifacts), capture_acquisition: c.capture_acquisition, back_stored: c.artifacts.includes('back') };
  }

  /** `evidence.admin.activity.list.v1`: newest first. */
  async listActivity(req: ActivityListRequest): Promise<{ data: ActivityEntry[] }> {
    const issues: Issue[] = [];
    if (typeof req?.org_id !== 'string' || !isId('org', req.org_id)) issues.push({ code: 'invalid_string', message: 'org_id must be an organization id', path: ['org_id'] });
    if (req?.session_id !== undefined && typeof req.session_id !== 'string') issues.push({ code: 'invalid_type', message: 'session_id must be a string', path: ['session_id'] });
    const limit = req?.limit ?? 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) issues.push({ code: 'too_big', message: 'limit must be a whole number from 1 to 100', path: ['limit'] });
    if (issues.length) throw DomainError.validation(issues);
    return { data: await this.activity.list(req.org_id, req.session_id ?? null, limit) };
  }
}

export function validateStoreSynthetic(req: unknown): StoreSyntheticRequest {
  const r = (req ?? {}) as Partial<StoreSyntheticRequest>;
  const issues: Issue[] = [];
  if (!isId('session', r.session_id)) issues.push({ code: 'invalid_string', message: 'session_id must be a session id', path: ['session_id'] });
  if (!(ACQUISITIONS as readonly unknown[]).includes(r.capture_acquisition)) {
    issues.push({ code: 'invalid_enum_value', message: 'capture_acquisition must be camera, upload or null', path: ['capture_acquisition'] });
  }
  if (!Array.isArray(r.artifacts) || !r.artifacts.every((a) => isServedArtifact(a))) {
    issues.push({ code: 'invalid_type', message: `artifacts must be an array of ${SERVED_ARTIFACTS.join(', ')}`, path: ['artifacts'] });
  }
  if (issues.length) throw DomainError.validation(issues);
  return { session_id: r.session_id!, capture_acquisition: r.capture_acquisition!, artifacts: availableImages(r.artifacts!) };
}
