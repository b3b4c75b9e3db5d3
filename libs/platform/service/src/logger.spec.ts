import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger, scrubText } from './logger.js';

function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { log: createLogger('test', 'us', 'info', sink), text: () => lines.join('') };
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
  it('carry no mailbox, address or row values, under any key, nested, as a cause or aggregated', () => {
    const { log, text } = capture();
    const mail = Object.assign(new Error('Recipient command failed: 550 <"Jane Doe" jane.doe@example.com>: rejected'), {
      code: 'EENVELOPE',
      responseCode: 550,
      response: '550 5.1.1 <jane.doe@example.com>: Recipient address rejected',
      rejected: ['jane.doe@example.com'],
      envelope: { from: 'no-reply@verity.local', to: ['"Jane Doe" <jane.doe@example.com>'] },
    });
    const pgError = Object.assign(new Error('duplicate key value violates unique constraint "applicants_email_uq"'), {
      code: '23505',
      constraint: 'applicants_email_uq',
      detail: 'Key (email)=(jane.doe@example.com) already exists.',
    });
    log.warn({ err: mail }, 'mail');
    log.warn({ error: new Error('wrapped', { cause: mail }) }, 'under another key');
    log.warn({ context: { failure: pgError } }, 'one level down');
    log.error(new AggregateError([mail, pgError], 'both'), 'aggregated');
    const out = text();
    assert.ok(!out.includes('jane.doe'), out);
    assert.ok(!out.includes('example.com'), out);
    assert.ok(!out.includes('Jane Doe'), out);
    // what went wrong stays readable
    assert.match(out, /"code":"EENVELOPE"/);
    assert.match(out, /"responseCode":550/);
    assert.match(out, /"constraint":"applicants_email_uq"/);
    assert.match(out, /Recipient address rejected/);
    assert.equal(out.trim().split('\n').length, 4);
  });

  it('a Postgres error is logged without the data it quotes', async () => {
    const { log, text } = capture();
    log.error({ err: pgJsonError(), subject: 'applicants.create.v1' }, 'unhandled error');
    log.error({ err: new Error('insert failed', { cause: Object.assign(new Error('invalid input syntax for type integer: "Secretname"'), { severity: 'ERROR', routine: 'pg_strtoint32_safe', code: '22P02' }) }) }, 'x');
    const out = text();
    const lines = out.trim().split('\n');
    assert.doesNotMatch(out, /Secretname|Anna/);
    const first = JSON.parse(lines[0]!) as { err: Record<string, unknown> };
    assert.equal(first.err['code'], '22P02');
    assert.equal(first.err['message'], 'invalid input syntax for type json');
    assert.equal(first.err['where'], undefined);
    assert.equal(first.err['detail'], undefined);
    assert.match(lines[1]!, /invalid input syntax for type integer: \\"…\\"/);
  });
  it('ORM errors lose their bound parameters; other errors keep their message', () => {
    const { log, text } = capture();
    log.error({ err: Object.assign(new Error('query failed: relation "x" does not exist'), { query: 'INSERT …', parameters: ['Secretname'] }) }, 'x');
    const lines = text().trim().split('\n');
    assert.doesNotMatch(lines.join(''), /Secretname/);
    assert.match(lines[0]!, /relation \\"x\\" does not exist/);
    assert.match(lines[0]!, /INSERT …/);
  });
});

describe('the address scrubber', () => {
  it('redacts addresses and mailboxes and keeps the rest', () => {
    assert.equal(
      scrubText('to jane.doe@example.com, "Jane Doe" <jane@example.com> and <x@y.z>; @handle, trailing@ and a@@b stay or go'),
      'to [redacted], [redacted] and <[redacted]>; @handle, trailing@ and [redacted] stay or go',
    );
  });

  // a megabyte of one run of address characters, with and without an @: the old pattern tried every start position
  // across the whole run (17 s for 100 kB, hours for this); linear, it takes milliseconds, far inside the timeout
  it('is linear in the length of its text: a megabyte-long run of address characters', { timeout: 10_000 }, () => {
    const run = 'a'.repeat(1_000_000);
    assert.equal(scrubText(run), run);
    assert.equal(scrubText(`${run}@`), `${run}@`);
    assert.equal(scrubText(`x ${run}@b y`), 'x [redacted] y');
    assert.equal(scrubText('<'.repeat(200_000)), '<'.repeat(200_000));
    assert.equal(scrubText('"a" '.repeat(200_000)), '"a" '.repeat(200_000));
  });
});
