/**
 * Collects items and runs them as batches (one SQL statement instead of one per item): a batch starts at the
 * next turn of the event loop, or at once when it is full, unless `maxInFlight` batches are already running;
 * then items wait for one to finish, so that under load batches grow instead of multiplying. Each caller
 * gets its own item's result, or the batch's error; with `retryAlone`, the items of a failed batch are run
 * again one by one, so that one item's failure (a bad row) is its caller's alone.
 */
export class MicroBatch<I, O> {
  private pending: Array<{ item: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  private scheduled = false;
  private inFlight = 0;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly maxSize = 256,
    private readonly maxInFlight = 2,
    private readonly opts: { retryAlone?: boolean } = {},
  ) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length >= this.maxSize) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  private flush(): void {
    if (this.pending.length === 0 || this.inFlight >= this.maxInFlight) return;
    const batch = this.pending.splice(0, this.maxSize);
    this.inFlight++;
    this.run(batch.map((b) => b.item))
      .then(
        (out): unknown => batch.forEach((b, i) => b.resolve(out[i]!)),
        (e: unknown): unknown => {
          if (!this.opts.retryAlone || batch.length === 1) return batch.forEach((b) => b.reject(e));
          return Promise.all(batch.map((b) => this.run([b.item]).then((o) => b.resolve(o[0]!), b.reject)));
        },
      )
      .finally(() => {
        this.inFlight--;
        this.flush();
      });
  }
}
