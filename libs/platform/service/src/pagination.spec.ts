import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError } from '@verity/errors';
import { encodeCursor, parseListQuery, toPage } from './pagination.js';

function issuesOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof DomainError);
    assert.equal(e.code, 'validation_error');
    return (e.details as { issues: unknown }).issues;
  }
  assert.fail('expected a validation error');
}

describe('list parameters', () => {
  it('defaults to 20 and the first page', () => {
    assert.deepEqual(parseListQuery({}), { limit: 20, after: null, filters: {} });
  });
  it('accepts limit 1..100 and a cursor it issued', () => {
    const p = parseListQuery({ limit: '100', cursor: encodeCursor(42n) });
    assert.equal(p.limit, 100);
    assert.equal(p.after, 42n);
    assert.equal(parseListQuery({ cursor: encodeCursor(9_223_372_036_854_775_807n) }).after, 9_223_372_036_854_775_807n);
  });
  it('refuses bad limits, foreign cursors and unknown parameters', () => {
    for (const limit of ['0', '101', '-1', '1.5', 'ten', '']) {
      assert.deepEqual(issuesOf(() => parseListQuery({ limit })), [
        { code: 'invalid_value', message: 'limit must be a whole number from 1 to 100', path: ['limit'] },
      ]);
    }
    const beyondBigint = Buffer.from('c1.9223372036854775808').toString('base64url');
    for (const cursor of ['abc', Buffer.from('c1.x').toString('base64url'), '../../etc', beyondBigint]) {
      assert.equal((issuesOf(() => parseListQuery({ cursor })) as Array<{ path: string[] }>)[0]!.path[0], 'cursor');
    }
    assert.equal((issuesOf(() => parseListQuery({ colour: 'red' })) as Array<{ code: string }>)[0]!.code, 'unrecognized_keys');
  });
  it('validates filters', () => {
    const f = { status: (v: string) => ['pending', 'completed'].includes(v) };
    assert.deepEqual(parseListQuery({ status: 'pending' }, f).filters, { status: 'pending' });
    assert.ok(issuesOf(() => parseListQuery({ status: 'nope' }, f)));
  });
  it('pages with a next cursor only when more rows exist', () => {
    const rows = [{ seq: 5n }, { seq: 4n }, { seq: 3n }];
    const p = toPage(rows, 2, (r) => r.seq, (r) => Number(r.seq));
    assert.deepEqual(p.data, [5, 4]);
    assert.equal(parseListQuery({ cursor: p.next_cursor! }).after, 4n);
    assert.equal(toPage(rows, 3, (r) => r.seq, (r) => r).next_cursor, null);
  });
  it('stops a page early, with a cursor to the rest, before its items weigh more than a reply can carry', () => {
    const rows = [5n, 4n, 3n, 2n].map((seq) => ({ seq, text: 'é'.repeat(300 * 1024) }));
    const item = (r: (typeof rows)[number]) => ({ id: Number(r.seq), text: r.text });
    const p = toPage(rows, 4, (r) => r.seq, item);
    assert.deepEqual(p.data.map((r) => r.id), [5]);
    assert.equal(parseListQuery({ cursor: p.next_cursor! }).after, 5n);
    // one heavy row is still served alone
    const one = toPage(rows.slice(0, 1), 4, (r) => r.seq, item, 1024);
    assert.equal(one.data.length, 1);
    assert.equal(one.next_cursor, null);
  });
});
