import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError } from '@verity/errors';
import { findUnstorableText, isStorableText, mayHoldUnstorableText, unstorableInputError } from './storable-text.js';

const LONE_HIGH = '\uD83D';
const LONE_LOW = '\uDE00';

describe('storable text', () => {
  it('accepts any Unicode text, astral characters and their escapes included', () => {
    for (const s of ['', 'Müller', '王小明', 'O\u2019Brien', '\uD83D\uDE00 emoji', 'line\nbreak\ttab', 'x\u007f']) assert.equal(isStorableText(s), true, s);
  });
  it('refuses NUL and unpaired surrogates, wherever they are', () => {
    for (const s of ['\u0000', 'a\u0000b', LONE_HIGH, LONE_LOW, `x${LONE_HIGH}y`, `${LONE_LOW}${LONE_HIGH}`, `\uD83D\uDE00${LONE_LOW}`]) {
      assert.equal(isStorableText(s), false, JSON.stringify(s));
    }
  });
  it('the JSON prefilter says yes for every unstorable string as JSON.stringify writes it', () => {
    for (const s of ['a\u0000b', LONE_HIGH, LONE_LOW]) {
      assert.equal(mayHoldUnstorableText(JSON.stringify({ s })), true);
      assert.equal(mayHoldUnstorableText(JSON.stringify({ [s]: 1 })), true);
    }
    assert.equal(mayHoldUnstorableText(JSON.stringify({ s: 'Müller \uD83D\uDE00 王' })), false);
  });
  it('finds the first unstorable string or field name with its path', () => {
    assert.equal(findUnstorableText({ a: ['x', { b: 'ok' }], n: 1, t: true, z: null }), null);
    assert.deepEqual(findUnstorableText({ a: 'ok', b: { c: ['x', `y${LONE_LOW}`] } }), { path: ['b', 'c', 1], inName: false });
    assert.deepEqual(findUnstorableText({ m: { 'bad\u0000': 1 } }), { path: ['m'], inName: true });
  });
  it('walks very deep values without running out of stack', () => {
    let v: unknown = 'a\u0000';
    for (let i = 0; i < 100_000; i++) v = [v];
    assert.equal(findUnstorableText(v)?.path.length, 100_000);
  });
});

describe('the refusal of a request payload', () => {
  const refusal = (p: unknown) => unstorableInputError(p)!;
  it('names a body field by its path in the body, never repeating the value', () => {
    const e = refusal({ body: { family_name: 'Ann', address: { line1: `Rue${LONE_HIGH}secret` } } });
    assert.ok(e instanceof DomainError);
    assert.equal(e.code, 'validation_error');
    assert.equal(e.param, 'address');
    assert.deepEqual(e.details, { issues: [{ code: 'invalid_format', message: 'address.line1 must be text without NUL characters or unpaired surrogates', path: ['address', 'line1'] }] });
    assert.doesNotMatch(JSON.stringify(e.toData()), /Rue|secret/);
  });
  it('names a query parameter by its name', () => {
    const e = refusal({ applicant_id: '\u0000', limit: '10' });
    assert.equal(e.param, 'applicant_id');
    assert.equal(e.message, 'applicant_id must be text without NUL characters or unpaired surrogates');
  });
  it('a field name is refused without repeating it', () => {
    const e = refusal({ body: { metadata: { [`k${LONE_LOW}secret`]: 'v' } } });
    assert.equal(e.param, 'metadata');
    assert.equal(e.message, 'a field name in metadata must be text without NUL characters or unpaired surrogates');
    assert.doesNotMatch(JSON.stringify(e.toData()), /secret/);
    assert.equal(refusal({ ['\u0000']: 'x' }).param, undefined);
  });
  it('a path id that is not text is an unknown id: 404', () => {
    assert.equal(refusal({ id: 'ses_\u0000' }).code, 'resource_not_found');
    assert.equal(refusal({ id: 'ses_1', body: { note: '\u0000' } }).param, 'note');
    // the payload of a list is its query string: there, `id` is a query parameter like any other
    const listed = unstorableInputError({ id: '\u0000' }, { query: true })!;
    assert.equal(listed.code, 'validation_error');
    assert.equal(listed.param, 'id');
  });
  it('a body that is itself a bad string names no field', () => {
    const e = refusal({ body: '\u0000' });
    assert.equal(e.param, undefined);
    assert.equal(e.message, 'the body must be text without NUL characters or unpaired surrogates');
  });
  it('finds nothing in storable payloads', () => {
    assert.equal(unstorableInputError({ body: { note: 'fine \uD83D\uDE00' }, id: 'ses_1' }), null);
  });
});
