import { Piscina } from 'piscina';
import { DEFAULT_THRESHOLDS, type Thresholds } from './checks.js';
import type { DocumentImages, DocumentOutcome } from './document.js';
import { combine, type DocumentSide, type SelfieSide, type Verification, type VerifyInput } from './verify.js';
import type { ImageCheck, DocumentKind } from './image-check.js';
import type { InspectTask, ReadTask, SelfieTask } from './worker.js';

export interface ReadingPoolOptions {
  /** Worker threads, each with its own engines and their memory (docs/reading.md, "Measured"). */
  threads: number;
  /** Load the face engine in every thread at start too (the live capture run needs it; the ID scan does not). */
  faces?: boolean;
  /**
   * Start every thread and load its engines before `start` resolves (default), or start threads as reads need
   * them, each loading its engines on its first task (a quicker, lighter start; a slower first read).
   */
  warm?: boolean;
}

/** What a service answers (503) when its reader's threads are all taken and its waiting room is full. */
export const READER_BUSY_MESSAGE = 'The document reader is busy; retry in a few seconds.';

/** Today in UTC as `YYYY-MM-DD`: what expiry and MRZ centuries are judged against. */
export function utcToday(): string {
  return new Date().toISOString().slice(0, 10);
}

/**
 * Reading off the caller's thread: a fixed number of worker threads (piscina), each holding its engines, so
 * that one slow image never stalls the event loop of the service. Admission (how many wait, for how long) is
 * the caller's: the pool runs what it is given, queued in arrival order.
 */
export class ReadingPool {
  private readonly pool: Piscina;
  private running = 0;

  constructor(private readonly options: ReadingPoolOptions) {
    this.pool = new Piscina({
      filename: new URL('./worker.js', import.meta.url).href,
      minThreads: options.warm === false ? 0 : options.threads,
      maxThreads: options.threads,
      idleTimeout: Infinity,
    });
  }

  /** A pool whose threads have loaded their engines, so that the first requests do not pay for it (unless `warm` is false); closed if that fails. */
  static async start(options: ReadingPoolOptions): Promise<ReadingPool> {
    const pool = new ReadingPool(options);
    if (options.warm === false) return pool;
    try {
      await pool.warm();
    } catch (e) {
      await pool.close().catch(() => undefined);
      throw e;
    }
    return pool;
  }

  /** Loads every thread's engines. */
  async warm(): Promise<void> {
    await Promise.all(Array.from({ length: this.options.threads }, () => this.pool.run({ faces: this.options.faces ?? false }, { name: 'warm' })));
  }

  get threads(): number {
    return this.options.threads;
  }

  /** Its load, for metrics: threads at work, threads in all, and runs waiting for a thread. */
  load(): { busy: number; threads: number; queued: number } {
    return { busy: Math.min(this.running, this.options.threads), threads: this.options.threads, queued: this.pool.queueSize };
  }

  /** Runs a task on a thread, counted while it runs or waits (see `load`). */
  private async run<T>(task: unknown, name: string): Promise<T> {
    this.running++;
    try {
      return (await this.pool.run(task, { name })) as T;
    } finally {
      this.running--;
    }
  }

  /** The document's machine-readable data (ID scan). */
  read(images: DocumentImages, today = utcToday()): Promise<DocumentOutcome> {
    const task: ReadTask = { front: images.front, back: images.back, today };
    return this.run<DocumentOutcome>(task, 'read');
  }

  /**
   * Document, portrait, face match and liveness with the challenge's frames (a live verification): the document's
   * side and the selfie's side on two threads at once when the pool has them free, brought together here.
   */
  async verify(input: VerifyInput, thresholds: Thresholds = DEFAULT_THRESHOLDS, today = utcToday()): Promise<Verification> {
    const documentTask: ReadTask = { front: input.front, back: input.back, today };
    const selfieTask: SelfieTask = { selfie: input.selfie, frames: (input.frames ?? []).map((f) => ({ image: f.image, offsetMs: f.offsetMs })) };
    const [doc, side] = await Promise.all([this.run<DocumentSide>(documentTask, 'documentPart'), this.run<SelfieSide>(selfieTask, 'selfiePart')]);
    // a Buffer crosses threads as a plain Uint8Array
    const portrait = doc.portrait && Buffer.from(doc.portrait.buffer, doc.portrait.byteOffset, doc.portrait.byteLength);
    return combine({ ...doc, portrait }, side, input, thresholds);
  }

  /** One capture image checked on its own: can the run use it, or should the applicant take it again? */
  inspect(image: Buffer, artifact: 'front' | 'back' | 'selfie', documentKind: DocumentKind | null, thresholds: Thresholds = DEFAULT_THRESHOLDS, today = utcToday()): Promise<ImageCheck> {
    const task: InspectTask = { image, artifact, documentKind, thresholds, today };
    return this.run<ImageCheck>(task, 'inspect');
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
