import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomainError, type Issue } from '@verity/errors';
import { DECLINE_MESSAGES, UNRESOLVABLE_FIELD_MESSAGE } from '@verity/screening-engine';
import { applyPatch, validateCreateBody, validatePatchBody, type TemplateFields } from './template.validation.js';

const rule = (over: Record<string, unknown> = {}) => ({
  name: 'many findings',
  ruleType: 'watchlist_hit',
  condition: { kind: 'field', field: 'finding.count', operator: 'gt', value: 2 },
  action: 'review',
  ...over,
});

function refusal(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof DomainError, String(e));
    return e;
  }
  assert.fail('expected a refusal');
}

function issues(fn: () => unknown): Issue[] {
  const e = refusal(fn);
  assert.equal(e.code, 'validation_error');
  return (e.details as { issues: Issue[] }).issues;
}

const createIssues = (body: unknown) => issues(() => validateCreateBody(body));

describe('workflow template create body', () => {
  it('applies the template defaults (docs/screening.md) to a name alone', () => {
    assert.deepEqual(validateCreateBody({ name: 'Onboarding' }), {
      name: 'Onboarding',
      checks: [],
      screening_rules: [],
      metadata: {},
      device_intelligence: false,
      photo_upload: false,
      review_threshold: 0.5,
      signing_document: null,
      minimum_age: null,
      accepted_document_types: null,
      accepted_issuing_countries: null,
      applicant_mismatch: 'review',
      thresholds: {},
      watchlist_thresholds: {},
    });
  });

  it('accepts every field and normalizes the rules (priority 100, isActive true)', () => {
    const t = validateCreateBody({
      name: 'Rentals',
      checks: ['document', 'face_match', 'liveness', 'document_signing'],
      screening_rules: [rule(), rule({ name: 'tier', action: 'tag', priority: 5, isActive: false, condition: { kind: 'field', field: 'session.metadata.tier', operator: 'eq', value: 'gold' } })],
      metadata: { tier: 'gold', nested: { any: ['json', 1, true, null] } },
      device_intelligence: true,
      photo_upload: true,
      review_threshold: 0.75,
      signing_document: { title: 'Rental agreement', variables: ['start_datetime', 'amount', 'currency'] },
    });
    assert.equal(t.screening_rules[0]!.priority, 100);
    assert.equal(t.screening_rules[0]!.isActive, true);
    assert.equal(t.screening_rules[1]!.priority, 5);
    assert.equal(t.screening_rules[1]!.isActive, false);
    assert.deepEqual(t.metadata, { tier: 'gold', nested: { any: ['json', 1, true, null] } });
    assert.deepEqual(t.signing_document, { title: 'Rental agreement', variables: ['start_datetime', 'amount', 'currency'] });
    assert.equal(t.review_threshold, 0.75);
  });

  it('accepts the bounds of review_threshold and of name', () => {
    for (const review_threshold of [0, 1, 0.5]) assert.equal(validateCreateBody({ name: 'x', review_threshold }).review_threshold, review_threshold);
    assert.equal(validateCreateBody({ name: 'x'.repeat(200) }).name.length, 200);
    assert.deepEqual(validateCreateBody({ name: 'x', checks: ['document_signing'], signing_document: { title: 'T' } }).signing_document, {
      title: 'T',
      variables: [],
    });
  });

  it('checks each field, naming it in the issue path', () => {
    const cases: Array<[Record<string, unknown>, (string | number)[]]> = [
      [{}, ['name']],
      [{ name: '' }, ['name']],
      [{ name: '   ' }, ['name']],
      [{ name: 'x'.repeat(201) }, ['name']],
      [{ name: 'a\nb' }, ['name']],
      [{ name: 'a\u0000b' }, ['name']],
      [{ name: '\ud800' }, ['name']],
      [{ name: 7 }, ['name']],
      [{ name: 'x', checks: 'document' }, ['checks']],
      [{ name: 'x', checks: ['selfie'] }, ['checks', 0]],
      [{ name: 'x', checks: ['document', 'watchlist', 'document'] }, ['checks', 2]],
      [{ name: 'x', metadata: [] }, ['metadata']],
      [{ name: 'x', metadata: null }, ['metadata']],
      [{ name: 'x', metadata: 'a=b' }, ['metadata']],
      [{ name: 'x', device_intelligence: 'true' }, ['device_intelligence']],
      [{ name: 'x', photo_upload: 1 }, ['photo_upload']],
      [{ name: 'x', review_threshold: 1.01 }, ['review_threshold']],
      [{ name: 'x', review_threshold: -0.1 }, ['review_threshold']],
      [{ name: 'x', review_threshold: '0.5' }, ['review_threshold']],
      [{ name: 'x', checks: ['document_signing'], signing_document: { variables: [] } }, ['signing_document', 'title']],
      [{ name: 'x', checks: ['document_signing'], signing_document: { title: 'T', variables: ['deposit'] } }, ['signing_document', 'variables', 0]],
      [{ name: 'x', checks: ['document_signing'], signing_document: { title: 'T', variables: ['amount', 'amount'] } }, ['signing_document', 'variables', 1]],
      [{ name: 'x', checks: ['document_signing'], signing_document: { title: 'T', font: 'serif' } }, ['signing_document', 'font']],
      [{ name: 'x', signing_document: null }, ['signing_document']],
      [{ name: 'x', screening_rules: {} }, ['screening_rules']],
    ];
    for (const [body, path] of cases) assert.deepEqual(createIssues(body)[0]!.path, path, JSON.stringify(body));
  });

  it('refuses unknown fields, read-only fields of a template included', () => {
    for (const field of ['colour', 'id', 'object', 'version', 'created_at', 'screeningRules']) {
      const i = createIssues({ name: 'x', [field]: 1 });
      assert.deepEqual(
        i.map((x) => [x.code, x.path]),
        [['unrecognized_keys', [field]]],
      );
    }
  });

  it('refuses a body that is not an object', () => {
    for (const b of [null, [], 'x', 3, undefined]) assert.deepEqual(createIssues(b)[0]!.path, []);
  });

  it('reports every issue at once, param naming the first', () => {
    const e = refusal(() => validateCreateBody({ name: '', review_threshold: 2, screening_rules: [rule({ priority: -1 })] }));
    const paths = (e.details as { issues: Issue[] }).issues.map((i) => i.path);
    assert.deepEqual(paths, [['name'], ['review_threshold'], ['screening_rules', 0, 'priority']]);
    assert.equal(e.param, 'name');
  });
});

