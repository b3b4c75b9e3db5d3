import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from './logger.js';

function capture() {
  const lines: string[] = [];
  const dest = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, log: createLogger('test', 'us', 'info', dest) };
}

/** What the pg driver raises for a jsonb parameter holding an unpaired surrogate (fields as Postgres 16 sends them). */
function pgJsonError(): Error {
  return Object.assign(new Error('invalid input syntax for type json'), {
    name: 'error',
    severity: 'ERROR',
    code: '22P02',
    detail: 'Unicode low surrogate must follow a high surrogate.',
    where: 'JSON data, line 1: ["Anna","Marie-Secretname\\ud800"...\nunnamed portal parameter $5 = \'...\'',
    routine: 'json_ereport_error',
  });
}

describe('logged errors', () => {
  it('a Postgres error is logged without the data it quotes', async () => {
    const { lines, log } = capture();
    log.error({ err: pgJsonError(), subject: 'applicants.create.v1' }, 'unhandled error');
    log.error({ err: new Error('insert failed', { cause: Object.assign(new Error('invalid input syntax for type integer: "Secretname"'), { severity: 'ERROR', routine: 'pg_strtoint32_safe', code: '22P02' }) }) }, 'x');
    log.flush();
    const out = lines.join('');
    assert.doesNotMatch(out, /Secretname|Anna/);
    const first = JSON.parse(lines[0]!) as { err: Record<string, unknown> };
    assert.equal(first.err['code'], '22P02');
    assert.equal(first.err['message'], 'invalid input syntax for type json');
    assert.equal(first.err['where'], undefined);
    assert.equal(first.err['detail'], undefined);
    assert.match(lines[1]!, /insert failed: invalid input syntax for type integer: \\"…\\"/);
  });
  it('ORM errors lose their bound parameters; other errors keep their message', () => {
    const { lines, log } = capture();
    log.error({ err: Object.assign(new Error('query failed: relation "x" does not exist'), { query: 'INSERT …', parameters: ['Secretname'] }) }, 'x');
    log.flush();
    assert.doesNotMatch(lines.join(''), /Secretname/);
    assert.match(lines[0]!, /relation \\"x\\" does not exist/);
    assert.match(lines[0]!, /INSERT …/);
  });
});
