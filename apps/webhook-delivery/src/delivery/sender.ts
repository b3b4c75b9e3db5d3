import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { Logger } from '@verity/platform';
import type { AttemptResult } from './receiver.client.js';

/** One attempt to send: the stored body, signed at sending with `keys` (the current secret's first). */
export interface Attempt {
  url: string;
  eventId: string;
  body: string;
  keys: Buffer[];
}

export interface SenderOptions {
  allowPrivateNetworks: boolean;
  /** `WEBHOOK_DNS_SERVERS`: name servers of the SSRF guard; empty for the operating system's resolver. */
  dnsServers: string;
  timeoutMs: number;
}

/** Requests to the thread: `[id, attempt]` each, or `close`. */
export type ToSender = Array<[number, Attempt]> | 'close';
/** Results from the thread: `[id, result]` each. */
export type FromSender = Array<[number, AttemptResult]>;

/** The result of an attempt whose thread died before it answered: the request may have left, so it counts as failed. */
const LOST: AttemptResult = { ok: false, httpStatus: null, latencyMs: 0, errorCode: 'connection_error' };

/**
 * The receiver client on a thread of its own (`sender.thread.ts`). The service's main thread reads the event
 * stream and writes the ledger; signing and the HTTPS exchanges with receivers (TLS, HTTP parsing, the SSRF
 * guard's lookups, each attempt's timer) run beside it on another core, and a response is read when it
 * arrives rather than after whatever batch the main thread is busy with: with a fixed number of attempts in
 * flight, that wait was time each slot stood idle. Requests and results cross in batches, one message per
 * turn of each event loop. Should the thread die, its unanswered attempts count as failed (they are retried)
 * and a new thread takes over.
 */
export class SenderThread {
  private thread!: Worker;
  private readonly pending = new Map<number, (r: AttemptResult) => void>();
  private outbox: Array<[number, Attempt]> = [];
  private nextId = 1;
  private closing = false;
  private closed: Promise<void> | null = null;

  constructor(
    private readonly opts: SenderOptions,
    private readonly log: Logger,
  ) {
    this.spawn();
  }

  /** Signs and POSTs one attempt; never throws: a failure is an attempt result with its error code. */
  send(attempt: Attempt): Promise<AttemptResult> {
    return new Promise<AttemptResult>((resolve) => {
      const id = this.nextId++;
      this.pending.set(id, resolve);
      if (this.outbox.push([id, attempt]) === 1) queueMicrotask(() => this.flush());
    });
  }

  /** Closes the thread's connections once its attempts are answered, and ends it (once, however often called). */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing = true;
      const exited = once(this.thread, 'exit');
      this.thread.postMessage('close' satisfies ToSender);
      await exited;
    })();
    return this.closed;
  }

  private flush(): void {
    const batch = this.outbox;
    this.outbox = [];
    this.thread.postMessage(batch satisfies ToSender);
  }

  private spawn(): void {
    const thread = new Worker(new URL('./sender.thread.js', import.meta.url), { workerData: this.opts satisfies SenderOptions });
    thread.on('message', (results: FromSender) => {
      for (const [id, r] of results) {
        const resolve = this.pending.get(id);
        this.pending.delete(id);
        resolve?.(r);
      }
    });
    thread.on('error', (err) => this.log.error({ err }, 'webhook sender thread failed'));
    thread.on('exit', () => {
      // what it had not answered is lost with it; requests not handed over yet go to the next thread
      const unsent = new Set(this.outbox.map(([id]) => id));
      for (const [id, resolve] of this.pending) {
        if (unsent.has(id)) continue;
        this.pending.delete(id);
        resolve(LOST);
      }
      if (!this.closing) {
        this.log.warn('webhook sender thread exited; starting another');
        this.spawn();
      }
    });
    this.thread = thread;
  }
}