describe('document policy and thresholds', () => {
  it('accepts a minimum age, accepted types and issuers, the mismatch policy and paired thresholds', () => {
    const t = validateCreateBody({
      name: 'Adults with EU passports',
      checks: ['document', 'face_match'],
      minimum_age: 18,
      accepted_document_types: ['passport', 'identity_card'],
      accepted_issuing_countries: ['NL', 'DE', 'FI'],
      applicant_mismatch: 'fail',
      thresholds: { faceMatchPass: 0.7, faceMatchReview: 0.5 },
    });
    assert.deepEqual(
      [t.minimum_age, t.accepted_document_types, t.accepted_issuing_countries, t.applicant_mismatch, t.thresholds],
      [18, ['passport', 'identity_card'], ['NL', 'DE', 'FI'], 'fail', { faceMatchPass: 0.7, faceMatchReview: 0.5 }],
    );
    // the bounds, and review equal to pass
    const b = validateCreateBody({ name: 'b', minimum_age: 0, thresholds: { faceMatchPass: 1, faceMatchReview: 1, livenessPass: 0, livenessReview: 0 } });
    assert.deepEqual([b.minimum_age, b.thresholds], [0, { faceMatchPass: 1, faceMatchReview: 1, livenessPass: 0, livenessReview: 0 }]);
    assert.equal(validateCreateBody({ name: 'c', minimum_age: 125 }).minimum_age, 125);
  });

  const refused: Array<[string, Record<string, unknown>, Array<string | number>]> = [
    ['a fractional age', { minimum_age: 17.5 }, ['minimum_age']],
    ['a negative age', { minimum_age: -1 }, ['minimum_age']],
    ['an age beyond any life', { minimum_age: 126 }, ['minimum_age']],
    ['an age as a string', { minimum_age: '18' }, ['minimum_age']],
    ['an unknown document type', { accepted_document_types: ['passport', 'visa'] }, ['accepted_document_types', 1]],
    ['a repeated document type', { accepted_document_types: ['passport', 'passport'] }, ['accepted_document_types', 1]],
    ['no document type at all', { accepted_document_types: [] }, ['accepted_document_types']],
    ['an alpha-3 country', { accepted_issuing_countries: ['NLD'] }, ['accepted_issuing_countries', 0]],
    ['a lower-case country', { accepted_issuing_countries: ['nl'] }, ['accepted_issuing_countries', 0]],
    ['a code that names no country', { accepted_issuing_countries: ['XX'] }, ['accepted_issuing_countries', 0]],
    ['a repeated country', { accepted_issuing_countries: ['FI', 'FI'] }, ['accepted_issuing_countries', 1]],
    ['no country at all', { accepted_issuing_countries: [] }, ['accepted_issuing_countries']],
    ['another mismatch policy', { applicant_mismatch: 'decline' }, ['applicant_mismatch']],
    ['a threshold above 1', { thresholds: { faceMatchPass: 1.2, faceMatchReview: 0.5 } }, ['thresholds', 'faceMatchPass']],
    ['a negative threshold', { thresholds: { livenessPass: 0.7, livenessReview: -0.1 } }, ['thresholds', 'livenessReview']],
    ['review above pass', { thresholds: { faceMatchPass: 0.5, faceMatchReview: 0.6 } }, ['thresholds', 'faceMatchReview']],
    ['a pass without its review', { thresholds: { livenessPass: 0.7 } }, ['thresholds', 'livenessReview']],
    ['a review without its pass', { thresholds: { faceMatchReview: 0.4 } }, ['thresholds', 'faceMatchPass']],
    ['an unknown threshold', { thresholds: { similarity: 0.5 } }, ['thresholds', 'similarity']],
    ['thresholds that are no object', { thresholds: [0.5] }, ['thresholds']],
  ];
  for (const [what, body, path] of refused) {
    it(`refuses ${what} at ${path.join('.')}, on create and on PATCH`, () => {
      const create = issues(() => validateCreateBody({ name: 'x', ...body }));
      assert.deepEqual(create.map((i) => i.path), [path], JSON.stringify(create));
      assert.equal(refusal(() => validateCreateBody({ name: 'x', ...body })).param, path[0]);
      assert.deepEqual(issues(() => validatePatchBody(body)).map((i) => i.path), [path]);
    });
  }

  it('PATCH sets and clears each field; null lifts a limit, thresholds {} returns to the region\'s', () => {
    assert.deepEqual(validatePatchBody({ minimum_age: null, accepted_document_types: null, accepted_issuing_countries: null, thresholds: {} }), {
      minimum_age: null,
      accepted_document_types: null,
      accepted_issuing_countries: null,
      thresholds: {},
    });
    const base = validateCreateBody({ name: 'x', minimum_age: 21, thresholds: { faceMatchPass: 0.7, faceMatchReview: 0.5 } });
    const next = applyPatch(base, validatePatchBody({ minimum_age: 18 }));
    assert.deepEqual([next.minimum_age, next.thresholds, next.applicant_mismatch], [18, { faceMatchPass: 0.7, faceMatchReview: 0.5 }, 'review']);
    // null is refused where a field has no "no limit" (the mismatch policy, the thresholds object)
    assert.deepEqual(issues(() => validatePatchBody({ applicant_mismatch: null, thresholds: null })).map((i) => i.path), [['applicant_mismatch'], ['thresholds']]);
  });
});

