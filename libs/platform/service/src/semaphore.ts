import { DomainError } from '@verity/errors';

/**
 * At most `size` holders at a time; the others wait in arrival order, each until its own deadline. At most
 * `maxWaiting` wait (unbounded unless given): one more is refused at once.
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<{ grant: () => void }> = [];

  constructor(
    readonly size: number,
    readonly maxWaiting = Infinity,
  ) {}

  get inUse(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Resolves with a release function once a slot is free; 503 service_unavailable when `deadline` passes first,
   * or at once when no slot is free and `maxWaiting` callers already wait.
   */
  acquire(deadline = Infinity): Promise<() => void> {
    if (this.active < this.size) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.maxWaiting) return Promise.reject(new DomainError('service_unavailable'));
    return new Promise((resolve, reject) => {
      const entry = {
        grant: () => {
          clearTimeout(timer);
          this.active++;
          resolve(this.releaser());
        },
      };
      const wait = deadline - Date.now();
      const timer = Number.isFinite(wait)
        ? setTimeout(() => {
            const i = this.waiting.indexOf(entry);
            if (i >= 0) this.waiting.splice(i, 1);
            reject(new DomainError('service_unavailable'));
          }, Math.max(0, wait))
        : undefined;
      this.waiting.push(entry);
    });
  }

  async run<T>(fn: () => Promise<T>, deadline = Infinity): Promise<T> {
    const release = await this.acquire(deadline);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.waiting.shift()?.grant();
    };
  }
}

/**
 * Admission in front of a pool of workers that queues without bound: `slots` run at once (the pool's size, so
 * the pool itself never queues), at most `maxWaiting` wait, each until its own deadline or `queueTimeoutMs`,
 * whichever comes first; every other caller is refused with 503 `service_unavailable` and `busyMessage`.
 */
export class Admission {
  private readonly semaphore: Semaphore;

  constructor(
    slots: number,
    maxWaiting: number,
    private readonly queueTimeoutMs: number,
    private readonly busyMessage: string,
  ) {
    this.semaphore = new Semaphore(slots, maxWaiting);
  }

  async run<T>(fn: () => Promise<T>, deadline: number): Promise<T> {
    const release = await this.semaphore.acquire(Math.min(deadline, Date.now() + this.queueTimeoutMs)).catch((e: unknown) => {
      throw e instanceof DomainError && e.code === 'service_unavailable' ? new DomainError('service_unavailable', { message: this.busyMessage }) : e;
    });
    try {
      return await fn();
    } finally {
      release();
    }
  }
}
