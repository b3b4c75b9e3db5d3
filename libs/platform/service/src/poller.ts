/**
 * Runs passes of background work now and then: every `everyMs` (the first after `firstAfterMs`), and at once when
 * kicked. At most `slots` passes run at a time per process (one unless given); a kick fills every free slot, and
 * a kick while every slot is busy starts another pass as soon as one ends. A failed pass goes to `onError` and the
 * next tick tries again. `stop` starts no other pass and waits for those under way.
 */
export class Poller {
  private timer: NodeJS.Timeout | null = null;
  private readonly running = new Set<Promise<void>>();
  private again = false;
  private stopped = false;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly everyMs: number,
    private readonly onError: (err: unknown) => void,
    private readonly slots = 1,
  ) {}

  start(firstAfterMs = 0): void {
    const every = () => {
      this.timer = setInterval(() => this.kick(), this.everyMs);
      this.timer.unref();
    };
    if (firstAfterMs <= 0) {
      this.kick();
      every();
      return;
    }
    this.timer = setTimeout(() => {
      this.kick();
      if (!this.stopped) every();
    }, firstAfterMs);
    this.timer.unref();
  }

  /** True once `stop` was called: a long pass checks it between steps. */
  get stopping(): boolean {
    return this.stopped;
  }

  kick(): void {
    if (this.stopped) return;
    if (this.running.size >= this.slots) {
      this.again = true;
      return;
    }
    this.again = false;
    while (this.running.size < this.slots) {
      const pass: Promise<void> = this.pass()
        .catch(this.onError)
        .finally(() => {
          this.running.delete(pass);
          if (this.again) this.kick();
        });
      this.running.add(pass);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all(this.running);
  }
}
