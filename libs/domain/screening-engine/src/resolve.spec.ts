import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseField } from './fields.js';
import { ageAt, applicantLegalName, applicantName, emailDomain, fieldSource, metadataSource, parseDate } from './resolve.js';
import { NOW, baseContext, field, fires } from './test-support.js';
import type { EvaluationContext, Finding } from './types.js';

function resolve(path: string, ctx: EvaluationContext, deviceIntelligence = true, templateMetadata = {}): unknown {
  const ref = parseField(path);
  assert.ok(ref, path);
  const src = fieldSource(ref, { deviceIntelligence, templateMetadata });
  if (src.kind === 'error') assert.fail('unexpected error source');
  return src.kind === 'const' ? src.value : src.fn(ctx);
}

const finding = (over: Partial<Finding> & { evidence?: Record<string, unknown> }): Finding => ({
  id: 'f',
  subjectType: 'person',
  severity: 'low',
  sourceAuthority: 'OFAC',
  findingType: 'sanctions',
  evidence: {},
  ...over,
});

describe('document fields', () => {
  const doc = { type: 'passport', issuingCountry: 'FI', familyName: 'LEHTINEN', givenNames: ['AINO', 'KAARINA'], dateOfBirth: '2010-05-01', nationality: 'FI', applicantMatch: false };

  it('read what the document says, beside the applicant, never in place of it', () => {
    const ctx = baseContext({ document: doc });
    assert.equal(resolve('document.familyName', ctx), 'LEHTINEN');
    assert.deepEqual(resolve('document.givenNames', ctx), ['AINO', 'KAARINA']);
    assert.equal(resolve('applicant.familyName', ctx), 'Lovelace');
    assert.equal(resolve('document.type', ctx), 'passport');
    assert.equal(resolve('document.issuingCountry', ctx), 'FI');
    assert.equal(resolve('document.nationality', ctx), 'FI');
    assert.equal(resolve('document.dateOfBirth', ctx), '2010-05-01');
    assert.equal(resolve('document.applicantMatch', ctx), false);
    assert.equal(resolve('document.age', baseContext({ document: doc, now: new Date('2026-05-01T00:00:00Z') })), 16);
    assert.equal(resolve('document.age', baseContext({ document: doc, now: new Date('2026-04-30T23:59:59Z') })), 15);
  });

  it('resolve to nothing without a document (test mode, nothing read) or with values of the wrong type', () => {
    for (const f of ['document.familyName', 'document.givenNames', 'document.age', 'document.type', 'document.applicantMatch']) {
      assert.equal(resolve(f, baseContext()), undefined, f);
    }
    const bad = baseContext({ document: { familyName: '', givenNames: [], applicantMatch: 'no' as unknown as boolean, dateOfBirth: '2010-02-30' } });
    for (const f of ['document.familyName', 'document.givenNames', 'document.applicantMatch', 'document.age']) assert.equal(resolve(f, bad), undefined, f);
  });

  it('a rule on the document fires as any other field', () => {
    assert.equal(fires(field('document.applicantMatch', 'eq', false), baseContext({ document: doc })), true);
    assert.equal(fires(field('document.issuingCountry', 'in', ['FI', 'SE']), baseContext({ document: doc })), true);
    assert.equal(fires(field('document.issuingCountry', 'exists', undefined), baseContext()), false);
  });
});

describe('watchlist fields', () => {
  it('read the best score and the hit count of the watchlist check; nothing when it did not run', () => {
    const ctx = baseContext({ watchlist: { bestScore: 0.91, hitCount: 2 } });
    assert.equal(resolve('watchlist.bestScore', ctx), 0.91);
    assert.equal(resolve('watchlist.hitCount', ctx), 2);
    assert.equal(resolve('watchlist.hitCount', baseContext()), undefined);
    assert.equal(resolve('watchlist.bestScore', baseContext({ watchlist: { bestScore: Number.NaN } })), undefined);
    assert.equal(fires(field('watchlist.bestScore', 'gte', 0.85), ctx), true);
    assert.equal(fires(field('watchlist.hitCount', 'gt', 0), baseContext()), false);
  });
});

