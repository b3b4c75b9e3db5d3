import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError } from '@verity/errors';
import { SPECIMEN_DOCUMENT, SPECIMEN_HOLDER, SyntheticExtractor } from './extractor.js';

describe('synthetic extractor', () => {
  const x = new SyntheticExtractor();

  it('pass and review read the specimen, with that outcome', async () => {
    for (const expected of ['pass', 'review'] as const) {
      const r = await x.extract({ mode: 'test', expected_outcome: expected });
      assert.deepEqual(r, { readable: true, outcome: expected, reasons: [], document: SPECIMEN_DOCUMENT, holder: SPECIMEN_HOLDER });
    }
  });

  it('fail and doc_quality are both unreadable, and nothing tells them apart', async () => {
    const fail = await x.extract({ mode: 'test', expected_outcome: 'fail' });
    const quality = await x.extract({ mode: 'test', expected_outcome: 'doc_quality' });
    assert.deepEqual(fail, { readable: false });
    assert.deepEqual(quality, fail);
  });

  it('returns copies: a caller changing one result does not change the next', async () => {
    const a = await x.extract({ mode: 'test', expected_outcome: 'pass' });
    assert.ok(a.readable);
    a.holder.given_names.push('X');
    const b = await x.extract({ mode: 'test', expected_outcome: 'pass' });
    assert.ok(b.readable);
    assert.deepEqual(b.holder.given_names, ['Willeke', 'Liselotte']);
  });

  it('refuses live requests: it never sees a live image', async () => {
    await assert.rejects(x.extract({ mode: 'live', front: Buffer.alloc(1), back: null, deadline: Date.now() + 1000 }), (e: unknown) => e instanceof DomainError && e.code === 'internal_error');
  });
});
