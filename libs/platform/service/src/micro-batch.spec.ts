import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MicroBatch } from './micro-batch.js';

describe('micro-batches', () => {
  it('runs what was added in one turn as one batch and hands each caller its own result', async () => {
    const batches: number[][] = [];
    const b = new MicroBatch<number, number>(async (xs) => {
      batches.push(xs);
      return xs.map((x) => x * 10);
    });
    assert.deepEqual(await Promise.all([b.add(1), b.add(2), b.add(3)]), [10, 20, 30]);
    assert.deepEqual(batches, [[1, 2, 3]]);
  });

  it('never runs more than maxInFlight batches: later items wait and go together', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const batches: number[][] = [];
    let running = 0;
    let most = 0;
    const b = new MicroBatch<number, number>(
      async (xs) => {
        running++;
        most = Math.max(most, running);
        batches.push(xs);
        await gate;
        running--;
        return xs;
      },
      2,
      1,
    );
    const all = [b.add(1), b.add(2), b.add(3)];
    await new Promise((r) => setImmediate(r));
    all.push(b.add(4), b.add(5));
    await new Promise((r) => setImmediate(r));
    release();
    assert.deepEqual(await Promise.all(all), [1, 2, 3, 4, 5]);
    assert.equal(most, 1);
    assert.deepEqual(batches, [[1, 2], [3, 4], [5]]);
  });

  it('rejects every item of a failed batch', async () => {
    const b = new MicroBatch<number, number>(async () => {
      throw new Error('down');
    });
    const results = await Promise.allSettled([b.add(1), b.add(2)]);
    assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected']);
  });

  it('with retryAlone, a failed batch runs each item on its own: one bad item fails its caller only', async () => {
    const runs: number[][] = [];
    const b = new MicroBatch<number, number>(
      async (xs) => {
        runs.push(xs);
        if (xs.includes(2)) throw new Error('two');
        return xs;
      },
      256,
      2,
      { retryAlone: true },
    );
    const results = await Promise.allSettled([b.add(1), b.add(2), b.add(3)]);
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
      [1, 'two', 3],
    );
    assert.deepEqual(runs, [[1, 2, 3], [1], [2], [3]]);
  });
});