describe('screening rule refusals', () => {
  it('passes the engine issues through with paths under screening_rules and param screening_rules', () => {
    const e = refusal(() => validateCreateBody({ name: 'x', screening_rules: [rule(), rule({ condition: { kind: 'field', field: 'finding.count', operator: 'like', value: 1 } })] }));
    assert.equal(e.code, 'validation_error');
    assert.equal(e.param, 'screening_rules');
    assert.deepEqual(
      (e.details as { issues: Issue[] }).issues.map((i) => [i.code, i.path]),
      [['invalid_value', ['screening_rules', 1, 'condition', 'operator']]],
    );
  });

  it('refuses more than 100 rules', () => {
    const i = createIssues({ name: 'x', screening_rules: Array.from({ length: 101 }, () => rule()) });
    assert.deepEqual(i.map((x) => [x.code, x.path]), [['too_big', ['screening_rules']]]);
    assert.equal(validateCreateBody({ name: 'x', screening_rules: Array.from({ length: 100 }, () => rule()) }).screening_rules.length, 100);
  });

  it('refuses each of the three declines with its own message at [screening_rules, i, action]', () => {
    const declines: Array<[Record<string, unknown>, string]> = [
      [rule({ ruleType: 'credit_history', action: 'decline' }), DECLINE_MESSAGES.creditHistory],
      [rule({ ruleType: 'bot_signal', action: 'decline' }), DECLINE_MESSAGES.fraud],
      [rule({ ruleType: 'age_restriction', action: 'decline', condition: { kind: 'field', field: 'applicant.age', operator: 'lt', value: 18 } }), DECLINE_MESSAGES.sensitive],
    ];
    for (const [r, message] of declines) {
      assert.deepEqual(createIssues({ name: 'x', screening_rules: [rule(), r] }), [{ code: 'custom', message, path: ['screening_rules', 1, 'action'] }]);
    }
    assert.equal(new Set(declines.map(([, m]) => m)).size, 3);
  });

  it('answers an unresolvable field, even nested in groups, with details exactly { field }', () => {
    const condition = {
      kind: 'group',
      op: 'AND',
      children: [
        { kind: 'field', field: 'finding.count', operator: 'gt', value: 0 },
        { kind: 'group', op: 'OR', children: [{ kind: 'field', field: 'applicant.shoeSize', operator: 'gt', value: 40 }] },
      ],
    };
    const e = refusal(() => validateCreateBody({ name: 'x', screening_rules: [rule({ condition })] }));
    assert.equal(e.code, 'validation_error');
    assert.equal(e.message, UNRESOLVABLE_FIELD_MESSAGE);
    assert.deepEqual(e.details, { field: 'applicant.shoeSize' });
    assert.equal(e.param, 'screening_rules');
  });

  it('a pattern field off its grammar is unresolvable, never echoing the value', () => {
    const e = refusal(() =>
      validateCreateBody({ name: 'x', screening_rules: [rule({ condition: { kind: 'field', field: 'session.metadata.risk-tier', operator: 'eq', value: 'secret-value' } })] }),
    );
    assert.deepEqual(e.details, { field: 'session.metadata.risk-tier' });
    assert.ok(!JSON.stringify(e.toData()).includes('secret-value'));
  });

  it('other issues of the body win over an unresolvable field (all reported as issues)', () => {
    const i = createIssues({ name: '', screening_rules: [rule({ condition: { kind: 'field', field: 'applicant.shoeSize', operator: 'exists' } })] });
    assert.deepEqual(i.map((x) => x.path), [['name']]);
  });
});

