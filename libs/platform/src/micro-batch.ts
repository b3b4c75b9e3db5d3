/**
 * Collects items and runs them as batches (one SQL statement instead of one per item): a batch starts at the
 * next turn of the event loop, or at once when it is full, unless `maxInFlight` batches are already running;
 * then items wait for one to finish, so that under load batches grow instead of multiplying. Each caller
 * gets its own item's result (an `ItemFailure` in its place rejects that caller alone), or the batch's error.
 */
export class MicroBatch<I, O> {
  private pending: Array<{ item: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  private scheduled = false;
  private inFlight = 0;

  constructor(
    private readonly run: (items: I[]) => Promise<Array<O | ItemFailure>>,
    private readonly maxSize = 256,
    private readonly maxInFlight = 2,
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
        (out) =>
          batch.forEach((b, i) => {
            const o = out[i]!;
            if (o instanceof ItemFailure) b.reject(o.error);
            else b.resolve(o);
          }),
        (e) => batch.forEach((b) => b.reject(e)),
      )
      .finally(() => {
        this.inFlight--;
        this.flush();
      });
  }
}

/** The result of one item of a batch that failed on its own: its caller gets `error`, the others their results. */
export class ItemFailure {
  constructor(readonly error: unknown) {}
}
