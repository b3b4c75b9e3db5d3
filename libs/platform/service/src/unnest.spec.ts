import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unnestColumns } from './unnest.js';

describe('unnestColumns', () => {
  it('declares the row source once and turns rows into one array per column, in order', () => {
    const u = unnestColumns({ id: 'text', n: 'int', at: 'timestamptz' });
    assert.equal(u.sql, 'unnest($1::text[], $2::int[], $3::timestamptz[]) AS r(id, n, at)');
    const at = new Date(0);
    assert.deepEqual(
      u.params([
        { id: 'a', n: 1, at },
        { id: 'b', n: null, at: null },
      ]),
      [['a', 'b'], [1, null], [at, null]],
    );
    assert.deepEqual(u.params([]), [[], [], []]);
  });

  it("numbers its parameters after the statement's own and names the row source", () => {
    assert.equal(unnestColumns({ session_id: 'text', amount: 'bigint' }, { from: 3, as: 'd' }).sql, 'unnest($3::text[], $4::bigint[]) AS d(session_id, amount)');
  });

  it('refuses a column or alias that is not a plain identifier', () => {
    assert.throws(() => unnestColumns({ 'x); DROP TABLE t; --': 'text' }), /not a plain identifier/);
    assert.throws(() => unnestColumns({ check: 'text' }, { as: 'R' }), /not a plain identifier/);
  });
});
