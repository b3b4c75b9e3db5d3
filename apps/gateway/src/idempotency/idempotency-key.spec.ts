import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError } from '@verity/errors';
import { decideOnRecord, fingerprint, openBody, parseRecord, readIdempotencyKey, recordKey, sealBody, type IdempotencyRecord } from './idempotency-key.js';

const once = (v: string) => ['Idempotency-Key', v];

function refusedWith(value: string, rawHeaders: string[], issue: string): void {
  assert.throws(
    () => readIdempotencyKey(value, rawHeaders),
    (e: unknown) => {
      assert.ok(e instanceof DomainError);
      assert.equal(e.code, 'validation_error');
      assert.equal(e.param, 'Idempotency-Key');
      assert.deepEqual((e.details as { issues: { code: string; path: string[] }[] }).issues.map((i) => [i.code, i.path]), [[issue, ['Idempotency-Key']]]);
      return true;
    },
    JSON.stringify(value),
  );
}

describe('Idempotency-Key: the header', () => {
  it('absent is no key; 1 to 255 printable ASCII characters, spaces and punctuation included, are taken as sent', () => {
    assert.equal(readIdempotencyKey(undefined, []), undefined);
    for (const v of ['a', 'x'.repeat(255), '8e03978e-40d5-43e8-bc93-6894a57f9324', 'order 42/retry ~!@#$%^&*()_+{}|:"<>?`-=[]\\;\',.']) {
      assert.equal(readIdempotencyKey(v, once(v)), v);
    }
  });

  it('empty, over 255 characters, or with a character outside space..tilde is 422 validation_error naming the header', () => {
    refusedWith('', once(''), 'too_small');
    refusedWith('x'.repeat(256), once('x'.repeat(256)), 'too_big');
    for (const v of ['caf\u00e9', 'tab\there', 'del\x7f', 'nul\x00', 'emoji\u{1F600}']) refusedWith(v, once(v), 'invalid_format');
  });

  it('sent twice (Node joins repeats into one value) is refused, whatever the spelling of the name', () => {
    refusedWith('a, b', ['Idempotency-Key', 'a', 'idempotency-key', 'b'], 'invalid_format');
    assert.equal(readIdempotencyKey('a', ['Content-Type', 'application/json', 'IDEMPOTENCY-KEY', 'a']), 'a');
  });
});

describe('Idempotency-Key: fingerprint and storage key', () => {
  it('the fingerprint covers method, path with query and the exact body bytes; no body is the empty body', () => {
    const base = fingerprint('POST', '/v1/sessions', Buffer.from('{"a":1}'));
    assert.match(base, /^[0-9a-f]{64}$/);
    assert.equal(fingerprint('POST', '/v1/sessions', Buffer.from('{"a":1}')), base);
    for (const other of [
      fingerprint('PUT', '/v1/sessions', Buffer.from('{"a":1}')),
      fingerprint('POST', '/v1/applicants', Buffer.from('{"a":1}')),
      fingerprint('POST', '/v1/sessions?x=1', Buffer.from('{"a":1}')),
      fingerprint('POST', '/v1/sessions', Buffer.from('{ "a": 1 }')),
      fingerprint('POST', '/v1/sessions', null),
    ]) {
      assert.notEqual(other, base);
    }
    assert.equal(fingerprint('POST', '/v1/sessions/ses_1/cancel', null), fingerprint('POST', '/v1/sessions/ses_1/cancel', Buffer.alloc(0)));
  });

  it('the Redis key holds the prefix and scope in clear and the key only as its SHA-256', () => {
    const k = recordKey('us:', 'org_1:live', 'my secret key');
    assert.match(k, /^us:idempotency:org_1:live:[0-9a-f]{64}$/);
    assert.ok(!k.includes('secret'));
    assert.equal(recordKey('us:', 'org_1:live', 'my secret key'), k);
    assert.notEqual(recordKey('us:', 'org_1:test', 'my secret key'), k);
    assert.notEqual(recordKey('us:', 'capture:ses_1', 'my secret key'), k);
  });
});

describe('Idempotency-Key: a key already held', () => {
  const done: IdempotencyRecord = { state: 'done', owner: 'req_1', fp: 'f1', status: 201, content_type: 'application/json', body: sealBody('org_1:live', 'k', Buffer.from('{}')) };
  const running: IdempotencyRecord = { state: 'running', owner: 'req_1', fp: 'f1' };
  const code = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return (e as DomainError).code;
    }
    return 'answered';
  };

  it('the same request replays a stored answer and is 409 idempotency_key_in_use while the first runs', () => {
    assert.deepEqual(decideOnRecord(done, 'f1'), { replay: done });
    assert.equal(code(() => decideOnRecord(running, 'f1')), 'idempotency_key_in_use');
  });

  it('another request (path or body) is 422 idempotency_key_reused, whether the first is done or still running', () => {
    assert.equal(code(() => decideOnRecord(done, 'f2')), 'idempotency_key_reused');
    assert.equal(code(() => decideOnRecord(running, 'f2')), 'idempotency_key_reused');
  });

  it('a stored answer opens with the same key and scope only', () => {
    const body = Buffer.from('{"data":{"family_name":"Lindqvist"}}');
    const sealed = sealBody('org_1:live', 'key-1', body);
    assert.ok(!Buffer.from(sealed, 'base64').includes(Buffer.from('Lindqvist')), 'nothing readable');
    assert.deepEqual(openBody('org_1:live', 'key-1', sealed), body);
    assert.throws(() => openBody('org_1:live', 'key-2', sealed));
    assert.throws(() => openBody('org_2:live', 'key-1', sealed));
  });

  it('a record that is not one of ours reads as nothing', () => {
    for (const raw of ['', 'not json', '42', '{"state":"other","fp":"x"}', '{"state":"done"}']) assert.equal(parseRecord(raw), null, raw);
    assert.deepEqual(parseRecord(JSON.stringify(running)), running);
  });
});
