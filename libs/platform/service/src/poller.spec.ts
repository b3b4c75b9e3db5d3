import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Poller } from './poller.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Poller', () => {
  it('runs at start, on every interval and when kicked, one pass at a time; a kick during a pass runs one more', async () => {
    let passes = 0;
    let inPass = 0;
    let most = 0;
    let release: () => void = () => undefined;
    const p = new Poller(
      async () => {
        passes += 1;
        inPass += 1;
        most = Math.max(most, inPass);
        await new Promise<void>((r) => (release = r));
        inPass -= 1;
      },
      60_000,
      () => assert.fail('no error'),
    );
    p.start();
    assert.equal(passes, 1);
    p.kick();
    p.kick();
    assert.equal(passes, 1, 'kicks during a pass wait for it');
    release();
    await tick(5);
    assert.equal(passes, 2, 'the kicks ran one more pass');
    release();
    await tick(5);
    assert.equal(passes, 2);
    assert.equal(most, 1);
    await p.stop();
  });

  it('waits for the first pass when asked, repeats on the interval, and reports a failed pass', async () => {
    let passes = 0;
    const errors: unknown[] = [];
    const p = new Poller(
      async () => {
        passes += 1;
        if (passes === 2) throw new Error('boom');
      },
      20,
      (e) => errors.push(e),
    );
    p.start(30);
    await tick(10);
    assert.equal(passes, 0);
    await tick(100);
    assert.ok(passes >= 3, `${passes} passes`);
    assert.equal(errors.length, 1);
    await p.stop();
    const after = passes;
    p.kick();
    await tick(50);
    assert.equal(passes, after, 'nothing runs once stopped');
    assert.equal(p.stopping, true);
  });

  it('stop waits for the pass under way', async () => {
    let done = false;
    const p = new Poller(
      async () => {
        await tick(30);
        done = true;
      },
      60_000,
      () => undefined,
    );
    p.start();
    await p.stop();
    assert.equal(done, true);
  });
  it('with slots, a kick fills every free slot, never more; a kick while all are busy runs one more when one ends', async () => {
    let passes = 0;
    let inPass = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    const p = new Poller(
      async () => {
        passes += 1;
        inPass += 1;
        most = Math.max(most, inPass);
        await new Promise<void>((r) => releases.push(r));
        inPass -= 1;
      },
      60_000,
      () => assert.fail('no error'),
      2,
    );
    p.start();
    assert.equal(passes, 2, 'both slots start');
    p.kick();
    p.kick();
    assert.equal(passes, 2, 'kicks while every slot is busy wait');
    releases.shift()!();
    await tick(5);
    assert.equal(passes, 3, 'the kicks ran one more pass in the freed slot');
    releases.shift()!();
    await tick(5);
    assert.equal(passes, 3);
    p.kick();
    assert.equal(passes, 4, 'a kick fills the free slot at once');
    assert.equal(most, 2);
    const stopped = p.stop();
    let done = false;
    void stopped.then(() => (done = true));
    await tick(5);
    assert.equal(done, false, 'stop waits for every pass under way');
    for (const r of releases.splice(0)) r();
    await stopped;
  });
});
