import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError } from '@verity/errors';
import { validateUsageRequest } from './usage.validation.js';

const org = 'org_0123456789abcdefghijklmn';

function param(req: unknown): string | undefined {
  try {
    validateUsageRequest(req);
  } catch (e) {
    assert.ok(e instanceof DomainError);
    assert.equal(e.code, 'validation_error');
    return e.param;
  }
  assert.fail('expected a validation error');
}

describe('sessions.admin.usage.v1 request', () => {
  it('takes an organization and a range of at most 366 days, both ends included', () => {
    assert.deepEqual(validateUsageRequest({ org_id: org, from: '2026-03-14', to: '2026-03-14' }), { org_id: org, from: '2026-03-14', to: '2026-03-14' });
    assert.equal(validateUsageRequest({ org_id: org, from: '2024-01-01', to: '2024-12-31' }).to, '2024-12-31');
    assert.equal(validateUsageRequest({ org_id: org, from: '2025-01-01', to: '2026-01-01' }).to, '2026-01-01');
  });

  it('names the field at fault', () => {
    assert.equal(param({ org_id: 'org_nope', from: '2026-01-01', to: '2026-01-02' }), 'org_id');
    assert.equal(param({ from: '2026-01-01', to: '2026-01-02' }), 'org_id');
    assert.equal(param(null), undefined, 'not an object: the whole body is at fault');
    for (const bad of ['2026-02-30', '2026-1-01', '20260101', '2026-01-01T00:00:00Z', '', 20260101, null]) {
      assert.equal(param({ org_id: org, from: bad, to: '2026-01-02' }), 'from', String(bad));
      assert.equal(param({ org_id: org, from: '2026-01-01', to: bad }), 'to', String(bad));
    }
    assert.equal(param({ org_id: org, from: '2026-01-02', to: '2026-01-01' }), 'to');
    // 367 days
    assert.equal(param({ org_id: org, from: '2025-01-01', to: '2026-01-02' }), 'to');
    assert.equal(param({ org_id: org, from: '2024-01-01', to: '2025-01-01' }), 'to');
  });
});
