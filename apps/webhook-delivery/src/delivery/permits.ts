/**
 * A counting semaphore whose waiting is bounded by progress: while no permit is free, `acquire` waits until
 * one is given back, but at most `maxWaitMs` after the last one was (or the permits ran out); when that much
 * time passes without a permit coming back, it answers `false`, and at once to every caller after it (who go
 * another way, e.g. the queue) until a permit comes back. So holders stuck on every permit delay callers by
 * `maxWaitMs` once, not once per caller, while permits that keep coming back are always waited for.
 */
export class Permits {
  private free: number;
  private readonly waiters: Array<(ok: boolean) => void> = [];
  /** Since when no permit has been free or given back; null while permits flow. */
  private stalledSince: number | null = null;
  /**
   * One timer for all waiters, set for the end of the current bound; a permit given back moves the bound
   * without touching the timer, which on firing sets itself again for the bound's new end (no timer per
   * waiting caller: callers wait for permits all the time under load).
   */
  private timer: NodeJS.Timeout | null = null;

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
      this.waiters.push(resolve);
      this.timer ??= setTimeout(() => this.boundReached(), left);
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
      this.free--;
      this.waiters.shift()!(true);
    }
    // callers still waiting wait at most the bound from now on
    this.stalledSince = this.waiters.length > 0 ? this.now() : null;
  }

  private boundReached(): void {
    this.timer = null;
    if (this.waiters.length === 0) return;
    const now = this.now();
    this.stalledSince ??= now;
    const left = this.stalledSince + this.maxWaitMs - now;
    if (left > 0) {
      this.timer = setTimeout(() => this.boundReached(), left);
      return;
    }
    for (const resolve of this.waiters.splice(0)) resolve(false);
  }
}
