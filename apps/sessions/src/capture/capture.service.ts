import { Inject, Injectable } from '@nestjs/common';
import {
  capturePrincipal,
  CAPTURE_IMAGES,
  CAPTURE_STEPS,
  CHALLENGE_FRAME_LIMITS,
  type Acquisition,
  type Capture,
  type CaptureCaller,
  type CaptureConnection,
  type CaptureGetRequest,
  type CaptureImage,
  type CaptureImageStoredRequest,
  type CaptureResolveReply,
  type CaptureResolveRequest,
  type CaptureSkipRequest,
  type CaptureStep,
  type CaptureSubmitRequest,
  type CheckType,
} from '@verity/contracts';
import { parseSignals, SIGNAL_KEYS } from '@verity/device-intel';
import { DomainError, parseBody, type Issue } from '@verity/errors';
import { captureSubmitBody } from '@verity/api-schema';
import type { Region } from '@verity/keys';
import { assertBeforeDeadline, CONFIG, type Queryable, type RpcContext } from '@verity/platform';
import type { SessionsConfig } from '../config.js';
import { captureChallenge } from './challenge.js';
import { LiveRunJob } from '../runs/live-run.job.js';
import { Outbox } from '../events/outbox.js';
import { SessionsRepository, type CaptureContext, type SessionRow } from '../sessions/sessions.repository.js';

/** The steps a workflow's capture takes (docs/capture.md): the document with an identity check, a selfie with a face check. */
export function stepsOf(checks: readonly CheckType[]): CaptureStep[] {
  const identity = checks.some((c) => c === 'document' || c === 'face_match' || c === 'liveness');
  const face = checks.includes('face_match') || checks.includes('liveness');
  return CAPTURE_STEPS.filter((s) => (s === 'selfie' ? face : identity));
}

/** A capture that may still take images and be submitted, or the refusal that says why not. */
function openness(row: SessionRow, now: number): 'open' | 'expired' | 'closed' {
  if (row.status === 'expired') return 'expired';
  if ((row.status !== 'pending' && row.status !== 'in_progress') || row.capture_submitted_at) return 'closed';
  if (!row.capture_expires_at || row.capture_expires_at.getTime() <= now) return 'expired';
  return 'open';
}

function assertOpen(row: SessionRow): void {
  const state = openness(row, Date.now());
  if (state === 'expired') throw new DomainError('capture_expired');
  if (state === 'closed') {
    throw new DomainError('invalid_state_transition', {
      message: row.capture_submitted_at ? 'This verification was already submitted.' : `This verification is ${row.status.replace('_', ' ')}: it takes no more captures.`,
      details: { status: row.status },
    });
  }
}

function seen(c: CaptureConnection): NonNullable<CaptureContext['start']> {
  return { ip: c.ip, user_agent: c.user_agent, at: new Date().toISOString() };
}

/**
 * The capture API's side in sessions (docs/capture.md): a client secret resolves to its session; the capture is read,
 * its images noted (the first moves the session `pending` → `in_progress`), submitted (a live run is queued) or
 * skipped. The images themselves live in the evidence service; what the capture needs of them (which are there, their
 * sizes, the challenge frames received) sessions keeps from each image-stored notice, so it never asks evidence back.
 * Every refusal changes nothing.
 */
@Injectable()
export class CaptureService {
  private readonly region: Region;
  private readonly secretKey: string;

  constructor(
    private readonly repo: SessionsRepository,
    private readonly outbox: Outbox,
    private readonly liveRuns: LiveRunJob,
    @Inject(CONFIG) cfg: SessionsConfig,
  ) {
    this.region = cfg.REGION as Region;
    this.secretKey = cfg.CAPTURE_SECRET_KEY;
  }

  /** `sessions.capture.resolve.v1` */
  async resolve(req: CaptureResolveRequest): Promise<CaptureResolveReply> {
    const hash = typeof req?.secret_hash === 'string' && /^[0-9a-f]{64}$/.test(req.secret_hash) ? req.secret_hash : null;
    const row = hash ? await this.repo.findByCaptureHash(hash) : null;
    if (!row || !row.capture_expires_at) throw new DomainError('invalid_capture_token');
    return {
      session_id: row.id,
      org_id: row.org_id,
      mode: row.mode,
      state: openness(row, Date.now()),
      status: row.status,
      expires_at: row.capture_expires_at.toISOString(),
    };
  }

