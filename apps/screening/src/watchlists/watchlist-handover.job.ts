import { Inject, Injectable } from '@nestjs/common';
import { SUBJECTS } from '@verity/contracts';
import { newId } from '@verity/keys';
import { JobHost, LOGGER, type Logger, RpcClient, Sweep } from '@verity/platform';
import { WatchlistsRepository } from './watchlists.repository.js';

/** How often versions not yet handed over are looked for (a commit also starts a pass at once). */
const EVERY_MS = 30_000;
const CALL_TIMEOUT_MS = 5000;
const BATCH = 20;

/**
 * Monitoring, screening's half (docs/watchlist.md, "Monitoring"; docs/decisions.md): each version that became
 * current is handed to the sessions service, which owns the sessions and screens its approved live ones against it
 * again. The version row is the durable record: `monitor_notified_at` is set only once sessions answered, so a
 * commit followed by a crash, or sessions not answering, is handed over on a later pass. Sessions takes a version
 * once however often it is told. A `Sweep` of the platform's job helper.
 */
@Injectable()
export class WatchlistHandoverJob extends JobHost {
  protected readonly runner: Sweep;

  constructor(
    private readonly repo: WatchlistsRepository,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(LOGGER) log: Logger,
  ) {
    super();
    this.runner = new Sweep('handing watchlist versions to monitoring', () => this.pass(), { everyMs: EVERY_MS, log });
  }

  /** Hands every current version not yet handed over to sessions, oldest first; stops at the first failure. */
  async pass(): Promise<void> {
    for (;;) {
      const due = await this.repo.toMonitor(BATCH);
      for (const v of due) {
        if (this.runner.stopping) return;
        await this.rpc.call(
          SUBJECTS.sessionsWatchlistMonitor,
          { list: v.list, version: v.version, committed_at: v.committed_at.toISOString() },
          { principal: null, requestId: newId('request'), timeoutMs: CALL_TIMEOUT_MS },
        );
        await this.repo.monitorNotified(v.version);
      }
      if (due.length < BATCH) return;
    }
  }
}
