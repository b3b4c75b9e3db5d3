import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError, type Issue } from '@verity/errors';
import { validateApplicantInput } from './applicant.validation.js';

function issues(body: unknown): Issue[] {
  try {
    validateApplicantInput(body);
  } catch (e) {
    assert.ok(e instanceof DomainError);
    assert.equal(e.code, 'validation_error');
    return (e.details as { issues: Issue[] }).issues;
  }
  assert.fail('expected refusal');
}

describe('applicant input', () => {
  it('accepts the names model, a mononym included', () => {
    assert.deepEqual(validateApplicantInput({ family_name: 'Suharto' }).given_names, []);
    const a = validateApplicantInput({
      family_name: 'García Márquez',
      given_names: ['Gabriel', 'José'],
      name_suffix: 'Jr.',
      email: 'g@example.com',
      phone: '+5715550123',
      date_of_birth: '1927-03-06',
      address: { line1: 'Calle 1', city: 'Aracataca', country: 'CO' },
      external_id: 'crm-1',
    });
    assert.equal(a.family_name, 'García Márquez');
  });

  it('refuses each legacy field naming its replacement', () => {
    for (const [field, replacement] of [
      ['first_name', 'given_names'],
      ['middle_name', 'given_names'],
      ['last_name', 'family_name'],
      ['legal_name', 'family_name'],
      ['name', 'family_name'],
      ['full_name', 'family_name'],
    ] as const) {
      const i = issues({ family_name: 'X', [field]: 'Y' });
      assert.equal(i.length, 1);
      assert.deepEqual(i[0]!.path, [field]);
      assert.match(i[0]!.message, new RegExp(replacement));
    }
  });

  it('refuses unknown fields, also inside address', () => {
    assert.deepEqual(issues({ family_name: 'X', colour: 'red' })[0]!.path, ['colour']);
    assert.deepEqual(issues({ family_name: 'X', address: { planet: 'Mars' } })[0]!.path, ['address', 'planet']);
  });

  it('checks each field format', () => {
    const cases: Array<[Record<string, unknown>, (string | number)[]]> = [
      [{}, ['family_name']],
      [{ family_name: '' }, ['family_name']],
      [{ family_name: '   ' }, ['family_name']],
      [{ family_name: 'x'.repeat(201) }, ['family_name']],
      [{ family_name: 'X', given_names: 'Ann' }, ['given_names']],
      [{ family_name: 'X', given_names: ['Ann', ''] }, ['given_names', 1]],
      [{ family_name: 'X', email: 'nope' }, ['email']],
      [{ family_name: 'X', phone: '0155512345' }, ['phone']],
      [{ family_name: 'X', date_of_birth: '1990-02-30' }, ['date_of_birth']],
      [{ family_name: 'X', date_of_birth: '3000-01-01' }, ['date_of_birth']],
      [{ family_name: 'X', date_of_birth: '01/02/1990' }, ['date_of_birth']],
      [{ family_name: 'X', address: { country: 'UK' } }, ['address', 'country']],
      [{ family_name: 'X', address: { country: 'de' } }, ['address', 'country']],
      // NUL cannot be stored by Postgres, year 0000 does not exist: refused, never a 500
      [{ family_name: 'A\u0000B' }, ['family_name']],
      [{ family_name: 'X', given_names: ['Ann', 'B\u0000'] }, ['given_names', 1]],
      [{ family_name: 'X', external_id: 'crm\u0000' }, ['external_id']],
      [{ family_name: 'X', address: { line2: '\u0000' } }, ['address', 'line2']],
      [{ family_name: 'X', address: { postal_code: '1\u00002' } }, ['address', 'postal_code']],
      [{ family_name: 'X', date_of_birth: '0000-01-01' }, ['date_of_birth']],
    ];
    for (const [body, path] of cases) assert.deepEqual(issues(body)[0]!.path, path, JSON.stringify(body));
  });

  it('refuses a body that is not an object', () => {
    for (const b of [null, [], 'x', 3]) assert.equal(issues(b).length, 1);
  });

  it('never echoes a submitted value in messages', () => {
    const secret = 'secret-person@example';
    for (const i of issues({ family_name: 'X', email: secret, phone: secret, date_of_birth: secret })) {
      assert.ok(!i.message.includes(secret), i.message);
    }
  });
});
