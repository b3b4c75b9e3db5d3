import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError } from '@verity/errors';
import { Semaphore } from './semaphore.js';

describe('Semaphore', () => {
  it('admits at most `size` at once, the rest in arrival order', async () => {
    const s = new Semaphore(2);
    const order: number[] = [];
    let running = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        s.run(async () => {
          running++;
          peak = Math.max(peak, running);
          order.push(i);
          await new Promise((r) => setTimeout(r, 5));
          running--;
        }),
      ),
    );
    assert.equal(peak, 2);
    assert.deepEqual(order, [0, 1, 2, 3, 4, 5]);
    assert.equal(s.inUse, 0);
  });

  it('a waiter past its deadline gets 503 and leaves the queue; a release counts once', async () => {
    const s = new Semaphore(1);
    const release = await s.acquire();
    await assert.rejects(s.acquire(Date.now() + 20), (e: unknown) => e instanceof DomainError && e.code === 'service_unavailable');
    assert.equal(s.queued, 0);
    release();
    release();
    assert.equal(s.inUse, 0);
    const again = await s.acquire(Date.now() + 20);
    assert.equal(s.inUse, 1);
    again();
  });
});