  /** `sessions.capture.get.v1`: the capture; the first request from a browser notes where it came from. */
  async get(req: CaptureGetRequest): Promise<Capture> {
    const row = await this.repo.db.tx(async (q) => {
      const r = await this.locked(q, req.caller);
      assertOpen(r);
      await this.noteStart(q, r, req.connection);
      return r;
    });
    return this.capture(row);
  }

  /**
   * `sessions.capture.image-stored.v1`: evidence stored an image or a challenge frame (as its reply to the gateway
   * says); the capture records it, and the first image starts the verification.
   */
  async imageStored(req: CaptureImageStoredRequest): Promise<Capture> {
    const stored = storedOf(req.stored);
    const row = await this.repo.db.tx(async (q) => {
      const r = await this.locked(q, req.caller);
      assertOpen(r);
      await this.noteStart(q, r, req.connection);
      const noted = await this.repo.noteStored(q, r.id, stored);
      if ('frame' in stored || noted.status !== 'pending') return noted;
      const started = await this.repo.changeStatus(q, r.id, ['pending'], { status: 'in_progress', outcome: null, now: new Date() });
      return started ?? noted;
    });
    return this.capture(row);
  }

  /**
   * `sessions.capture.submit.v1`: checks the body and that every required image is there, marks the capture
   * submitted (the link is used from now on) and queues the live run, in one transaction.
   */
  async submit(req: CaptureSubmitRequest, ctx: RpcContext): Promise<Capture> {
    const body = submitBody(req.body);
    const before = await this.locatedRow(req.caller);
    assertOpen(before);
    const images = uploadsOf(before).images;
    const steps = stepsOf(before.checks.map((c) => c.type));
    const missing: Issue[] = [];
    if (steps.includes('document_front') && !images.front) missing.push({ code: 'custom', message: 'front is required: upload the front of the document first', path: ['front'] });
    if (steps.includes('selfie') && !images.selfie) missing.push({ code: 'custom', message: 'selfie is required: upload a selfie first', path: ['selfie'] });
    if (missing.length) throw DomainError.validation(missing);
    if (body.acquisition === 'upload' && !before.photo_upload) {
      throw DomainError.validation([{ code: 'custom', message: 'acquisition upload is offered only when the workflow template turns on photo_upload', path: ['acquisition'] }]);
    }
    const row = await this.repo.db.tx(async (q) => {
      const r = await this.locked(q, req.caller);
      assertOpen(r);
      const now = new Date();
      if (r.status === 'pending') await this.repo.changeStatus(q, r.id, ['pending'], { status: 'in_progress', outcome: null, now });
      await this.repo.noteCapture(q, r.id, { submit: seen(req.connection), device_id: req.connection.device_id, signals: body.signals }, true);
      if (req.connection.device_id) await this.repo.noteDevice(q, r, req.connection.device_id, r.id, req.connection.ip);
      const submitted = await this.repo.submitCapture(q, r.id, body.acquisition, now);
      await this.repo.addJob(q, 'live_run', r.id, capturePrincipal(r, this.region));
      assertBeforeDeadline(ctx);
      return submitted;
    });
    this.liveRuns.kick();
    return this.capture(row);
  }

  /** `sessions.capture.skip.v1`: the applicant gives up at a step; the session ends `skipped` (no event is delivered). */
  async skip(req: CaptureSkipRequest, ctx: RpcContext): Promise<Capture> {
    const step = (req.body as { step?: unknown } | null)?.step;
    const row = await this.repo.db.tx(async (q) => {
      const r = await this.locked(q, req.caller);
      if (!(CAPTURE_STEPS as readonly unknown[]).includes(step) || !stepsOf(r.checks.map((c) => c.type)).includes(step as CaptureStep)) {
        throw DomainError.validation([{ code: 'invalid_enum_value', message: `step must be one of the capture's steps: ${stepsOf(r.checks.map((c) => c.type)).join(', ') || 'none'}`, path: ['step'] }]);
      }
      assertOpen(r);
      const now = new Date();
      const skipped = await this.repo.changeStatus(q, r.id, ['pending', 'in_progress'], { status: 'skipped', outcome: null, now });
      await this.outbox.add(q, skipped!, now); // `skipped` delivers no event: the type is reserved
      assertBeforeDeadline(ctx);
      return skipped!;
    });
    return this.capture(row);
  }

