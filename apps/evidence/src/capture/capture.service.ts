import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import {
  CAPTURE_IMAGES,
  type CaptureImage,
  type CaptureImagesReply,
  type CaptureImageStored,
  type CaptureVerifyReply,
  type CaptureVerifyRequest,
  type CheckVerdict,
  type Principal,
} from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { ImageDecoder, readImageBody } from '@verity/images';
import { isId } from '@verity/keys';
import type { InternalCaller } from '@verity/platform';
import type { CheckResult, Verification } from '@verity/reading';
import { ARTIFACT_STORE, type ArtifactStore } from '../artifacts/artifact-store.js';
import { availableImages } from '../artifacts/artifacts.js';
import { EvidenceRepository, type NewArtifact } from '../artifacts/evidence.repository.js';
import { CaptureReader } from './reader.js';
import { UploadsRepository } from './uploads.repository.js';

export const CAPTURE_DECODER = Symbol('CAPTURE_DECODER');

const ACQUISITIONS = ['camera', 'upload'] as const;

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

function isCaptureImage(a: string): a is CaptureImage {
  return (CAPTURE_IMAGES as readonly string[]).includes(a);
}

function verdict(c: CheckResult | null): CheckVerdict {
  // a run without a selfie cannot compare faces: a person looks
  return c ? { outcome: c.outcome, reasons: [...c.reasons] } : { outcome: 'review', reasons: ['no_face_in_selfie'] };
}

/**
 * The images of live captures: uploads as the applicant sends them (validated, normalized, one of each kind per
 * session), and the run that reads them (`verify`), stores the session's evidence and answers the checks.
 */
@Injectable()
export class CaptureService {
  constructor(
    private readonly uploads: UploadsRepository,
    private readonly evidence: EvidenceRepository,
    @Inject(ARTIFACT_STORE) private readonly store: ArtifactStore,
    @Inject(CAPTURE_DECODER) private readonly decoder: ImageDecoder,
    private readonly reader: CaptureReader,
  ) {}

  /**
   * `PUT /captures/{session}/images/{artifact}` (the gateway, for a client secret it resolved): the raw image,
   * refused as early as its bytes allow (size, format), decoded and re-encoded like an ID scan's, stored, and
   * recorded in place of an earlier one of its kind.
   */
  async upload(caller: InternalCaller, sessionId: string, artifact: string, body: Readable): Promise<CaptureImageStored> {
    if (!isCaptureImage(artifact) || !isId('session', sessionId)) throw DomainError.notFound();
    const { bytes, format } = await readImageBody(body, artifact, caller.deadline);
    const img = await this.decoder.normalized(bytes, format, artifact, caller.deadline);
    const key = await this.store.put(img.jpeg);
    let replaced: string | null;
    try {
      replaced = await this.uploads.put(caller.principal, sessionId, { artifact, storage_key: key, width: img.width, height: img.height, byte_size: img.jpeg.length, sha256: sha256(img.jpeg) });
    } catch (e) {
      await this.store.delete([key]).catch(() => undefined);
      throw e;
    }
    if (replaced) await this.store.delete([replaced]);
    return { object: 'capture_image', artifact, width: img.width, height: img.height };
  }

  /** `evidence.capture.images.v1`: what is uploaded for the session, with sizes. */
  async images(p: Principal, sessionId: string): Promise<CaptureImagesReply> {
    const out: CaptureImagesReply = { front: null, back: null, selfie: null };
    if (!isId('session', sessionId)) return out;
    for (const u of await this.uploads.list(p, sessionId)) out[u.artifact] = { width: u.width, height: u.height };
    return out;
  }

  /**
   * `evidence.capture.verify.v1` (the sessions service's live run): reads the capture in the reading pool, stores
   * the evidence it makes (`front` and `back` as uploaded, `selfie`, and `portrait` when the front shows a face)
   * and records the acquisition. Idempotent: what an earlier attempt stored stays, and nothing is stored twice.
   */
  async verify(p: Principal, req: CaptureVerifyRequest, deadline: number): Promise<CaptureVerifyReply> {
    if (!isId('session', req?.session_id) || !(ACQUISITIONS as readonly unknown[]).includes(req.acquisition)) {
      throw DomainError.validation([{ code: 'custom', message: 'session_id must be a session id and acquisition camera or upload', path: ['session_id'] }]);
    }
    const rows = await this.uploads.list(p, req.session_id);
    const bytes = new Map<CaptureImage, Buffer>();
    for (const u of rows) {
      const blob = await this.store.open(u.storage_key);
      if (blob) bytes.set(u.artifact, await collect(blob.stream));
    }
    const front = bytes.get('front');
    if (!front) throw DomainError.validation([{ code: 'custom', message: 'the capture has no image of the document’s front', path: ['front'] }]);
    const selfie = bytes.get('selfie') ?? null;
    const v: Verification = await this.reader.verify({ front, back: bytes.get('back') ?? null, selfie }, deadline);

    const made: Array<[NewArtifact['artifact'], Buffer | null]> = [
      ['front', front],
      ['back', bytes.get('back') ?? null],
      ['selfie', selfie],
      ['portrait', v.portrait],
    ];
    const already = await this.evidence.capture(p, req.session_id);
    if (already && !already.owned) throw DomainError.notFound('session_id');
    const fresh: NewArtifact[] = [];
    try {
      for (const [artifact, b] of made) {
        if (!b || already?.artifacts.includes(artifact)) continue;
        fresh.push({ artifact, storage_key: await this.store.put(b), byte_size: b.length, sha256: sha256(b) });
      }
      const recorded = await this.evidence.record(p, req.session_id, req.acquisition, fresh);
      await this.store.delete(recorded.unused);
    } catch (e) {
      await this.store.delete(fresh.map((f) => f.storage_key)).catch(() => undefined);
      throw e;
    }
    const stored = [...(already?.artifacts ?? []), ...fresh.map((f) => f.artifact)];
    const read = v.document.readable ? v.document.read : null;
    return {
      document: read && { type: read.document.type, issuing_country: read.document.issuing_country, number: read.document.number, expiry_date: read.document.expiry_date },
      holder: read && { family_name: read.holder.family_name, given_names: [...read.holder.given_names], date_of_birth: read.holder.date_of_birth, nationality: read.holder.nationality },
      checks: { document: verdict(v.checks.document), face_match: verdict(v.checks.face_match), liveness: verdict(v.checks.liveness) },
      available_images: availableImages(stored),
    };
  }
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}
