import { Inject, Injectable } from '@nestjs/common';
import { CONFIG, JobHost, LOGGER, type Logger, metrics, Sweep } from '@verity/platform';
import { ARTIFACT_STORE, drainDeletions, type ArtifactStore } from '../artifacts/artifact-store.js';
import type { RetentionConfig } from '../config.js';
import { StoredImagesRepository } from '../privacy/stored-images.repository.js';

/** The first pass after start waits this long (or the interval, when shorter): the service settles in first. */
const FIRST_PASS_AFTER_MS = 10_000;
/** Pause between two batches: other statements on the same rows and the pool get their turn. */
const BATCH_PAUSE_MS = 50;

export interface RetentionCounts {
  artifacts: number;
  uploads: number;
  blobs: number;
}

/**
 * Retention of stored images (docs/privacy.md): artifacts and capture uploads stored more than
 * `EVIDENCE_RETENTION_DAYS` days ago are deleted with their bytes, in batches of `EVIDENCE_RETENTION_BATCH`
 * rows (each a short transaction that skips rows another replica holds), every
 * `EVIDENCE_RETENTION_INTERVAL_MS` and once shortly after start. Reads of them then answer
 * artifact_not_available. Bytes in an object store are deleted from it once their rows' deletion commits (and
 * again on the next pass when the store could not be reached). On shutdown the current batch finishes and no other
 * starts.
 */
@Injectable()
export class RetentionJob extends JobHost {
  protected readonly runner: Sweep;
  private running: Promise<RetentionCounts> | null = null;
  /** Deleted by this process since it started (the retention count; also logged per pass). */
  readonly deleted: RetentionCounts = { artifacts: 0, uploads: 0, blobs: 0 };

  constructor(
    private readonly images: StoredImagesRepository,
    @Inject(ARTIFACT_STORE) private readonly store: ArtifactStore,
    @Inject(CONFIG) private readonly cfg: RetentionConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    super();
    this.runner = new Sweep(
      'evidence retention',
      async () => {
        const r = await this.sweep();
        if (r.artifacts + r.uploads + r.blobs > 0) log.info({ ...r, retention_days: cfg.EVIDENCE_RETENTION_DAYS }, 'evidence retention deleted images');
      },
      { everyMs: cfg.EVIDENCE_RETENTION_INTERVAL_MS, firstAfterMs: Math.min(FIRST_PASS_AFTER_MS, cfg.EVIDENCE_RETENTION_INTERVAL_MS), log },
    );
  }

  override async beforeApplicationShutdown(): Promise<void> {
    await super.beforeApplicationShutdown();
    await this.running?.catch(() => undefined);
  }

  /** One pass: every due row, batch by batch (a pass already running in this process is joined). */
  sweep(): Promise<RetentionCounts> {
    this.running ??= this.pass().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async pass(): Promise<RetentionCounts> {
    const { EVIDENCE_RETENTION_DAYS: days, EVIDENCE_RETENTION_BATCH: batch } = this.cfg;
    const out: RetentionCounts = { artifacts: 0, uploads: 0, blobs: 0 };
    for (const source of ['artifact', 'upload'] as const) {
      for (;;) {
        if (this.runner.stopping) return out;
        const r = await this.images.expire(source, days, batch);
        this.count(out, source === 'artifact' ? 'artifacts' : 'uploads', r.rows);
        this.count(out, 'blobs', r.blobs);
        if (r.rows < batch) break;
        await pause(BATCH_PAUSE_MS);
      }
    }
    for (;;) {
      if (this.runner.stopping) return out;
      const n = await this.images.expireOrphanBlobs(days, batch);
      this.count(out, 'blobs', n);
      if (n < batch) break;
      await pause(BATCH_PAUSE_MS);
    }
    // the objects of the rows deleted above (and any an earlier erasure or pass left queued) leave the object store
    await drainDeletions(this.store);
    return out;
  }

  private count(out: RetentionCounts, k: keyof RetentionCounts, n: number): void {
    out[k] += n;
    this.deleted[k] += n;
    if (n > 0) metrics.retentionDeleted.inc({ kind: k }, n);
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
