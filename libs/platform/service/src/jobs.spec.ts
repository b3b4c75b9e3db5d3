import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError } from '@verity/errors';
import { isPassingFailure, JobWorker, retryDelay, type JobDefinition } from './jobs.js';
import { createLogger } from './logger.js';

const log = createLogger('jobs-spec', 'us', 'silent');

describe('retryDelay', () => {
  it('gives the delay before each retry, then gives up; with forever, keeps the last delay', () => {
    const policy = { delaysMs: [200, 500] };
    assert.deepEqual([1, 2, 3].map((n) => retryDelay(policy, n)), [200, 500, null]);
    const forever = { delaysMs: [500, 5000], forever: true };
    assert.deepEqual([1, 2, 3, 30].map((n) => retryDelay(forever, n)), [500, 5000, 5000, 5000]);
    assert.equal(retryDelay({ delaysMs: [] }, 1), null, 'no retries: the first failure gives up');
  });

  it('tries again after a service that did not answer or an unexpected error, never after a domain error', () => {
    assert.equal(isPassingFailure(new DomainError('service_unavailable')), true);
    assert.equal(isPassingFailure(new Error('socket hang up')), true);
    assert.equal(isPassingFailure(new DomainError('resource_not_found')), false);
  });
});

/** A queue in memory: jobs with their failures so far, and what became of each. */
function queue(jobs: Array<{ id: string; attempts: number }>, run: (j: { id: string; attempts: number }) => Promise<void>) {
  const log_: string[] = [];
  const def: JobDefinition<{ id: string; attempts: number }> = {
    name: 'spec',
    claim: async (limit) => jobs.splice(0, limit),
    run,
    renew: {
      leaseMs: 30,
      renew: async (j) => {
        log_.push(`renew ${j.id}`);
        return true;
      },
    },
    failure: {
      retry: { delaysMs: [10] },
      attempts: (j) => j.attempts,
      retryLater: async (j, delay) => {
        log_.push(`retry ${j.id} in ${delay}`);
      },
      giveUp: async (j) => {
        log_.push(`give up ${j.id}`);
      },
    },
  };
  return { def, log: log_ };
}

describe('JobWorker', () => {
  it('runs due jobs until none is left; a passing failure is retried by the policy, then given up; a permanent one at once', async () => {
    const done: string[] = [];
    const q = queue(
      [
        { id: 'a', attempts: 0 },
        { id: 'b', attempts: 0 },
        { id: 'c', attempts: 1 },
        { id: 'd', attempts: 0 },
      ],
      async (j) => {
        if (j.id === 'b' || j.id === 'c') throw new DomainError('service_unavailable');
        if (j.id === 'd') throw new DomainError('resource_not_found');
        done.push(j.id);
      },
    );
    const w = new JobWorker(q.def, { everyMs: 60_000, log });
    while (await w.runNext());
    assert.deepEqual(done, ['a']);
    assert.deepEqual(q.log, ['retry b in 10', 'give up c', 'give up d']);
  });

  it('renews the lease while a job works, until it ends', { timeout: 10_000 }, async () => {
    // the job ends once its lease was renewed twice: a worker that never renews never finishes it
    let ended: () => void = () => undefined;
    const q = queue([{ id: 'slow', attempts: 0 }], () => new Promise<void>((r) => (ended = r)));
    const renew = q.def.renew!.renew;
    q.def.renew!.renew = async (j) => {
      const held = await renew(j);
      if (q.log.filter((l) => l === 'renew slow').length === 2) ended();
      return held;
    };
    const w = new JobWorker(q.def, { everyMs: 60_000, log });
    assert.equal(await w.runNext(), true);
    const renewals = q.log.length;
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(q.log.length, renewals, 'no renewal after the job ended');
    assert.equal(await w.runNext(), false);
  });

  it('keeps up to `slots` jobs in flight, claiming as slots free up, until nothing is due; stop waits for them', { timeout: 10_000 }, async () => {
    const jobs = Array.from({ length: 7 }, (_, i) => ({ id: `j${i}`, attempts: 0 }));
    let inFlight = 0;
    let most = 0;
    const done: string[] = [];
    const q = queue(jobs, async (j) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight -= 1;
      done.push(j.id);
    });
    const w = new JobWorker(q.def, { everyMs: 60_000, slots: 3, log });
    w.start();
    while (done.length < 7) await new Promise((r) => setTimeout(r, 5));
    await w.stop();
    assert.equal(done.length, 7);
    assert.equal(most, 3);
  });
});
