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

  it('with a limit of waiters: one more than the limit is refused at once, and a freed place in the queue is taken again', async () => {
    const s = new Semaphore(1, 1);
    const first = await s.acquire();
    const waiter = s.acquire(Date.now() + 5_000);
    // without a deadline it would wait for ever: refused at once
    await assert.rejects(s.acquire(), (e: unknown) => e instanceof DomainError && e.code === 'service_unavailable');
    assert.equal(s.queued, 1);
    first();
    const second = await waiter;
    assert.equal(s.queued, 0);
    const third = s.acquire(Date.now() + 5_000);
    assert.equal(s.queued, 1, 'the place in the queue is free again');
    second();
    (await third)();
    assert.equal(s.inUse, 0);
  });

  it('no waiting at all (limit 0): a free slot is granted, a busy one refused', async () => {
    const s = new Semaphore(1, 0);
    const release = await s.acquire();
    await assert.rejects(s.acquire(), (e: unknown) => e instanceof DomainError && e.code === 'service_unavailable');
    release();
    (await s.acquire())();
  });
});
