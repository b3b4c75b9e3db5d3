import { Inject, Injectable } from '@nestjs/common';
import { CONFIG, JobHost, LOGGER, type Logger, Sweep } from '@verity/platform';
import type { ScreeningConfig } from '../config.js';
import { WatchlistsRepository } from './watchlists.repository.js';

/** How often retired and abandoned versions are looked for (a commit or an abort also starts a pass at once). */
const PURGE_EVERY_MS = 60_000;

/**
 * Clearing old list versions (docs/watchlist.md): a load whose loader went silent for `WATCHLIST_LOAD_IDLE_TIMEOUT`
 * is abandoned, and the rows of retired and abandoned versions are deleted a chunk at a time. A `Sweep` of the
 * platform's job helper, first 5 s after start.
 */
@Injectable()
export class WatchlistPurgeJob extends JobHost {
  protected readonly runner: Sweep;

  constructor(
    private readonly repo: WatchlistsRepository,
    @Inject(CONFIG) private readonly cfg: ScreeningConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    super();
    this.runner = new Sweep('clearing old watchlist versions', () => this.purge(), { everyMs: PURGE_EVERY_MS, firstAfterMs: 5000, log });
  }

  /** One pass of clearing: idle loads abandoned, then the rows of retired and abandoned versions deleted chunk by chunk. */
  async purge(): Promise<void> {
    const idle = await this.repo.abandonIdle(this.cfg.WATCHLIST_LOAD_IDLE_TIMEOUT);
    if (idle > 0) this.log.warn({ loads: idle }, 'watchlist loads abandoned: no batch for WATCHLIST_LOAD_IDLE_TIMEOUT');
    for (let v = await this.repo.nextToPurge(); v !== null && !this.runner.stopping; v = await this.repo.nextToPurge()) {
      while ((await this.repo.purgeChunk(v)) > 0 && !this.runner.stopping);
    }
  }
}
