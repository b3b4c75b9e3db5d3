import { Inject, Injectable } from '@nestjs/common';
import { CONFIG, JobHost, LOGGER, type Logger, Sweep } from '@verity/platform';
import type { SessionsConfig } from '../config.js';
import { SessionsRepository } from '../sessions/sessions.repository.js';

/** Expired capture links settled per statement. */
const EXPIRY_BATCH = 500;

/**
 * Live sessions whose link ran out before their applicant submitted become `expired` (a reserved event, not
 * delivered): a sweep every `JOBS_POLL_MS` in every replica, each statement settling up to `EXPIRY_BATCH` sessions
 * no other replica is settling (`FOR UPDATE SKIP LOCKED`). A submitted capture is never expired under its run.
 */
@Injectable()
export class CaptureExpiryJob extends JobHost {
  protected readonly runner: Sweep;

  constructor(
    private readonly repo: SessionsRepository,
    @Inject(CONFIG) private readonly cfg: SessionsConfig,
    @Inject(LOGGER) log: Logger,
  ) {
    super();
    this.runner = new Sweep('expiring capture links', () => this.expire(), { everyMs: cfg.JOBS_POLL_MS, firstAfterMs: cfg.JOBS_POLL_MS, log });
  }

  async expire(): Promise<void> {
    while (!this.runner.stopping && (await this.repo.expireDue(EXPIRY_BATCH)) === EXPIRY_BATCH);
  }
}
