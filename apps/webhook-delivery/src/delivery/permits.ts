/**
 * A counting semaphore whose waiting is bounded by progress: while no permit is free, `acquire` waits until
 * one is given back, but at most `maxWaitMs` after the last one was (or the permits ran out); when that much
 * time passes without a permit coming back, it answers `false`, and at once to every caller after it (who go
 * another way, e.g. the queue) until a permit comes back. So holders stuck on every permit delay callers by
 * `maxWaitMs` once, not once per caller, while permits that keep coming back are always waited for.
 */
export class Permits {
  private free: number;
  private readonly waiters: Array<{ resolve: (ok: boolean) => void; timer: NodeJS.Timeout }> = [];
  /** Since when no permit has been free or given back; null while permits flow. */
  private stalledSince: number | null = null;

  constructor(
    readonly capacity: number,
    private readonly maxWaitMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.free = capacity;
  }

  get available(): number {
    return this.free;
  }

  /** One permit: at once when one is free, else when one is given back within the bound; false past it. */
  acquire(): Promise<boolean> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(true);
    }
    const now = this.now();
    this.stalledSince ??= now;
    const left = this.stalledSince + this.maxWaitMs - now;
    if (left <= 0) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const waiter = {
        resolve,
        timer: setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          resolve(false);
        }, left),
      };
      this.waiters.push(waiter);
    });
  }

  /** Up to `n` permits that are free now, without waiting; returns how many were taken. */
  tryAcquire(n: number): number {
    const taken = Math.max(0, Math.min(n, this.free));
    this.free -= taken;
    return taken;
  }

  /** Gives `n` permits back; waiters are served first, in order. */
  release(n = 1): void {
    if (n <= 0) return;
    if (this.free + n > this.capacity) throw new Error(`released more permits than were taken (${this.free + n} > ${this.capacity})`);
    this.free += n;
    while (this.free > 0 && this.waiters.length > 0) {
      const w = this.waiters.shift()!;
      clearTimeout(w.timer);
      this.free--;
      w.resolve(true);
    }
    this.stalledSince = null;
  }
}
