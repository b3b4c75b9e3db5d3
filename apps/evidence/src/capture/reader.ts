import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Admission, observeReadingPool } from '@verity/platform';
import { READER_BUSY_MESSAGE, ReadingPool, type DocumentKind, type ImageCheck, type Thresholds, type Verification, type VerifyInput } from '@verity/reading';
import type { EvidenceConfig } from '../config.js';

/**
 * The region's reader for live runs: a pool of threads with the document and face engines loaded, behind an
 * admission (a run that cannot get a thread before its caller's deadline is refused with 503 and retried by its
 * job), judging faces with the configured thresholds.
 */
@Injectable()
export class CaptureReader implements OnApplicationShutdown {
  private constructor(
    private readonly pool: ReadingPool,
    private readonly admission: Admission,
    private readonly thresholds: Thresholds,
  ) {}

  /** Starts the pool and (READING_WARM) loads every thread's engines before the service takes its first request. */
  static async start(cfg: EvidenceConfig): Promise<CaptureReader> {
    if (cfg.FACE_MATCH_REVIEW_THRESHOLD > cfg.FACE_MATCH_THRESHOLD || cfg.LIVENESS_REVIEW_THRESHOLD > cfg.LIVENESS_THRESHOLD || cfg.DOCUMENT_COPY_REVIEW_THRESHOLD > cfg.DOCUMENT_COPY_THRESHOLD) {
      throw new Error('a review threshold is above its threshold (FACE_MATCH_REVIEW_THRESHOLD, LIVENESS_REVIEW_THRESHOLD, DOCUMENT_COPY_REVIEW_THRESHOLD)');
    }
    const pool = await ReadingPool.start({ threads: cfg.READING_THREADS, faces: true, warm: cfg.READING_WARM });
    observeReadingPool(pool);
    // a run waits as long as its caller (the sessions job, whose slots bound how many wait); never past that
    return new CaptureReader(pool, new Admission(cfg.READING_THREADS, Infinity, Infinity, READER_BUSY_MESSAGE), {
      faceMatchPass: cfg.FACE_MATCH_THRESHOLD,
      faceMatchReview: cfg.FACE_MATCH_REVIEW_THRESHOLD,
      livenessPass: cfg.LIVENESS_THRESHOLD,
      livenessReview: cfg.LIVENESS_REVIEW_THRESHOLD,
      faceMinSize: cfg.FACE_MIN_SIZE,
      faceMaxAngle: cfg.FACE_MAX_ANGLE,
      eyesOpen: cfg.EYES_OPEN_THRESHOLD,
      sharpness: cfg.SHARPNESS_THRESHOLD,
      documentCopy: cfg.DOCUMENT_COPY_THRESHOLD,
      documentCopyReview: cfg.DOCUMENT_COPY_REVIEW_THRESHOLD,
      challengeTurn: cfg.CHALLENGE_TURN_DEGREES,
      challengeFrameMatch: cfg.CHALLENGE_FRAME_MATCH_THRESHOLD,
    });
  }

  /**
   * `overrides` are a workflow template's thresholds (validated at save): each one the configuration has replaces it;
   * anything else is ignored, so the names are never listed here.
   */
  verify(input: VerifyInput, deadline: number, overrides?: Record<string, number>): Promise<Verification> {
    const thresholds: Thresholds = { ...this.thresholds };
    for (const [name, value] of Object.entries(overrides ?? {})) {
      if (Object.hasOwn(thresholds, name) && typeof value === 'number' && Number.isFinite(value)) (thresholds as unknown as Record<string, number>)[name] = value;
    }
    return this.admission.run(() => this.pool.verify(input, thresholds), deadline);
  }

  /** One capture image checked on its own (the applicant is waiting: it takes a thread like a run). */
  inspect(image: Buffer, artifact: 'front' | 'back' | 'selfie', documentKind: DocumentKind | null, deadline: number): Promise<ImageCheck> {
    return this.admission.run(() => this.pool.inspect(image, artifact, documentKind, this.thresholds), deadline);
  }

  /** After the internal HTTP server and NATS have let requests in flight finish. */
  async onApplicationShutdown(): Promise<void> {
    await this.pool.close();
  }
}
