import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Owner } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import type { TemplatesRepository, TemplateVersionRow } from '../templates/templates.repository.js';
import { EvaluationService } from './evaluation.service.js';

const context = { applicant: { familyName: 'Doe', givenNames: ['Jane'], dateOfBirth: '1990-06-01' }, findings: [], checks: {}, now: '2026-05-31T12:00:00.000Z' };
const ownerA: Owner = { org_id: 'org_a', mode: 'test' };
const ownerB: Owner = { org_id: 'org_b', mode: 'test' };
const template = (n: number) => `wft_${String(n).padStart(24, '0')}`;

/** Templates held in memory, every version with no rules; `missing` versions are not found (a failed load). */
function repository(missing = new Set<number>()) {
  const loads: string[] = [];
  const row = { screening_rules: [], device_intelligence: false, metadata: {}, review_threshold: 50 } as unknown as TemplateVersionRow;
  const repo = {
    findVersion: (owner: Owner, id: string, version: number) => {
      loads.push(`${owner.org_id}/${id}/${version}`);
      return Promise.resolve(missing.has(version) ? null : row);
    },
    find: () => Promise.resolve(row),
  } as unknown as TemplatesRepository;
  return { repo, loads };
}

describe('evaluation cache', () => {
  it('compiles each version once, concurrent first calls sharing one compilation', async () => {
    const { repo, loads } = repository();
    const s = new EvaluationService(repo, { SCREENING_RULESET_CACHE_SIZE: 10 });
    await Promise.all([1, 2, 3].map(() => s.evaluate(ownerA, template(1), 1, context)));
    await s.evaluate(ownerA, template(1), 1, context);
    assert.deepEqual([loads.length, s.stats()], [1, { compilations: 1, cached: 1 }]);
  });

  it('never holds more than its size, evicting the least recently used', async () => {
    const { repo, loads } = repository();
    const s = new EvaluationService(repo, { SCREENING_RULESET_CACHE_SIZE: 2 });
    await s.evaluate(ownerA, template(1), 1, context);
    await s.evaluate(ownerA, template(2), 1, context);
    await s.evaluate(ownerA, template(1), 1, context); // 1 is now the most recently used
    await s.evaluate(ownerA, template(3), 1, context);
    assert.equal(s.stats().cached, 2);
    await s.evaluate(ownerA, template(1), 1, context);
    assert.equal(loads.length, 3, 'the most recently used stayed');
    await s.evaluate(ownerA, template(2), 1, context);
    assert.equal(loads.length, 4, 'the least recently used went');
  });

  it('does not remember a failed load', async () => {
    const { repo, loads } = repository(new Set([7]));
    const s = new EvaluationService(repo, { SCREENING_RULESET_CACHE_SIZE: 10 });
    for (let i = 0; i < 2; i++) {
      await assert.rejects(s.evaluate(ownerA, template(1), 7, context), (e: unknown) => e instanceof DomainError && e.code === 'resource_not_found');
    }
    assert.deepEqual([loads.length, s.stats().cached], [2, 0]);
  });

  it("forgets one owner's rule sets and counts them, keeping the others'", async () => {
    const { repo, loads } = repository();
    const s = new EvaluationService(repo, { SCREENING_RULESET_CACHE_SIZE: 10 });
    for (const [owner, n] of [[ownerA, 1], [ownerA, 2], [ownerB, 1], [{ ...ownerA, mode: 'live' }, 1]] as const) await s.evaluate(owner, template(n), 1, context);
    assert.equal(s.forgetOwner(ownerA), 2);
    assert.equal(s.stats().cached, 2);
    await s.evaluate(ownerB, template(1), 1, context);
    assert.equal(loads.length, 4, "the other owner's rule set stayed");
  });
});
