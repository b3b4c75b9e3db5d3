import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Permits } from './permits.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One permit, already taken, bounding waits to 30 ms of a clock the test moves by hand. */
async function heldPermit(): Promise<{ p: Permits; clock: { now: number } }> {
  const clock = { now: 0 };
  const p = new Permits(1, 30, () => clock.now);
  assert.equal(await p.acquire(), true);
  return { p, clock };
}

describe('Permits', () => {
  it('hands out permits while free, then makes callers wait for one given back, in order', async () => {
    const p = new Permits(2, 10_000);
    assert.equal(await p.acquire(), true);
    assert.equal(await p.acquire(), true);
    assert.equal(p.available, 0);
    const order: number[] = [];
    const a = p.acquire().then((ok) => order.push(ok ? 1 : -1));
    const b = p.acquire().then((ok) => order.push(ok ? 2 : -2));
    await tick(5);
    assert.deepEqual(order, [], 'nobody gets a permit before one is given back');
    p.release();
    await a;
    assert.deepEqual(order, [1]);
    p.release();
    await b;
    assert.deepEqual(order, [1, 2]);
    assert.equal(p.available, 0);
  });

  it('bounds the waiting by progress: when no permit comes back in time every caller is refused at once until one does', async () => {
    const { p, clock } = await heldPermit();
    const first = p.acquire();
    clock.now = 30; // the clock the bound is measured on has moved past it
    assert.equal(await first, false, 'the waiting caller is refused when the bound passes');
    assert.equal(await p.acquire(), false, 'and the next one at once, without waiting again');
    p.release();
    assert.equal(p.available, 1);
    assert.equal(await p.acquire(), true, 'a permit given back ends the stall');
    clock.now = 100;
    const waiting = p.acquire();
    p.release();
    assert.equal(await waiting, true, 'a new stall starts a new bound');
  });

  it('keeps waiting for permits while they keep coming back, however long all of them stay in use', async () => {
    const { p, clock } = await heldPermit();
    for (let i = 0; i < 5; i++) {
      const next = p.acquire(); // every permit is in use, for 20 of the clock's ms each time: 100 in all
      clock.now += 20;
      p.release();
      assert.equal(await next, true, `permit ${i + 1} handed over, not refused`);
    }
    assert.equal(p.available, 0);
  });

  it('callers still waiting after a permit came back wait at most the bound from that moment', async () => {
    const { p, clock } = await heldPermit();
    const a = p.acquire();
    let bSettled: boolean | null = null;
    const b = p.acquire().then((ok) => (bSettled = ok));
    clock.now = 20;
    p.release();
    assert.equal(await a, true);
    clock.now = 40; // past the first bound (0 + 30), not past the one that began with the release (20 + 30)
    await tick(45);
    assert.equal(bSettled, null, 'still waiting');
    clock.now = 50;
    assert.equal(await b, false, 'refused once the new bound has passed');
  });

  it('tryAcquire takes only what is free, and release refuses to exceed the capacity', () => {
    const p = new Permits(3, 1000);
    assert.equal(p.tryAcquire(5), 3);
    assert.equal(p.tryAcquire(1), 0);
    p.release(3);
    assert.equal(p.available, 3);
    assert.throws(() => p.release(1), /more permits than were taken/);
  });
});
