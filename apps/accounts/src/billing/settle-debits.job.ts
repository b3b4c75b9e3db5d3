import { Inject, Injectable } from '@nestjs/common';
import { SUBJECTS, type Principal } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import type { Region } from '@verity/keys';
import { CONFIG, JobHost, LOGGER, type Logger, RpcClient, Sweep } from '@verity/platform';
import type { AccountsConfig } from '../config.js';
import { billingOf, OrganizationsRepository } from '../organizations/organizations.repository.js';
import { WalletDebitsRepository, type OpenDebit } from './wallet-debits.repository.js';

/** How often the sweep runs (and once at start). */
const SWEEP_EVERY_MS = 60_000;
/** Debits read per page. */
const PAGE = 100;
/** How long the sweep waits for the sessions service about one debit. */
const EXISTS_TIMEOUT_MS = 5000;

export interface SweepResult {
  settled: number;
  refunded: number;
  /** Left open: the sessions service did not answer (or the debit was closed meanwhile); the next pass asks again. */
  open: number;
}

/**
 * Closes the debits a create left open: a debit is settled by the sweep once its session is seen, or refunded
 * when its session never came (sessions crashed between the debit and the insert, or the debit committed after
 * the create gave up). It looks only at debits older than `BILLING_SETTLE_AFTER_MS`, far past any create's
 * deadline, after which a session that does not exist never will. A debit whose answer is unknown (sessions
 * not answering) stays open for the next pass; each debit is closed once, whichever replica gets there first.
 */
@Injectable()
export class SettleDebitsJob extends JobHost {
  protected readonly runner: Sweep;

  constructor(
    private readonly debits: WalletDebitsRepository,
    private readonly orgs: OrganizationsRepository,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(CONFIG) private readonly cfg: AccountsConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    super();
    this.runner = new Sweep(
      'billing settle sweep',
      async () => {
        const r = await this.sweep();
        if (r.settled + r.refunded > 0 || r.open > 0) this.log.info(r, 'billing settle sweep');
      },
      { everyMs: SWEEP_EVERY_MS, log },
    );
  }

  /** One pass over the debits open since before `now - BILLING_SETTLE_AFTER_MS`. */
  async sweep(now = new Date()): Promise<SweepResult> {
    const before = new Date(now.getTime() - this.cfg.BILLING_SETTLE_AFTER_MS);
    const result: SweepResult = { settled: 0, refunded: 0, open: 0 };
    let after: OpenDebit | null = null;
    for (;;) {
      const page = await this.debits.open(before, after, PAGE);
      for (const d of page) result[await this.close(d)] += 1;
      if (page.length < PAGE) return result;
      after = page[page.length - 1]!;
    }
  }

  private async close(d: OpenDebit): Promise<keyof SweepResult> {
    const principal = await this.principalOf(d);
    if (!principal) return 'open';
    let exists: boolean;
    try {
      ({ exists } = await this.rpc.call(SUBJECTS.sessionsExists, { session_id: d.session_id }, { principal, requestId: 'req_billing_sweep', timeoutMs: EXISTS_TIMEOUT_MS }));
    } catch (err) {
      if (!(err instanceof DomainError) || err.code !== 'service_unavailable') this.log.warn({ err, session_id: d.session_id }, 'sessions.exists failed');
      return 'open';
    }
    if (exists) return (await this.debits.settle(d.session_id)) ? 'settled' : 'open';
    return (await this.debits.refund(d.session_id, d.org_id)) ? 'refunded' : 'open';
  }

  /** The creating key's principal, as far as sessions needs it: its organization, live mode. */
  private async principalOf(d: OpenDebit): Promise<Principal | null> {
    const org = await this.orgs.find(d.org_id);
    if (!org) return null;
    return {
      org_id: org.id,
      key_id: d.key_id,
      key_type: 'sk',
      mode: 'live',
      region: this.cfg.REGION as Region,
      scopes: ['sessions:read'],
      tier: org.tier,
      custom_limits: org.custom_limits,
      billing: billingOf(org),
    };
  }
}