describe('applicant fields', () => {
  it('applicant.name is the legal name when present, else given names then family name', () => {
    assert.equal(applicantName({ legalName: 'Augusta Ada King', familyName: 'Lovelace', givenNames: ['Ada'] }), 'Augusta Ada King');
    assert.equal(applicantName({ familyName: 'Lovelace', givenNames: ['Ada', 'Augusta'] }), 'Ada Augusta Lovelace');
    assert.equal(applicantName({ familyName: 'Suharto', givenNames: [] }), 'Suharto'); // mononym
    assert.equal(applicantName({ familyName: 'de la Cruz Martínez', givenNames: ['María'] }), 'María de la Cruz Martínez');
    assert.equal(applicantName({ givenNames: ['Ada'] }), 'Ada');
    assert.equal(applicantName({ legalName: '', familyName: 'X' }), 'X');
    assert.equal(applicantName({}), undefined);
    assert.equal(applicantName(undefined), undefined);
  });

  it('applicant.legalName is verbatim, empty when the name arrived as components, nothing without a name', () => {
    assert.equal(applicantLegalName({ legalName: 'Augusta Ada King' }), 'Augusta Ada King');
    assert.equal(applicantLegalName({ familyName: 'Lovelace', givenNames: ['Ada'] }), '');
    assert.equal(applicantLegalName({}), undefined);
    assert.equal(fires(field('applicant.legalName', 'eq', '')), true);
    assert.equal(fires(field('applicant.legalName', 'contains', 'Ada')), false);
  });

  it('applicant.familyName and applicant.givenNames read the components', () => {
    const ctx = baseContext();
    assert.equal(resolve('applicant.familyName', ctx), 'Lovelace');
    assert.deepEqual(resolve('applicant.givenNames', ctx), ['Ada', 'Augusta']);
    assert.equal(resolve('applicant.givenNames', baseContext({ applicant: { familyName: 'Suharto', givenNames: [] } })), undefined);
    assert.deepEqual(resolve('applicant.givenNames', baseContext({ applicant: { givenNames: ['Ada', '', 7 as unknown as string] } })), ['Ada']);
  });

  it('applicant.email.domain is the lowercased domain', () => {
    assert.equal(emailDomain('ada.lovelace@Example.COM'), 'example.com');
    assert.equal(emailDomain('a@b@Mail.Org'), 'mail.org');
    assert.equal(emailDomain('no-at-sign'), undefined);
    assert.equal(emailDomain('trailing@'), undefined);
    assert.equal(emailDomain(undefined), undefined);
    assert.equal(resolve('applicant.email', baseContext()), 'ada.lovelace@Example.COM');
  });

  it('applicant.age is whole years at now, in UTC', () => {
    const at = (iso: string) => new Date(iso);
    assert.equal(ageAt('1990-06-02', NOW), 34); // birthday tomorrow
    assert.equal(ageAt('1990-06-01', NOW), 35); // birthday today
    assert.equal(ageAt('2007-06-01', NOW), 18);
    assert.equal(ageAt('2007-06-02', NOW), 17);
    assert.equal(ageAt('2025-06-01', NOW), 0);
    assert.equal(ageAt('2000-02-29', at('2018-02-28T23:59:59Z')), 17); // leap-day birthday: reached on 1 March
    assert.equal(ageAt('2000-02-29', at('2018-03-01T00:00:00Z')), 18);
    assert.equal(ageAt('2000-02-29', at('2020-02-29T00:00:00Z')), 20);
    assert.equal(ageAt('1990-06-02', at('2025-06-01T23:30:00-05:00')), 35); // 2 June in UTC
  });

  it('applicant.age resolves to nothing for an invalid date, an invalid now or a future birth date', () => {
    for (const dob of ['1990-02-30', '1990-13-01', '1990-6-1', '19900601', '1990-06-01T00:00:00Z', '', 'abcd-ef-gh', '2001-02-29']) {
      assert.equal(ageAt(dob, NOW), undefined, dob);
    }
    assert.equal(ageAt('2026-01-01', NOW), undefined);
    assert.equal(ageAt('1990-01-01', new Date(Number.NaN)), undefined);
    assert.equal(ageAt('1990-01-01', undefined), undefined);
    assert.equal(ageAt('1990-01-01', '2025-06-01T00:00:00Z'), 35); // a string instant is read too
    assert.equal(parseDate('2024-02-29'), 20240229);
    assert.equal(parseDate('2023-02-29'), -1);
  });

  it('applicant.address.country and applicant.phone read the address and phone; empty strings are nothing', () => {
    assert.equal(resolve('applicant.address.country', baseContext()), 'GB');
    assert.equal(resolve('applicant.phone', baseContext({ applicant: { phone: '+447700900123' } })), '+447700900123');
    assert.equal(resolve('applicant.phone', baseContext({ applicant: { phone: '' } })), undefined);
    assert.equal(resolve('applicant.address.country', baseContext({ applicant: {} })), undefined);
  });

  it('tolerates a missing or malformed applicant', () => {
    for (const applicant of [undefined, null, 'x', {}]) {
      const ctx = { ...baseContext(), applicant } as unknown as EvaluationContext;
      for (const path of ['applicant.name', 'applicant.age', 'applicant.email.domain', 'applicant.address.country']) {
        assert.equal(resolve(path, ctx), undefined);
      }
    }
  });
});