describe('signing document and document_signing check', () => {
  it('a document_signing check without a signing_document is 403 esign_requirements_not_met', () => {
    const e = refusal(() => validateCreateBody({ name: 'x', checks: ['document_signing'] }));
    assert.equal(e.code, 'esign_requirements_not_met');
    assert.equal(e.param, 'signing_document');
    assert.deepEqual(e.details, { reason: 'signing_document_required' });
  });

  it('a signing_document without the check is refused the same way, naming checks', () => {
    const e = refusal(() => validateCreateBody({ name: 'x', checks: ['document'], signing_document: { title: 'T', variables: [] } }));
    assert.equal(e.code, 'esign_requirements_not_met');
    assert.equal(e.param, 'checks');
    assert.deepEqual(e.details, { reason: 'document_signing_check_required' });
  });

  it('shape issues come before the cross-field refusal', () => {
    const e = refusal(() => validateCreateBody({ name: '', checks: ['document_signing'] }));
    assert.equal(e.code, 'validation_error');
  });
});

describe('workflow template PATCH body', () => {
  const current: TemplateFields = validateCreateBody({
    name: 'Base',
    checks: ['document'],
    screening_rules: [rule()],
    metadata: { a: 1 },
  });

  it('keeps only the fields sent; omitted rules stay, [] clears them, sent rules replace the set', () => {
    const renamed = applyPatch(current, validatePatchBody({ name: 'Renamed' }));
    assert.deepEqual(renamed, { ...current, name: 'Renamed' });
    assert.deepEqual(applyPatch(current, validatePatchBody({ screening_rules: [] })).screening_rules, []);
    const replaced = applyPatch(current, validatePatchBody({ screening_rules: [rule({ name: 'other', action: 'tag' })] }));
    assert.deepEqual(
      replaced.screening_rules.map((r) => r.name),
      ['other'],
    );
  });

  it('replaces metadata as a whole object, never merging', () => {
    assert.deepEqual(applyPatch(current, validatePatchBody({ metadata: { b: 2 } })).metadata, { b: 2 });
  });

  it('adds and removes a signing document together with its check', () => {
    const signed = applyPatch(current, validatePatchBody({ checks: ['document', 'document_signing'], signing_document: { title: 'T', variables: ['location'] } }));
    assert.deepEqual(signed.signing_document, { title: 'T', variables: ['location'] });
    const unsigned = applyPatch(signed, validatePatchBody({ checks: ['document'], signing_document: null }));
    assert.equal(unsigned.signing_document, null);
    // removing only the check leaves a document without its check: refused
    assert.equal(refusal(() => applyPatch(signed, validatePatchBody({ checks: ['document'] }))).code, 'esign_requirements_not_met');
    assert.equal(refusal(() => applyPatch(current, validatePatchBody({ checks: ['document_signing'] }))).code, 'esign_requirements_not_met');
  });

  it('refuses an empty body, null for fields other than signing_document, unknown fields and bad rules', () => {
    assert.deepEqual(issues(() => validatePatchBody({}))[0]!.path, []);
    for (const field of ['name', 'checks', 'metadata', 'device_intelligence', 'photo_upload', 'review_threshold', 'screening_rules']) {
      assert.deepEqual(issues(() => validatePatchBody({ [field]: null }))[0]!.path, [field], field);
    }
    assert.deepEqual(issues(() => validatePatchBody({ name: 'x', extra: 1 }))[0]!.path, ['extra']);
    assert.deepEqual(issues(() => validatePatchBody({ screening_rules: [rule({ action: 'explode' })] }))[0]!.path, ['screening_rules', 0, 'action']);
    assert.deepEqual(refusal(() => validatePatchBody({ screening_rules: [rule({ condition: { kind: 'field', field: 'nope', operator: 'exists' } })] })).details, { field: 'nope' });
  });

  it('does not let a later change of the input alter the accepted patch', () => {
    const rules = [rule()];
    const patch = validatePatchBody({ screening_rules: rules });
    (rules[0] as Record<string, unknown>).name = 'mutated';
    assert.equal(patch.screening_rules![0]!.name, 'many findings');
  });
});

