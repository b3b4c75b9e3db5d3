import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isDatabaseUnavailable, poolTimeoutOptions } from './database.js';

describe('database unavailable', () => {
  it('recognises a refused, lost, timed-out or restarting server, also when wrapped', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    assert.ok(isDatabaseUnavailable(refused));
    assert.ok(isDatabaseUnavailable(new AggregateError([refused], '')));
    assert.ok(isDatabaseUnavailable(new Error('Connection terminated unexpectedly')));
    assert.ok(isDatabaseUnavailable(new Error('Connection terminated due to connection timeout', { cause: new Error('timeout expired') })));
    assert.ok(isDatabaseUnavailable(new Error('Query read timeout')));
    assert.ok(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect')));
    for (const code of ['57P01', '57P03', '57014', '25P03', '08006', '53300']) assert.ok(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), code);
    assert.ok(isDatabaseUnavailable({ message: 'query failed', driverError: Object.assign(new Error('y'), { code: '57P01' }) }));
  });

  it('leaves faults of the statement alone', () => {
    assert.ok(!isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' })));
    assert.ok(!isDatabaseUnavailable(Object.assign(new Error('syntax'), { code: '42601' })));
    assert.ok(!isDatabaseUnavailable(new Error('something else')));
    assert.ok(!isDatabaseUnavailable(undefined));
  });
});

describe('pool timeouts', () => {
  it('bound connecting, statements (server side, then the client a second later) and idle transactions', () => {
    assert.deepEqual(poolTimeoutOptions({ connectMs: 3000, statementMs: 10_000, idleInTransactionMs: 60_000 }), {
      connectionTimeoutMillis: 3000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      statement_timeout: 10_000,
      query_timeout: 11_000,
      idle_in_transaction_session_timeout: 60_000,
    });
    assert.ok(!('statement_timeout' in poolTimeoutOptions({ connectMs: 3000, statementMs: 0, idleInTransactionMs: 60_000 })));
  });
});