describe('finding fields', () => {
  const ctx = baseContext({
    findings: [
      finding({ id: 'f1', subjectType: 'person', severity: 'high', evidence: { listName: 'SDN', pep: true, score: 0.9 } }),
      finding({ id: 'f2', subjectType: 'person', severity: 'medium', evidence: { listName: 'FSF', pep: false, note: null } }),
      finding({ id: 'f3', subjectType: 'organization', severity: 'high', evidence: { listName: 'UN', pep: 'yes' } }),
      finding({ id: 'f4', subjectType: 'person', severity: 'low', evidence: { score: 0.2, pep: 1 } }),
    ],
  });

  it('finding.count and finding.severity.<level>.count count findings', () => {
    assert.equal(resolve('finding.count', ctx), 4);
    assert.equal(resolve('finding.severity.high.count', ctx), 2);
    assert.equal(resolve('finding.severity.medium.count', ctx), 1);
    assert.equal(resolve('finding.severity.low.count', ctx), 1);
    assert.equal(resolve('finding.count', baseContext()), 0); // zero is a value
    assert.equal(fires(field('finding.count', 'eq', 0)), true);
  });

  it('any.finding: the first defined value of that subject type', () => {
    assert.equal(resolve('any.finding.person.listName', ctx), 'SDN');
    assert.equal(resolve('any.finding.person.score', ctx), 0.9);
    assert.equal(resolve('any.finding.organization.listName', ctx), 'UN');
    assert.equal(resolve('any.finding.person.note', ctx), undefined); // null is not defined
    assert.equal(resolve('any.finding.vessel.listName', ctx), undefined);
  });

  it('all.finding: every defined value, as an array; nothing when there is none', () => {
    assert.deepEqual(resolve('all.finding.person.listName', ctx), ['SDN', 'FSF']);
    assert.deepEqual(resolve('all.finding.person.score', ctx), [0.9, 0.2]);
    assert.equal(resolve('all.finding.vessel.listName', ctx), undefined);
  });

  it('count_where.finding: findings of that subject type whose field is truthy', () => {
    assert.equal(resolve('count_where.finding.person.pep', ctx), 2); // true and 1
    assert.equal(resolve('count_where.finding.organization.pep', ctx), 1);
    assert.equal(resolve('count_where.finding.vessel.pep', ctx), 0);
  });

  it('top-level finding fields win over evidence keys of the same name', () => {
    const c = baseContext({ findings: [finding({ id: 'f9', severity: 'high', evidence: { id: 'shadow', severity: 'low' } })] });
    assert.equal(resolve('any.finding.person.id', c), 'f9');
    assert.equal(resolve('any.finding.person.severity', c), 'high');
    assert.equal(resolve('any.finding.person.sourceAuthority', c), 'OFAC');
    assert.equal(resolve('any.finding.person.findingType', c), 'sanctions');
    assert.equal(resolve('any.finding.person.subjectType', c), 'person');
  });

  it('reads only own evidence keys: inherited names resolve to nothing', () => {
    const c = baseContext({ findings: [finding({ evidence: { constructor: 'own' } }), finding({ evidence: {} })] });
    assert.deepEqual(resolve('all.finding.person.constructor', c), ['own']);
    assert.equal(resolve('any.finding.person.toString', c), undefined);
    assert.equal(resolve('count_where.finding.person.hasOwnProperty', c), 0);
    assert.equal(resolve('any.finding.person.__proto__', c), undefined);
  });

  it('tolerates missing findings and malformed entries', () => {
    const c = { ...baseContext(), findings: undefined } as unknown as EvaluationContext;
    assert.equal(resolve('finding.count', c), 0);
    const messy = { ...baseContext(), findings: [null, 3, finding({ evidence: undefined as unknown as Record<string, unknown> })] };
    assert.equal(resolve('finding.count', messy as unknown as EvaluationContext), 1);
    assert.equal(resolve('any.finding.person.x', messy as unknown as EvaluationContext), undefined);
  });
});

