import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { newId } from '@verity/keys';
import { CONFIG, inStoredTrace, LOGGER, metrics, retryDelay, type Logger, type RetryPolicy } from '@verity/platform';
import { DestinationGuard, ReceiverClient } from '@verity/ssrf';
import { LRUCache } from 'lru-cache';
import type { WebhookConfig } from '../config.js';
import { SecretBox } from '../subscriptions/secret-box.js';
import type { ClaimedAttempt } from './dispatch.job.js';
import { Ledger } from './ledger.js';
import { ATTEMPT_TIMEOUT_MS } from './retry-schedule.js';
import { signedHeaders, signingKey } from './signing.js';

const USER_AGENT = 'Verity-Webhooks/1.0 (+https://docs.verity.dev/webhooks)';

/**
 * Stage 3, the sender: signs one claimed attempt with its subscription's secret(s), POSTs it and hands the outcome
 * to the ledger, with the delay before the next attempt (the retry schedule), if any. `send` resolves once the
 * request is over; the outcome is written with the ledger's next batch.
 */
@Injectable()
export class Sender implements OnApplicationShutdown {
  private readonly client: ReceiverClient;
  private readonly schedule: RetryPolicy;
  /** Signing keys by sealed secret: opened and decoded once. */
  private readonly keys = new LRUCache<string, Buffer>({ max: 10_000 });
  private readonly recording = new Set<Promise<void>>();

  constructor(
    private readonly ledger: Ledger,
    private readonly box: SecretBox,
    guard: DestinationGuard,
    @Inject(CONFIG) cfg: WebhookConfig,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    this.client = new ReceiverClient(guard, ATTEMPT_TIMEOUT_MS, USER_AGENT);
    this.schedule = cfg.WEBHOOK_RETRY_SCHEDULE;
  }

  /** One attempt, in a span of the trace its event arrived with (tracing on). */
  send(claim: ClaimedAttempt): Promise<void> {
    const attributes = { 'verity.webhook.delivery_id': claim.deliveryId, 'verity.webhook.attempt': claim.attempt, 'verity.event_id': claim.eventId };
    return inStoredTrace(claim.traceContext, 'webhook.deliver', attributes, () => this.attempt(claim));
  }

  private async attempt(claim: ClaimedAttempt): Promise<void> {
    const keys = [this.key(claim.secretSealed, claim.subscriptionId)];
    if (claim.previousSecretSealed) keys.push(this.key(claim.previousSecretSealed, claim.subscriptionId));
    const headers = signedHeaders(keys, claim.eventId, Math.floor(Date.now() / 1000), claim.body);
    const result = await this.client.post(claim.url, headers, claim.body);
    // a refused destination is not retried: the address check would refuse it again
    const retryDelayMs = result.ok || result.errorCode === 'blocked_destination' ? null : retryDelay(this.schedule, claim.attemptInRound);
    metrics.webhookDeliveries.inc({ outcome: result.ok ? 'delivered' : retryDelayMs !== null ? 'retry_scheduled' : 'failed' });
    metrics.webhookDuration.observe(result.latencyMs / 1000);
    const p: Promise<void> = this.ledger
      .record({
        attempt_id: newId('webhookAttempt'),
        delivery_id: claim.deliveryId,
        round: claim.round,
        attempt: claim.attempt,
        status: result.ok ? 'succeeded' : 'failed',
        http_status: result.httpStatus,
        latency_ms: result.latencyMs,
        error_code: result.errorCode,
        retry_ms: retryDelayMs,
      })
      // not recorded (Postgres away): the lease runs out and the next claim logs the attempt as interrupted
      .catch((err: unknown) => this.log.warn({ err, delivery: claim.deliveryId }, 'attempt outcome not recorded; it will be logged as interrupted'))
      .finally(() => this.recording.delete(p));
    this.recording.add(p);
  }

  /** Waits for the outcomes handed to the ledger to be written. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.recording]);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close().catch(() => undefined);
  }

  private key(sealed: string, subscriptionId: string): Buffer {
    let k = this.keys.get(sealed);
    if (k === undefined) {
      k = signingKey(this.box.open(sealed, subscriptionId));
      this.keys.set(sealed, k);
    }
    return k;
  }
}