  private async locked(q: Queryable, c: CaptureCaller): Promise<SessionRow> {
    const r = await this.repo.lock(q, c, c.session_id);
    if (!r) throw new DomainError('invalid_capture_token');
    return r;
  }

  private async locatedRow(c: CaptureCaller): Promise<SessionRow> {
    const r = await this.repo.find(c, c.session_id);
    if (!r) throw new DomainError('invalid_capture_token');
    return r;
  }

  /** The first connection of a capture (where it started), and the device it came from. */
  private async noteStart(q: Queryable, r: SessionRow, c: CaptureConnection): Promise<void> {
    if (r.capture_context.start && (!c.device_id || r.capture_context.device_id)) return;
    await this.repo.noteCapture(q, r.id, { start: seen(c), ...(c.device_id ? { device_id: c.device_id } : {}) }, false);
    if (c.device_id) await this.repo.noteDevice(q, r, c.device_id, r.id, c.ip);
  }

  private capture(row: SessionRow): Capture {
    const uploaded = uploadsOf(row);
    return {
      object: 'capture',
      session_id: row.id,
      status: row.status,
      steps: stepsOf(row.checks.map((c) => c.type)),
      photo_upload: row.photo_upload,
      // measured for device intelligence, and for a `device` check, which judges the same signals
      device_intelligence: row.device_intelligence || row.checks.some((c) => c.type === 'device'),
      expires_at: row.capture_expires_at!.toISOString(),
      images: uploaded.images,
      submitted_at: row.capture_submitted_at?.toISOString() ?? null,
      challenge: captureChallenge(this.secretKey, row.id, row.checks.map((c) => c.type), uploaded.frames),
    };
  }
}

/** What is uploaded so far, as the capture recorded it: each image's size (null before it), and the frames received. */
export function uploadsOf(row: Pick<SessionRow, 'capture_images' | 'capture_frames'>): { images: Capture['images']; frames: number } {
  const i = row.capture_images;
  return { images: { front: i.front ?? null, back: i.back ?? null, selfie: i.selfie ?? null }, frames: row.capture_frames.length };
}

/** What an image-stored notice records; a notice of another shape is refused. */
function storedOf(s: CaptureImageStoredRequest['stored'] | undefined): { artifact: CaptureImage; width: number; height: number } | { frame: number } {
  const size = (n: unknown) => Number.isSafeInteger(n) && (n as number) > 0;
  if (s?.object === 'capture_image' && (CAPTURE_IMAGES as readonly unknown[]).includes(s.artifact) && size(s.width) && size(s.height)) {
    return { artifact: s.artifact, width: s.width, height: s.height };
  }
  if (s?.object === 'capture_frame' && Number.isSafeInteger(s.index) && s.index >= 0 && s.index < CHALLENGE_FRAME_LIMITS.max) return { frame: s.index };
  throw new DomainError('internal_error', { message: 'an image-stored notice names an image with its size, or a frame by its index' });
}

/** What the schema checks of a submit's body: an object, and `acquisition` (unknown members are ignored). */
const submitAcquisition = captureSubmitBody.pick({ acquisition: true });

/**
 * The body of a submit: `acquisition` (default `camera`) and `signals` (what the page measured; unknown keys are
 * ignored, a known key of the wrong shape is refused: libs/domain/device-intel).
 */
function submitBody(body: unknown): { acquisition: Acquisition; signals: Record<string, unknown> | null } {
  const { acquisition } = parseBody(submitAcquisition, body ?? {});
  const signals = (body as { signals?: unknown } | null | undefined)?.signals;
  parseSignals(signals);
  // kept as sent, known keys only: the live run reads them again
  const known = signals && typeof signals === 'object' ? Object.fromEntries(Object.entries(signals).filter(([k]) => (SIGNAL_KEYS as readonly string[]).includes(k))) : null;
  return { acquisition: acquisition ?? 'camera', signals: known };
}
