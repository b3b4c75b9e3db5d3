import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { DomainError, httpStatusOf } from './domain-error.js';
import { checkBody, checkForm, parseBody } from './parse-body.js';

const schema = z.strictObject({ name: z.string().min(1), address: z.strictObject({ city: z.string() }).optional(), tags: z.array(z.string()).max(2).default([]) });

const refusal = (f: () => unknown): DomainError => {
  try {
    f();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  return assert.fail('accepted');
};

describe('parseBody', () => {
  it('returns the value as the schema turns it out', () => {
    assert.deepEqual(parseBody(schema, { name: 'Ada' }), { name: 'Ada', tags: [] });
  });

  it('refuses with 422 validation_error naming every issue, each unknown field once, param the first path', () => {
    const e = refusal(() => parseBody(schema, { name: '', colour: 'red', size: 1, address: { city: 3, zip: 'x' }, tags: ['a', 'b', 'c'] }));
    assert.equal(e.code, 'validation_error');
    assert.equal(httpStatusOf(e.code), 422);
    const issues = (e.details as { issues: { code: string; message: string; path: (string | number)[] }[] }).issues;
    assert.deepEqual(
      issues.map((i) => [i.code, i.path.join('.')]).sort(),
      [
        ['invalid_type', 'address.city'],
        ['too_big', 'tags'],
        ['too_small', 'name'],
        ['unrecognized_keys', 'address.zip'],
        ['unrecognized_keys', 'colour'],
        ['unrecognized_keys', 'size'],
      ].sort(),
    );
    assert.ok(issues.find((i) => i.path.join('.') === 'colour')!.message === 'unknown field: colour');
    assert.match(issues.find((i) => i.path.join('.') === 'name')!.message, /^name: /);
    assert.equal(e.param, String(issues[0]!.path[0]));
  });

  it('a body that is not an object is one issue about the body; the caller’s own issues come first', () => {
    const e = refusal(() => parseBody(schema, 'text'));
    assert.match((e.details as { issues: { message: string }[] }).issues[0]!.message, /^body: /);
    const mine = { code: 'custom', message: 'first_name is no longer accepted', path: ['first_name'] };
    const both = refusal(() => parseBody(schema, { name: 'Ada' }, [mine]));
    assert.deepEqual((both.details as { issues: unknown[] }).issues, [mine]);
    assert.equal(both.param, 'first_name');
  });

  it('an unknown key is cut at 100 characters', () => {
    const long = 'k'.repeat(300);
    const r = checkBody(schema, { name: 'Ada', [long]: 1 });
    assert.equal(r.ok, false);
    assert.equal(r.issues[0]!.message, `unknown field: ${'k'.repeat(100)}`);
  });

  it('a refinement names its own code with params.code; other refinements stay custom', () => {
    const url = z.string().superRefine((v, ctx) => {
      if (v.startsWith('http:')) ctx.addIssue({ code: 'custom', message: 'must use https', params: { code: 'https_required' } });
      if (v.includes('#')) ctx.addIssue({ code: 'custom', message: 'no fragment' });
    });
    const r = checkBody(z.object({ url }), { url: 'http://x/#a' });
    assert.deepEqual(r.issues, [
      { code: 'https_required', message: 'url: must use https', path: ['url'] },
      { code: 'custom', message: 'url: no fragment', path: ['url'] },
    ]);
  });

  it('a form gives each issue’s own message, for a person, without the path', () => {
    const form = z.object({ from: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'From is a day (YYYY-MM-DD).'), q: z.string().max(3, 'At most 3 characters.') });
    assert.deepEqual(checkForm(form, { from: 'x', q: 'abcd' }), { ok: false, messages: ['From is a day (YYYY-MM-DD).', 'At most 3 characters.'] });
    assert.deepEqual(checkForm(form, { from: '2026-01-01', q: 'ab' }), { ok: true, data: { from: '2026-01-01', q: 'ab' } });
  });
});
