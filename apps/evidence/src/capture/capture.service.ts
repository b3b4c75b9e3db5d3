import type { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import {
  CAPTURE_IMAGES,
  CHALLENGE_FRAME_ARTIFACTS,
  CHALLENGE_FRAME_LIMITS,
  CHALLENGE_STEPS,
  type CaptureCheckRequest,
  type CaptureDocumentType,
  type CaptureFrameStored,
  type CaptureImage,
  type CaptureImageCheck,
  type CaptureImageStored,
  type CaptureVerifyReply,
  type CaptureVerifyRequest,
  type ChallengeFrameArtifact,
  type ChallengeStep,
  type CheckVerdict,
  type Principal,
} from '@verity/contracts';
import { captureCheckBody } from '@verity/api-schema';
import { DomainError, parseBody } from '@verity/errors';
import { ImageDecoder, readImageBody } from '@verity/images';
import { isId } from '@verity/keys';
import { Admission, CONFIG, type InternalCaller } from '@verity/platform';
import type { CheckResult, Verification } from '@verity/reading';
import { ARTIFACT_STORE, type ArtifactStore } from '../artifacts/artifact-store.js';
import { availableImages } from '../artifacts/artifacts.js';
import { EvidenceRepository, type NewArtifact } from '../artifacts/evidence.repository.js';
import type { EvidenceConfig } from '../config.js';
import { CaptureReader } from './reader.js';
import { UploadsRepository, type UploadRow } from './uploads.repository.js';

export const CAPTURE_DECODER = Symbol('CAPTURE_DECODER');

const ACQUISITIONS = ['camera', 'upload'] as const;


/** The body of an image check: `{ "document_type"? }` (an object, or nothing). */
function imageCheckBody(body: unknown): CaptureDocumentType | null {
  return parseBody(captureCheckBody, body ?? {}).document_type ?? null;
}

function isCaptureImage(a: string): a is CaptureImage {
  return (CAPTURE_IMAGES as readonly string[]).includes(a);
}

function verdict(c: CheckResult | null): CheckVerdict {
  // a run without a selfie cannot compare faces: a person looks
  return c ? { outcome: c.outcome, reasons: [...c.reasons], score: c.score === null ? null : Math.round(c.score * 1000) / 1000 } : { outcome: 'review', reasons: ['no_face'], score: null };
}

/** The artifact name of a challenge frame's index (`0` → `frame_0`), or null for an index out of range or malformed. */
function frameArtifact(index: string): ChallengeFrameArtifact | null {
  return /^[0-9]$/.test(index) && Number(index) < CHALLENGE_FRAME_LIMITS.max ? CHALLENGE_FRAME_ARTIFACTS[Number(index)]! : null;
}

/**
 * What the applicant is told when an image cannot be used, by its first reason (docs/capture.md, "Checking an
 * image"): what to do, in plain words.
 */
const RETAKE: Record<string, string> = {
  no_face: 'We could not see a face. Take the photo again with your whole face in the frame.',
  multiple_faces: 'We can see more than one face. Make sure you are alone in the photo.',
  face_too_small: 'Your face is too far away. Come closer, so that your face fills the oval.',
  face_not_frontal: 'Look straight at the camera, then take the photo again.',
  eyes_closed: 'Your eyes seem closed. Keep them open and take the photo again.',
  blurred: 'The photo is blurry. Hold still and take it again.',
};
/** What a capture upload beyond the service's admission is told (503). */
export const UPLOADS_BUSY_MESSAGE = 'Too many images are being uploaded right now; retry in a few seconds.';

const DOCUMENT_RETAKE = 'We could not read your document. Put it flat in good light, fit the whole document inside the frame, hold still, avoid glare, and take the photo again.';

/**
 * The images of live captures: uploads as the applicant sends them (validated, normalized, one of each kind per
 * session), and the run that reads them (`verify`), stores the session's evidence and answers the checks.
 */
@Injectable()
export class CaptureService {
  /**
   * Uploads read at once (EVIDENCE_MAX_CONCURRENT_UPLOADS), each buffering up to its size limit, and how many wait
   * unread (EVIDENCE_UPLOADS_WAITING): many slow uploads at once get 503 instead of holding the memory of all.
   */
  private readonly admission: Admission;

  constructor(
    private readonly uploads: UploadsRepository,
    private readonly evidence: EvidenceRepository,
    @Inject(ARTIFACT_STORE) private readonly store: ArtifactStore,
    @Inject(CAPTURE_DECODER) private readonly decoder: ImageDecoder,
    private readonly reader: CaptureReader,
    @Inject(CONFIG) cfg: EvidenceConfig,
  ) {
    this.admission = new Admission(cfg.EVIDENCE_MAX_CONCURRENT_UPLOADS, cfg.EVIDENCE_UPLOADS_WAITING, Infinity, UPLOADS_BUSY_MESSAGE);
  }

  /**
   * `PUT /captures/{session}/images/{artifact}` (the gateway, for a client secret it resolved): the raw image,
   * refused as early as its bytes allow (size, format), decoded and re-encoded like an ID scan's, stored, and
   * recorded in place of an earlier one of its kind.
   */
  async upload(caller: InternalCaller, sessionId: string, artifact: string, body: Readable): Promise<CaptureImageStored> {
    if (!isCaptureImage(artifact) || !isId('session', sessionId)) throw DomainError.notFound();
    return this.admission.run(async () => {
      const { bytes, format } = await readImageBody(body, artifact, caller.deadline);
      const img = await this.decoder.normalized(bytes, format, artifact, caller.deadline);
      await this.store$(caller.principal, sessionId, { artifact, width: img.width, height: img.height, offset_ms: null }, img.jpeg);
      return { object: 'capture_image' as const, artifact, width: img.width, height: img.height };
    }, caller.deadline);
  }

  /**
   * `PUT /captures/{session}/frames/{index}/{offset}` (the gateway): a frame of the liveness challenge, at most
   * `CHALLENGE_FRAME_LIMITS.max_bytes`, refused and normalized like the other images, stored in place of an earlier
   * frame of the same index with when it was taken.
   */
  async frame(caller: InternalCaller, sessionId: string, index: string, offset: string, body: Readable): Promise<CaptureFrameStored> {
    const artifact = frameArtifact(index);
    if (!artifact || !isId('session', sessionId)) throw DomainError.notFound();
    const offsetMs = /^[0-9]{1,7}$/.test(offset) ? Number(offset) : null;
    if (offsetMs === null) {
      throw DomainError.validation([{ code: 'custom', message: 'offset_ms must be an integer from 0 to 9999999: when the frame was taken, in milliseconds from the first frame', path: ['offset_ms'] }]);
    }
    return this.admission.run(async () => {
      const { bytes, format } = await readImageBody(body, 'frame', caller.deadline, CHALLENGE_FRAME_LIMITS.max_bytes);
      const img = await this.decoder.normalized(bytes, format, 'frame', caller.deadline);
      await this.store$(caller.principal, sessionId, { artifact, width: img.width, height: img.height, offset_ms: offsetMs }, img.jpeg);
      return { object: 'capture_frame' as const, index: Number(index), offset_ms: offsetMs, width: img.width, height: img.height };
    }, caller.deadline);
  }

  /** Stores an upload's bytes and records it in place of an earlier one of its kind (whose bytes go). */
  private async store$(owner: Principal, sessionId: string, u: Pick<UploadRow, 'artifact' | 'width' | 'height' | 'offset_ms'>, jpeg: Buffer): Promise<void> {
    const blob = await this.store.put(jpeg);
    let replaced: string | null;
    try {
      replaced = await this.uploads.put(owner, sessionId, { ...u, ...blob });
    } catch (e) {
      await this.store.delete([blob.storage_key]).catch(() => undefined);
      throw e;
    }
    if (replaced) await this.store.delete([replaced]);
  }

  /**
   * `evidence.capture.check.v1` (the gateway, for a client secret): one stored upload checked in the reading pool
   * (docs/capture.md, "Checking an image"). Changes nothing; an image not uploaded is 404.
   */
  async check(p: Principal, req: CaptureCheckRequest, deadline: number): Promise<CaptureImageCheck> {
    const artifact = req?.artifact;
    if (typeof artifact !== 'string' || !isCaptureImage(artifact) || !isId('session', req.session_id)) throw DomainError.notFound();
    const documentType = imageCheckBody(req.body);
    const row = (await this.uploads.list(p, req.session_id)).find((u) => u.artifact === artifact);
    const blob = row && (await this.store.open(row.storage_key));
    if (!blob) throw new DomainError('resource_not_found', { message: `No ${artifact} image is uploaded for this capture.`, param: 'artifact' });
    const c = await this.reader.inspect(await collect(blob.stream), artifact, documentType, deadline);
    const message = c.usable ? null : artifact === 'selfie' ? (RETAKE[c.reasons[0] ?? ''] ?? RETAKE.no_face!) : c.reasons[0] === 'blurred' ? RETAKE.blurred! : DOCUMENT_RETAKE;
    return { object: 'capture_image_check', artifact, usable: c.usable, reasons: [...c.reasons], message };
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
    const frameBytes = new Map<ChallengeFrameArtifact, Buffer>();
    for (const u of rows) {
      const blob = await this.store.open(u.storage_key);
      if (!blob) continue;
      if (isCaptureImage(u.artifact)) bytes.set(u.artifact, await collect(blob.stream));
      else frameBytes.set(u.artifact, await collect(blob.stream));
    }
    const front = bytes.get('front');
    if (!front) throw DomainError.validation([{ code: 'custom', message: 'the capture has no image of the document’s front', path: ['front'] }]);
    const selfie = bytes.get('selfie') ?? null;
    const challenge = Array.isArray(req.challenge) ? req.challenge.filter((s): s is ChallengeStep => (CHALLENGE_STEPS as readonly unknown[]).includes(s)) : [];
    // the frames in the order they were taken (their index is the page's order)
    const frames = CHALLENGE_FRAME_ARTIFACTS.flatMap((a) => {
      const image = frameBytes.get(a);
      const row = rows.find((r) => r.artifact === a);
      return image && row ? [{ image, offsetMs: row.offset_ms ?? 0 }] : [];
    });
    const v: Verification = await this.reader.verify({ front, back: bytes.get('back') ?? null, selfie, frames, challenge }, deadline, req.thresholds);

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
        fresh.push({ artifact, ...(await this.store.put(b)) });
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
      selfie_fingerprint: v.selfieFingerprint,
    };
  }
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}