describe('template sizes', () => {
  it('metadata over 16 KiB and screening rules over 128 KiB (as JSON, UTF-8) are too_big, on create and on patch', () => {
    assert.deepEqual(createIssues({ name: 'n', metadata: { k: 'x'.repeat(17_000) } }).map((i) => [i.code, i.path]), [['too_big', ['metadata']]]);
    const heavy = Array.from({ length: 100 }, (_, i) => rule({ name: `rule ${i}`, condition: { kind: 'field', field: 'finding.id', operator: 'eq', value: 'x'.repeat(2000) } }));
    assert.deepEqual(issues(() => validatePatchBody({ screening_rules: heavy })).map((i) => [i.code, i.path]), [['too_big', ['screening_rules']]]);
    // below the limit, metadata is accepted as sent
    assert.equal(validateCreateBody({ name: 'n', metadata: { k: 'x'.repeat(16_000) } }).metadata['k'], 'x'.repeat(16_000));
  });
});

describe('watchlist thresholds (docs/watchlist.md, "Per workflow")', () => {
  it('accepts a review threshold, a fail threshold, both, or null for "no automated fail", each from 0.5 to 1', () => {
    for (const w of [{}, { review: 0.9 }, { fail: 0.95 }, { review: 0.5, fail: 1 }, { review: 0.85, fail: 0.85 }, { fail: null }, { review: 0.7, fail: null }]) {
      assert.deepEqual(validateCreateBody({ name: 'x', watchlist_thresholds: w }).watchlist_thresholds, w);
      assert.deepEqual(validatePatchBody({ watchlist_thresholds: w }), { watchlist_thresholds: w });
    }
  });

  const refused: Array<[string, unknown, (string | number)[]]> = [
    ['a review threshold below 0.5', { review: 0.4 }, ['watchlist_thresholds', 'review']],
    ['a review threshold above 1', { review: 1.01 }, ['watchlist_thresholds', 'review']],
    ['a fail threshold below 0.5', { fail: 0.3 }, ['watchlist_thresholds', 'fail']],
    ['review above fail', { review: 0.9, fail: 0.85 }, ['watchlist_thresholds', 'review']],
    ['a threshold that is no number', { review: '0.9' }, ['watchlist_thresholds', 'review']],
    ['null for review (it has no "none")', { review: null }, ['watchlist_thresholds', 'review']],
    ['an unknown member', { hit: 0.9 }, ['watchlist_thresholds', 'hit']],
    ['thresholds that are no object', [0.9], ['watchlist_thresholds']],
  ];
  for (const [what, w, path] of refused) {
    it(`refuses ${what} at ${path.join('.')} (param watchlist_thresholds), on create and on PATCH`, () => {
      const create = refusal(() => validateCreateBody({ name: 'x', watchlist_thresholds: w }));
      assert.equal(create.code, 'validation_error');
      assert.equal(create.param, 'watchlist_thresholds');
      assert.deepEqual((create.details as { issues: Issue[] }).issues.map((i) => i.path), [path]);
      assert.deepEqual(issues(() => validatePatchBody({ watchlist_thresholds: w })).map((i) => i.path), [path]);
    });
  }

  it('a PATCH replaces the thresholds whole; {} returns to the region\'s, null is refused; other changes keep them', () => {
    const base = validateCreateBody({ name: 'x', watchlist_thresholds: { review: 0.9, fail: 0.97 } });
    assert.deepEqual(applyPatch(base, validatePatchBody({ watchlist_thresholds: { fail: null } })).watchlist_thresholds, { fail: null });
    assert.deepEqual(applyPatch(base, validatePatchBody({ watchlist_thresholds: {} })).watchlist_thresholds, {});
    assert.deepEqual(applyPatch(base, validatePatchBody({ name: 'y' })).watchlist_thresholds, { review: 0.9, fail: 0.97 });
    assert.deepEqual(issues(() => validatePatchBody({ watchlist_thresholds: null })).map((i) => i.path), [['watchlist_thresholds']]);
  });
});
