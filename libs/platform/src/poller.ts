/**
 * Runs a pass of background work now and then: every `everyMs` (the first after `firstAfterMs`), and at once when
 * kicked; a kick while a pass runs starts another right after it. One pass at a time per process. A failed pass
 * goes to `onError` and the next tick tries again. `stop` starts no other pass and waits for the one under way.
 */
export class Poller {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly everyMs: number,
    private readonly onError: (err: unknown) => void,
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
    if (this.running) {
      this.again = true;
      return;
    }
    this.again = false;
    this.running = this.pass()
      .catch(this.onError)
      .finally(() => {
        this.running = null;
        if (this.again) this.kick();
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
