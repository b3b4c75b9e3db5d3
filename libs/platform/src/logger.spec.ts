import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from './logger.js';

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
});