describe('check, device and network fields', () => {
  it('check.<type>.outcome reads the outcome of that check', () => {
    const ctx = baseContext({ checks: { document: 'fail', watchlist: 'review' } });
    assert.equal(resolve('check.document.outcome', ctx), 'fail');
    assert.equal(resolve('check.watchlist.outcome', ctx), 'review');
    assert.equal(resolve('check.liveness.outcome', ctx), undefined);
    assert.equal(fires(field('check.document.outcome', 'in', ['fail', 'error']), ctx), true);
  });

  it('device fields resolve only with device intelligence on, and only with the catalogue type', () => {
    const ctx = baseContext({
      fraud: { botScore: 12, country: 'RU', asnIsDatacenter: true, threatScore: 'high' as unknown as number, ja4: '' },
      device: { velocity: { sessionCount: 3 }, behavior: { headless: false, pasteCount: Number.NaN } },
    });
    assert.equal(resolve('fraud.botScore', ctx), 12);
    assert.equal(resolve('fraud.country', ctx), 'RU');
    assert.equal(resolve('fraud.asnIsDatacenter', ctx), true);
    assert.equal(resolve('fraud.threatScore', ctx), undefined); // wrong type
    assert.equal(resolve('fraud.ja4', ctx), undefined); // empty
    assert.equal(resolve('fraud.ringSize', ctx), undefined); // not collected
    assert.equal(resolve('device.velocity.sessionCount', ctx), 3);
    assert.equal(resolve('device.behavior.headless', ctx), false);
    assert.equal(resolve('device.behavior.pasteCount', ctx), undefined);
    assert.equal(resolve('device.velocity.distinctIps', baseContext()), undefined);
    assert.equal(resolve('fraud.botScore', ctx, false), undefined);
    assert.equal(resolve('device.velocity.sessionCount', ctx, false), undefined);
  });
});

describe('session.metadata.<key>: the template metadata', () => {
  it('resolves strings, numbers, booleans and arrays of strings or numbers', () => {
    const md = { tier: 'gold', limit: 5, strict: false, bins: [411111, 5], regions: ['eu'], empty: [], nothing: null, blank: '' };
    assert.deepEqual(metadataSource(md, 'tier'), { kind: 'const', value: 'gold' });
    assert.deepEqual(metadataSource(md, 'limit'), { kind: 'const', value: 5 });
    assert.deepEqual(metadataSource(md, 'strict'), { kind: 'const', value: false });
    assert.deepEqual(metadataSource(md, 'bins'), { kind: 'const', value: [411111, 5] });
    assert.deepEqual(metadataSource(md, 'regions'), { kind: 'const', value: ['eu'] });
    assert.deepEqual(metadataSource(md, 'blank'), { kind: 'const', value: '' });
    assert.deepEqual(metadataSource(md, 'empty'), { kind: 'const', value: undefined });
    assert.deepEqual(metadataSource(md, 'nothing'), { kind: 'const', value: undefined });
    assert.deepEqual(metadataSource(md, 'missing'), { kind: 'const', value: undefined });
    assert.deepEqual(metadataSource(md, 'constructor'), { kind: 'const', value: undefined }); // own keys only
    assert.deepEqual(metadataSource(undefined, 'tier'), { kind: 'const', value: undefined });
  });

  it('is an error for an object value, a mixed array or a non-finite number', () => {
    const md = { obj: { a: 1 }, mixed: ['a', 1], bools: [true], nested: [['a']], inf: Number.POSITIVE_INFINITY };
    for (const key of Object.keys(md)) assert.deepEqual(metadataSource(md, key), { kind: 'error', key });
  });
});
