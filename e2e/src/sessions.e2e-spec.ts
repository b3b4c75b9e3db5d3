import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { query, waitFor } from '@verity/testing';
import { adminCli, client, closeOperators, createKey, E2E, errorOf } from './support.js';
import {
  account,
  closeStreams,
  createSession,
  newApplicant,
  newTemplate,
  setup,
  stored,
  streamEvents,
  waitStatus,
  type Client,
  type Issue,
  type List,
  type One,
} from './sessions-support.js';

after(async () => {
  await closeOperators();
  await closeStreams();
});

const SIGNING_TEMPLATE = {
  checks: ['document', 'document_signing'],
  signing_document: { title: 'Rental agreement', variables: ['start_datetime', 'end_datetime', 'amount', 'currency', 'location'] },
};
const FULL_METADATA = {
  start_datetime: '2026-03-14T09:30:00+01:00',
  end_datetime: '2026-03-16T11:00:00+01:00',
  amount: 123456,
  currency: 'EUR',
  location: 'Lisbon, Portugal',
};

/** Asserts a refusal wrote no session and no event for the organization. */
async function nothingStored(orgId: string): Promise<void> {
  assert.deepEqual(await stored('us', orgId), { sessions: 0, events: 0, unrelayed: 0 });
  assert.deepEqual(await streamEvents('us', (e) => e.org_id === orgId), []);
}

async function refused(c: Client, body: Record<string, unknown>, status: number, code: string) {
  const res = await createSession(c, body);
  assert.equal(res.status, status, res.text);
  const e = errorOf(res);
  assert.equal(e.code, code);
  return e;
}

describe('POST /v1/sessions and GET /v1/sessions/{id}', () => {
  it('creates a session (201) with the read shape of docs/sessions.md, no idv on create', async () => {
    const { c } = await account();
    const { applicantId, templateId } = await setup(c);
    const res = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId });
    assert.equal(res.status, 201, res.text);
    const s = res.body.data;
    assert.match(s.id, /^ses_[A-Za-z0-9]{24}$/);
    assert.deepEqual(Object.keys(s).sort(), [
      'applicant_id',
      'checks',
      'client_secret',
      'created_at',
      'erased',
      'expires_at',
      'id',
      'metadata',
      'mode',
      'object',
      'outcome',
      'status',
      'updated_at',
      'url',
      'workflow_template_id',
      'workflow_template_version',
    ]);
    assert.deepEqual({ ...s, id: '', created_at: '', updated_at: '' }, {
      id: '',
      object: 'session',
      applicant_id: applicantId,
      workflow_template_id: templateId,
      workflow_template_version: 1,
      mode: 'test',
      status: 'pending',
      outcome: null,
      checks: [
        { type: 'document', outcome: null, reasons: [], score: null },
        { type: 'face_match', outcome: null, reasons: [], score: null },
        { type: 'liveness', outcome: null, reasons: [], score: null },
      ],
      metadata: {},
      // a test session has no capture link (docs/capture.md)
      url: null,
      client_secret: null,
      expires_at: null,
      erased: false,
      created_at: '',
      updated_at: '',
    });
    const read = await waitStatus(c, s.id);
    assert.equal(read.status, 'completed');
    assert.deepEqual(read.idv, { capture_acquisition: 'camera', available_images: ['portrait', 'front', 'selfie'] });
    // screening ran and found nothing to decide: the template has no rules
    assert.deepEqual(read.screening, { decision: 'none', score: 0, review_threshold: 0.5, decline_floored: false, tags: [], rules_fired: [] });
  });

  it('the read explains the outcome: the template version that ran and the rules that fired, with priority, score and threshold', async () => {
    const { c } = await account();
    const applicantId = (await c<{ data: { id: string } }>('POST', '/v1/applicants', { body: { family_name: 'Explained', date_of_birth: '2015-01-01' } })).body.data.id;
    const rules = [
      { name: 'minor', ruleType: 'age_restriction', condition: { kind: 'field', field: 'applicant.age', operator: 'lt', value: 18 }, action: 'adjust_score', scoreAdjustment: 0.4, priority: 10 },
      { name: 'risky', ruleType: 'custom', condition: { kind: 'field', field: 'applicant.age', operator: 'lt', value: 21 }, action: 'adjust_score', scoreAdjustment: 0.3 },
      { name: 'never', ruleType: 'custom', condition: { kind: 'field', field: 'applicant.age', operator: 'gt', value: 200 }, action: 'tag' },
    ];
    const t = await c<{ data: { id: string } }>('POST', '/v1/workflow-templates', { body: { name: 'explained', checks: ['document'], screening_rules: rules, review_threshold: 0.6 } });
    assert.equal(t.status, 201, t.text);
    // a second version: the session pins the one current at its create
    assert.equal((await c('PATCH', `/v1/workflow-templates/${t.body.data.id}`, { body: { review_threshold: 0.65 } })).status, 200);
    const res = await createSession(c, { applicant_id: applicantId, workflow_template_id: t.body.data.id, expected_outcome: 'pass' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.workflow_template_version, 2);
    assert.equal(res.body.data.screening, undefined, 'the explanation is on the read of one session only');
    const read = await waitStatus(c, res.body.data.id);
    assert.equal(read.status, 'manual_review');
    assert.equal(read.workflow_template_version, 2);
    assert.deepEqual(read.screening, {
      decision: 'review',
      score: 0.7,
      review_threshold: 0.65,
      decline_floored: false,
      tags: [],
      rules_fired: [
        { name: 'minor', rule_type: 'age_restriction', action: 'adjust_score', priority: 10, fields: ['applicant.age'] },
        { name: 'risky', rule_type: 'custom', action: 'adjust_score', priority: 100, fields: ['applicant.age'] },
      ],
    });
    assert.ok(!JSON.stringify(read.screening).includes('2015'), 'no applicant value');
  });

  it('a missing, malformed or unknown applicant_id or workflow_template_id is 404 naming the field; nothing is created', async () => {
    const { c, org } = await account();
    const { applicantId, templateId } = await setup(c);
    const other = await account();
    const foreign = await setup(other.c);
    for (const [body, param] of [
      [{ workflow_template_id: templateId }, 'applicant_id'],
      [{ applicant_id: 'app_nope', workflow_template_id: templateId }, 'applicant_id'],
      [{ applicant_id: 42, workflow_template_id: templateId }, 'applicant_id'],
      [{ applicant_id: 'app_' + 'Z'.repeat(24), workflow_template_id: templateId }, 'applicant_id'],
      [{ applicant_id: foreign.applicantId, workflow_template_id: templateId }, 'applicant_id'],
      [{ applicant_id: applicantId }, 'workflow_template_id'],
      [{ applicant_id: applicantId, workflow_template_id: 'wft_' + 'Z'.repeat(24) }, 'workflow_template_id'],
      [{ applicant_id: applicantId, workflow_template_id: foreign.templateId }, 'workflow_template_id'],
      // the applicant is checked first
      [{ applicant_id: 'app_nope', workflow_template_id: 'wft_nope' }, 'applicant_id'],
    ] as const) {
      const e = await refused(c, body, 404, 'resource_not_found');
      assert.equal(e.param, param, JSON.stringify(body));
      assert.equal(e.type, 'invalid_request_error');
    }
    await nothingStored(org.id);
  });

  it('unknown body fields are 422 before anything else', async () => {
    const { c, org } = await account();
    const e = await refused(c, { applicant_id: 'app_nope', metadata: { notes: 'x' }, expected_outcome: 'nope', referenceDetails: 'x' }, 422, 'validation_error');
    assert.equal(e.param, 'referenceDetails');
    assert.deepEqual((e.details!.issues as Issue[]).map((i) => i.code), ['unrecognized_keys']);
    await nothingStored(org.id);
  });

  it('validation order: metadata → expected_outcome → applicant → template → signing requirements', async () => {
    const { c, org } = await account();
    const applicantId = await newApplicant(c);
    const signing = await newTemplate(c, SIGNING_TEMPLATE);
    assert.equal((await refused(c, { applicant_id: 'app_nope', metadata: { amount: '1' }, expected_outcome: 'nope' }, 422, 'validation_error')).param, 'metadata');
    assert.equal((await refused(c, { applicant_id: 'app_nope', expected_outcome: 'nope' }, 422, 'validation_error')).param, 'expected_outcome');
    assert.equal((await refused(c, { applicant_id: 'app_nope', workflow_template_id: 'wft_nope' }, 404, 'resource_not_found')).param, 'applicant_id');
    assert.equal((await refused(c, { applicant_id: applicantId, workflow_template_id: 'wft_nope' }, 404, 'resource_not_found')).param, 'workflow_template_id');
    await refused(c, { applicant_id: applicantId, workflow_template_id: signing }, 403, 'esign_requirements_not_met');
    await nothingStored(org.id);
  });

  it('a session of another organization, mode or region does not exist for the caller', async () => {
    const { c, org } = await account();
    const { applicantId, templateId } = await setup(c);
    const s = (await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId })).body.data;
    const otherOrg = await account();
    const live = await createKey('us', org.id, { mode: 'live' });
    const { c: eu } = await account('eu');
    const liveClient = client('us', live.key);
    for (const reader of [otherOrg.c, liveClient]) {
      const r = await reader('GET', `/v1/sessions/${s.id}`);
      assert.equal(r.status, 404);
      assert.equal(errorOf(r).code, 'resource_not_found');
      assert.deepEqual((await reader<List>('GET', '/v1/sessions')).body.data, []);
      assert.equal((await reader('POST', `/v1/sessions/${s.id}/cancel`)).status, 404);
    }
    assert.equal((await eu('GET', `/v1/sessions/${s.id}`)).status, 404);
    for (const id of ['nope', 'ses_short', 'app_' + 'a'.repeat(24)]) assert.equal((await c('GET', `/v1/sessions/${id}`)).status, 404);
  });

  it('needs sessions:write to create and sessions:read to read', async () => {
    const { org } = await account();
    const readOnly = client('us', (await createKey('us', org.id, { scopes: ['sessions:read'] })).key);
    const res = await readOnly('POST', '/v1/sessions', { body: {} });
    assert.equal(res.status, 403);
    assert.deepEqual(errorOf(res).details, { required_scope: 'sessions:write' });
  });
});

describe('Session metadata (docs/metadata.md)', () => {
  it('is stored and returned unchanged on create, read and list, except location trimmed; other keys are never interpreted', async () => {
    const { c } = await account();
    const { applicantId, templateId } = await setup(c);
    const metadata = {
      zeta: 1,
      order_ref: 'A-1',
      Notes: 'not reserved: names are case-sensitive',
      nested: { deep: [1, 'two', null, { x: true }] },
      empty: '',
      nothing: null,
      start_datetime: '2026-03-14T00:00:00+05:30',
      currency: 'usd',
      location: '  Lisbon, Portugal \u00a0',
      alpha: 'last',
    };
    const res = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, metadata });
    assert.equal(res.status, 201, res.text);
    const expected = { ...metadata, location: 'Lisbon, Portugal' };
    const read = await waitStatus(c, res.body.data.id);
    const listed = (await c<List>('GET', '/v1/sessions')).body.data[0]!;
    for (const got of [res.body.data.metadata, read.metadata, listed.metadata]) {
      assert.deepEqual(got, expected);
      assert.deepEqual(Object.keys(got), Object.keys(expected), 'member order is kept');
    }
  });

  it('accepts each of the five keys in its format and refuses a wrong shape with 422, param metadata and the key path', async () => {
    const { c, org } = await account();
    const { applicantId, templateId } = await setup(c, { checks: ['watchlist'] });
    const accepted: Array<Record<string, unknown>> = [
      { start_datetime: '2026-03-14T09:30:00+01:00' },
      { start_datetime: '2026-03-14T09:30:00Z', end_datetime: '2026-03-14T09:30:00.000Z' },
      { start_datetime: '2026-01-01T00:00:00+02:00', end_datetime: '2025-12-31T22:00:00Z' }, // same instant
      { end_datetime: '2026-03-14T18:45:00-05:30' },
      { amount: 0, currency: 'USD' },
      { amount: 999999999999, currency: 'USD' },
      { currency: 'XAU' },
      { location: 'x'.repeat(500) },
      { location: 'Café 🙂 東京' },
    ];
    for (const metadata of accepted) {
      const res = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, metadata });
      assert.equal(res.status, 201, `${JSON.stringify(metadata)}: ${res.text}`);
    }
    const refusedCases: Array<[Record<string, unknown>, string, string]> = [
      [{ start_datetime: '2026-03-14' }, 'start_datetime', 'invalid_format'],
      [{ start_datetime: '2026-03-14T09:30:00' }, 'start_datetime', 'invalid_format'],
      [{ start_datetime: '2026-02-30T09:30:00Z' }, 'start_datetime', 'invalid_format'],
      [{ end_datetime: 1773480600 }, 'end_datetime', 'invalid_type'],
      [{ start_datetime: '2026-03-14T10:00:00+01:00', end_datetime: '2026-03-14T08:59:59Z' }, 'end_datetime', 'custom'],
      [{ amount: '100', currency: 'USD' }, 'amount', 'invalid_type'],
      [{ amount: 1.5, currency: 'USD' }, 'amount', 'invalid_type'],
      [{ amount: -1, currency: 'USD' }, 'amount', 'too_small'],
      [{ amount: 1000000000000, currency: 'USD' }, 'amount', 'too_big'],
      [{ amount: 100 }, 'currency', 'custom'],
      [{ currency: 'US' }, 'currency', 'invalid_format'],
      [{ currency: 'ZZZ' }, 'currency', 'invalid_value'],
      [{ location: 'x'.repeat(501) }, 'location', 'too_big'],
      [{ location: 'line one\nline two' }, 'location', 'invalid_format'],
      [{ location: 'abc\u202Edef' }, 'location', 'invalid_format'],
      [{ location: '<script>' }, 'location', 'invalid_format'],
    ];
    for (const [metadata, key, code] of refusedCases) {
      const e = await refused(c, { applicant_id: applicantId, workflow_template_id: templateId, metadata }, 422, 'validation_error');
      assert.equal(e.param, 'metadata', JSON.stringify(metadata));
      const issues = e.details!.issues as Issue[];
      assert.deepEqual(issues[0]!.path, ['metadata', key], JSON.stringify(metadata));
      assert.equal(issues[0]!.code, code, JSON.stringify(metadata));
    }
    for (const metadata of [[], 'x', 3, null]) {
      const e = await refused(c, { applicant_id: applicantId, workflow_template_id: templateId, metadata }, 422, 'validation_error');
      assert.deepEqual((e.details!.issues as Issue[])[0]!.path, ['metadata']);
    }
    assert.equal((await stored('us', org.id)).sessions, accepted.length);
  });

  it('rule 1: the amount has no unit and no plausible-range check; a zero-decimal currency takes the whole number', async () => {
    const { c } = await account();
    const { applicantId, templateId } = await setup(c);
    for (const metadata of [{ amount: 5, currency: 'USD' }, { amount: 123456, currency: 'JPY' }, { amount: 999999999999, currency: 'BHD' }]) {
      const res = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, metadata });
      assert.equal(res.status, 201);
      assert.deepEqual(res.body.data.metadata, metadata);
    }
  });

  it('rule 2: the offset sent is kept: the value reads back exactly, never converted to another zone', async () => {
    const { c } = await account();
    const { applicantId, templateId } = await setup(c);
    const metadata = { start_datetime: '2026-03-14T00:00:00+05:30', end_datetime: '2026-03-14T18:45:00.500-05:30' };
    const res = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, metadata });
    assert.deepEqual((await c<One>('GET', `/v1/sessions/${res.body.data.id}`)).body.data.metadata, metadata);
  });

  it('rules 3 and 4 (esign row): a signing document placing variables requires their keys at create: 403 naming every missing variable and key; nothing is created', async () => {
    const { c, org } = await account();
    const applicantId = await newApplicant(c);
    // template save never checks session metadata
    const templateId = await newTemplate(c, SIGNING_TEMPLATE);
    const e = await refused(c, { applicant_id: applicantId, workflow_template_id: templateId }, 403, 'esign_requirements_not_met');
    assert.equal(e.type, 'invalid_request_error');
    assert.equal(e.details!.reason, 'esign_session_metadata_required');
    for (const named of [
      'Start date and time (metadata.start_datetime)',
      'End date and time (metadata.end_datetime)',
      'Transaction amount (metadata.amount)',
      'Currency (metadata.currency)',
      'Location (metadata.location)',
    ]) {
      assert.ok(e.message.includes(named), `${named} in: ${e.message}`);
    }
    const partial = await refused(
      c,
      { applicant_id: applicantId, workflow_template_id: templateId, metadata: { start_datetime: FULL_METADATA.start_datetime, currency: 'EUR', location: 'Lisbon' } },
      403,
      'esign_requirements_not_met',
    );
    assert.equal(
      partial.message,
      'The signing document of the workflow needs session metadata that was not supplied: End date and time (metadata.end_datetime), Transaction amount (metadata.amount). Create the session with these metadata keys.',
    );
    await nothingStored(org.id);
    // only placed variables are required
    const onlyLocation = await newTemplate(c, { checks: ['document_signing'], signing_document: { title: 'Consent', variables: ['location'] } });
    assert.equal((await createSession(c, { applicant_id: applicantId, workflow_template_id: onlyLocation, metadata: { location: 'Porto' } })).status, 201);
    const ok = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, metadata: FULL_METADATA });
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual(ok.body.data.metadata, FULL_METADATA);
  });

  it('a template edit applies to the very next create: added signing variables are required, the new version is pinned', async () => {
    const { c, org } = await account();
    const { applicantId, templateId } = await setup(c, { checks: ['document'] });
    assert.equal((await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId })).status, 201);
    const patched = await c<One>('PATCH', `/v1/workflow-templates/${templateId}`, { body: SIGNING_TEMPLATE });
    assert.equal(patched.status, 200, patched.text);
    await refused(c, { applicant_id: applicantId, workflow_template_id: templateId }, 403, 'esign_requirements_not_met');
    const ok = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, metadata: FULL_METADATA });
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual(ok.body.data.checks, [
      { type: 'document', outcome: null, reasons: [], score: null },
      { type: 'document_signing', outcome: null, reasons: [], score: null },
    ]);
    const pinned = await query<{ template_version: number }>(E2E.db.us, 'SELECT template_version FROM sessions.sessions WHERE org_id = $1 ORDER BY seq', [org.id]);
    assert.deepEqual(pinned.map((r) => r.template_version), [1, 2]);
  });

  it('rule 4 in live mode: the signing requirement refuses the create and no applicant is invited', async () => {
    const { c, org } = await account('us', 'live');
    const applicantId = await newApplicant(c);
    const templateId = await newTemplate(c, SIGNING_TEMPLATE);
    await refused(c, { applicant_id: applicantId, workflow_template_id: templateId }, 403, 'esign_requirements_not_met');
    await nothingStored(org.id);
    const log = await adminCli(['email-log', '--region', 'us', '--org', org.id]);
    assert.deepEqual(log.out, { data: [] });
  });

  it('rule 5: "" and null for a key the document requires are 422 validation_error, not the 403', async () => {
    const { c, org } = await account();
    const applicantId = await newApplicant(c);
    const templateId = await newTemplate(c, SIGNING_TEMPLATE);
    for (const key of Object.keys(FULL_METADATA)) {
      for (const bad of ['', null]) {
        const metadata = { ...FULL_METADATA, [key]: bad };
        const e = await refused(c, { applicant_id: applicantId, workflow_template_id: templateId, metadata }, 422, 'validation_error');
        assert.equal(e.param, 'metadata');
        assert.deepEqual((e.details!.issues as Issue[])[0]!.path, ['metadata', key], `${key}=${JSON.stringify(bad)}`);
      }
    }
    await nothingStored(org.id);
  });

  it('rule 6: each of the seven reserved names is refused naming the key, whatever its value', async () => {
    const { c, org } = await account();
    const { applicantId, templateId } = await setup(c);
    for (const key of ['referenceDetails', 'notes', 'operatorNotes', 'cancellationReason', 'manualReviewReason', 'erroredReason', '__requested_checks']) {
      const e = await refused(c, { applicant_id: applicantId, workflow_template_id: templateId, metadata: { [key]: null } }, 422, 'validation_error');
      assert.equal(e.param, 'metadata');
      const [issue] = e.details!.issues as Issue[];
      assert.deepEqual(issue!.path, ['metadata', key]);
      assert.ok(issue!.message.includes(key));
    }
    await nothingStored(org.id);
  });

  it('rule 7: platform-written keys appear on read, absent at create; a metadata object read back is refused on create', async () => {
    const { c } = await account();
    const { applicantId, templateId } = await setup(c);
    const mk = async (metadata: Record<string, unknown> = { ref: 'r1' }) => {
      const res = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, metadata, expected_outcome: 'review' });
      assert.equal(res.status, 201);
      assert.deepEqual(res.body.data.metadata, metadata);
      return res.body.data.id;
    };
    const a = await mk();
    const noted = await c<One>('POST', `/v1/sessions/${a}/notes`, { body: { note: 'called the applicant' } });
    assert.equal(noted.status, 200);
    await c<One>('POST', `/v1/sessions/${a}/notes`, { body: { note: 'second call' } });
    const cancelled = await c<One>('POST', `/v1/sessions/${a}/cancel`, { body: { reason: 'duplicate request' } });
    assert.equal(cancelled.status, 200, cancelled.text);
    const read = (await c<One>('GET', `/v1/sessions/${a}`)).body.data.metadata;
    assert.equal(read.ref, 'r1');
    assert.equal(read.cancellationReason, 'duplicate request');
    const notes = read.operatorNotes as Array<{ note: string; created_at: string }>;
    assert.deepEqual(notes.map((n) => n.note), ['called the applicant', 'second call']);
    for (const n of notes) assert.ok(!Number.isNaN(Date.parse(n.created_at)));

    const b = await mk();
    assert.equal((await waitStatus(c, b)).status, 'manual_review');
    const cancelledFromReview = await c<One>('POST', `/v1/sessions/${b}/cancel`);
    assert.equal(cancelledFromReview.status, 200);
    assert.ok(!('cancellationReason' in cancelledFromReview.body.data.metadata), 'no reason sent, no key written');
    // review needs a session not yet at rest: a live one, waiting for its applicant
    const live = await account('us', 'live');
    const ls = await setup(live.c);
    const c2 = (await createSession(live.c, { applicant_id: ls.applicantId, workflow_template_id: ls.templateId })).body.data.id;
    const sent = await live.c<One>('POST', `/v1/sessions/${c2}/review`, { body: { reason: 'document looks edited' } });
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.body.data.metadata.manualReviewReason, 'document looks edited');

    // read back and posted again: refused, naming each platform key
    const e = await refused(c, { applicant_id: applicantId, workflow_template_id: templateId, metadata: read }, 422, 'validation_error');
    assert.deepEqual(
      (e.details!.issues as Issue[]).map((i) => i.path.join('.')).sort(),
      ['metadata.cancellationReason', 'metadata.operatorNotes'],
    );
  });

  it('rule 7: erroredReason on a run that stalled on a template metadata value screening cannot read', async () => {
    const { c } = await account();
    const applicantId = await newApplicant(c);
    const templateId = await newTemplate(c, {
      checks: ['document'],
      metadata: { segment: { tier: 'gold' } },
      screening_rules: [{ name: 'segment', ruleType: 'custom', condition: { kind: 'field', field: 'session.metadata.segment', operator: 'eq', value: 'gold' }, action: 'tag' }],
    });
    const res = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, metadata: { ref: 'x' } });
    const s = await waitStatus(c, res.body.data.id);
    assert.equal(s.status, 'errored');
    assert.equal(s.outcome, null);
    assert.match(s.metadata.erroredReason as string, /segment/);
    assert.equal(s.metadata.ref, 'x');
  });

  it('rule 8: the three whole-object rules report param metadata and the full paths', async () => {
    const { c } = await account();
    const { applicantId, templateId } = await setup(c);
    const e = await refused(
      c,
      {
        applicant_id: applicantId,
        workflow_template_id: templateId,
        metadata: { notes: 'x', amount: 100, start_datetime: '2026-03-14T10:00:00Z', end_datetime: '2026-03-14T09:00:00Z' },
      },
      422,
      'validation_error',
    );
    assert.equal(e.param, 'metadata');
    assert.deepEqual(
      (e.details!.issues as Issue[]).map((i) => [i.code, i.path]),
      [
        ['custom', ['metadata', 'notes']],
        ['custom', ['metadata', 'currency']],
        ['custom', ['metadata', 'end_datetime']],
      ],
    );
  });

  it('rule 10: session.metadata.<key> in a rule reads the workflow template metadata, never the session metadata', async () => {
    const { c } = await account();
    const applicantId = await newApplicant(c);
    const rule = { name: 'big amount', ruleType: 'custom', condition: { kind: 'field', field: 'session.metadata.amount', operator: 'gt', value: 1000 }, action: 'review' };
    const fromTemplate = await newTemplate(c, { checks: ['document'], metadata: { amount: 5000 }, screening_rules: [rule] });
    const notInTemplate = await newTemplate(c, { checks: ['document'], metadata: {}, screening_rules: [rule] });
    const a = await createSession(c, { applicant_id: applicantId, workflow_template_id: fromTemplate, metadata: { amount: 1, currency: 'USD' } });
    const b = await createSession(c, { applicant_id: applicantId, workflow_template_id: notInTemplate, metadata: { amount: 999999, currency: 'USD' } });
    assert.equal((await waitStatus(c, a.body.data.id)).status, 'manual_review');
    const sb = await waitStatus(c, b.body.data.id);
    assert.deepEqual([sb.status, sb.outcome], ['completed', 'approved']);
  });
});

describe('Expected outcome (test mode)', () => {
  const ALL = ['document', 'face_match', 'liveness', 'credit_history', 'watchlist', 'adverse_media', 'device', 'document_signing'];

  it('each of the four values applies to every check and reaches its resting status within 3 s; omitted is pass', async () => {
    const { c } = await account();
    const applicantId = await newApplicant(c);
    const templateId = await newTemplate(c, { checks: ALL, signing_document: { title: 'Terms', variables: [] } });
    const cases: Array<[string | undefined, string, string | null, Record<string, string>]> = [
      [undefined, 'completed', 'approved', Object.fromEntries(ALL.map((t) => [t, 'pass']))],
      ['pass', 'completed', 'approved', Object.fromEntries(ALL.map((t) => [t, 'pass']))],
      ['fail', 'completed', 'declined', Object.fromEntries(ALL.map((t) => [t, 'fail']))],
      ['review', 'manual_review', null, Object.fromEntries(ALL.map((t) => [t, 'review']))],
      ['doc_quality', 'manual_review', null, Object.fromEntries(ALL.map((t) => [t, t === 'document' || t === 'face_match' ? 'review' : 'pass']))],
    ];
    for (const [expected, status, outcome, checks] of cases) {
      const res = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, ...(expected ? { expected_outcome: expected } : {}) });
      assert.equal(res.status, 201, res.text);
      const s = await waitStatus(c, res.body.data.id);
      assert.equal(s.status, status, String(expected));
      assert.equal(s.outcome, outcome, String(expected));
      assert.deepEqual(Object.fromEntries(s.checks.map((x) => [x.type, x.outcome])), checks, String(expected));
      assert.deepEqual(s.idv!.available_images, expected === 'doc_quality' ? ['front', 'selfie'] : ['portrait', 'front', 'selfie']);
    }
  });

  it('nothing but the four values is accepted; nothing is created', async () => {
    const { c, org } = await account();
    const { applicantId, templateId } = await setup(c);
    for (const v of ['PASS', 'Pass', 'approved', 'needs_review', 'doc-quality', '', ' pass', null, true, 1, ['pass'], { value: 'pass' }]) {
      const e = await refused(c, { applicant_id: applicantId, workflow_template_id: templateId, expected_outcome: v }, 422, 'validation_error');
      assert.equal(e.param, 'expected_outcome', JSON.stringify(v));
      assert.deepEqual((e.details!.issues as Issue[])[0]!.path, ['expected_outcome']);
    }
    await nothingStored(org.id);
  });

  it('no name, date of birth or email address changes a synthetic result', async () => {
    const { c } = await account();
    const templateId = await newTemplate(c, { checks: ['document', 'face_match', 'watchlist', 'credit_history'] });
    const people = [
      { family_name: 'Fail', given_names: ['Review'], email: 'fail@example.com', date_of_birth: '1900-01-01' },
      { family_name: 'Pass', given_names: [], email: 'doc_quality@example.com', date_of_birth: '2008-01-01' },
      { family_name: 'Sanction Match', given_names: ['Test'], date_of_birth: '1970-12-31' },
    ];
    for (const person of people) {
      const applicantId = await newApplicant(c, person);
      for (const [expected, status, outcome] of [
        ['pass', 'completed', 'approved'],
        ['fail', 'completed', 'declined'],
        ['review', 'manual_review', null],
      ] as const) {
        const res = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, expected_outcome: expected });
        const s = await waitStatus(c, res.body.data.id);
        assert.deepEqual([s.status, s.outcome], [status, outcome], `${person.family_name} ${expected}`);
        assert.ok(s.checks.every((x) => x.outcome === expected));
      }
    }
  });

  it('credit history replays the recorded file the expected outcome picks; identity checks derive from it', async () => {
    const { c, org } = await account();
    const applicantId = await newApplicant(c);
    const templateId = await newTemplate(c, { checks: ['credit_history'] });
    for (const [expected, outcome] of [
      ['pass', 'pass'],
      ['review', 'review'],
      ['fail', 'fail'],
      ['doc_quality', 'pass'],
    ] as const) {
      const res = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, expected_outcome: expected });
      const s = await waitStatus(c, res.body.data.id);
      assert.deepEqual(s.checks, [{ type: 'credit_history', outcome, reasons: [], score: null }]);
      assert.equal(s.idv, undefined, 'no identity check, no idv');
      const [run] = await query<{ credit_recording: string }>(E2E.db.us, 'SELECT credit_recording FROM sessions.runs WHERE session_id = $1', [s.id]);
      assert.equal(run!.credit_recording, `credit-history/${expected}`);
    }
    assert.equal((await stored('us', org.id)).sessions, 4);
  });

  it('live mode drops expected_outcome silently (whatever it holds): the session waits pending, nothing simulated', async () => {
    const { c, org } = await account('us', 'live');
    const { applicantId, templateId } = await setup(c);
    const ids: string[] = [];
    for (const v of ['fail', 'nonsense', null]) {
      const res = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, expected_outcome: v });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.mode, 'live');
      assert.equal(res.body.data.status, 'pending');
      ids.push(res.body.data.id);
    }
    // a test session of the same stack finishing its run shows the background work has had its chance
    const t = await account();
    const ts = await setup(t.c);
    await waitStatus(t.c, (await createSession(t.c, { applicant_id: ts.applicantId, workflow_template_id: ts.templateId })).body.data.id);
    for (const id of ids) {
      const s = (await c<One>('GET', `/v1/sessions/${id}`)).body.data;
      assert.equal(s.status, 'pending');
      assert.ok(s.checks.every((x) => x.outcome === null));
      assert.equal(s.idv, undefined);
    }
    assert.deepEqual(await query(E2E.db.us, 'SELECT 1 FROM sessions.sessions WHERE org_id = $1 AND expected_outcome IS NOT NULL', [org.id]), []);
  });
});

describe('idv, lists and actions', () => {
  it('idv only on GET of one session that ran an identity check: not on create, list or sessions without one', async () => {
    const { c } = await account();
    const applicantId = await newApplicant(c);
    const withId = await newTemplate(c, { checks: ['document'] });
    const without = await newTemplate(c, { checks: ['watchlist'] });
    const a = (await createSession(c, { applicant_id: applicantId, workflow_template_id: withId })).body.data;
    const b = (await createSession(c, { applicant_id: applicantId, workflow_template_id: without })).body.data;
    assert.deepEqual((await waitStatus(c, a.id)).idv, { capture_acquisition: 'camera', available_images: ['portrait', 'front'] });
    assert.equal((await waitStatus(c, b.id)).idv, undefined);
    for (const s of (await c<List>('GET', '/v1/sessions')).body.data) assert.ok(!('idv' in s));
    const acted = await c<One>('POST', `/v1/sessions/${a.id}/notes`, { body: { note: 'n' } });
    assert.ok(!('idv' in acted.body.data));
  });

  it('GET /v1/sessions: newest first, cursor pages, filters status and applicant_id, 422 on bad parameters', async () => {
    const { c } = await account();
    const templateId = await newTemplate(c, { checks: ['document'] });
    const a1 = await newApplicant(c);
    const a2 = await newApplicant(c);
    const ids: string[] = [];
    for (const [applicant, expected] of [
      [a1, 'pass'],
      [a2, 'review'],
      [a1, 'review'],
    ] as const) {
      ids.push((await createSession(c, { applicant_id: applicant, workflow_template_id: templateId, expected_outcome: expected })).body.data.id);
    }
    for (const id of ids) await waitStatus(c, id);
    const page1 = await c<List>('GET', '/v1/sessions?limit=2');
    assert.deepEqual(page1.body.data.map((s) => s.id), [ids[2], ids[1]]);
    const page2 = await c<List>('GET', `/v1/sessions?limit=2&cursor=${page1.body.next_cursor}`);
    assert.deepEqual(page2.body.data.map((s) => s.id), [ids[0]]);
    assert.equal(page2.body.next_cursor, null);
    assert.deepEqual((await c<List>('GET', '/v1/sessions?status=manual_review')).body.data.map((s) => s.id), [ids[2], ids[1]]);
    assert.deepEqual((await c<List>(`GET`, `/v1/sessions?applicant_id=${a1}`)).body.data.map((s) => s.id), [ids[2], ids[0]]);
    assert.deepEqual((await c<List>(`GET`, `/v1/sessions?applicant_id=${a1}&status=completed`)).body.data.map((s) => s.id), [ids[0]]);
    assert.deepEqual((await c<List>('GET', '/v1/sessions?applicant_id=app_unknown')).body.data, []);
    for (const q of ['status=done', 'limit=0', 'cursor=abc', 'colour=red']) {
      const r = await c('GET', `/v1/sessions?${q}`);
      assert.equal(r.status, 422, q);
      assert.equal(errorOf(r).code, 'validation_error');
    }
  });

  it('actions follow the transition table; anything else is 409 invalid_state_transition and changes nothing', async () => {
    const { c } = await account();
    const applicantId = await newApplicant(c);
    const templateId = await newTemplate(c, { checks: ['document'] });
    const mk = async (expected: string) => (await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, expected_outcome: expected })).body.data.id;
    const act = (id: string, action: string, body?: unknown) => c<One>('POST', `/v1/sessions/${id}/${action}`, body === undefined ? {} : { body });
    const conflict = async (id: string, action: string, body?: unknown) => {
      const before = (await c<One>('GET', `/v1/sessions/${id}`)).body.data;
      const r = await act(id, action, body);
      assert.equal(r.status, 409, `${action} from ${before.status}: ${r.text}`);
      const e = errorOf(r);
      assert.equal(e.code, 'invalid_state_transition');
      assert.equal(e.type, 'invalid_request_error');
      assert.deepEqual((await c<One>('GET', `/v1/sessions/${id}`)).body.data, before);
    };

    // manual_review: review 409; decision → completed
    const r = await mk('review');
    assert.equal((await waitStatus(c, r)).status, 'manual_review');
    await conflict(r, 'review', { reason: 'again' });
    const decided = await act(r, 'decision', { outcome: 'declined', reason: 'forged document' });
    assert.equal(decided.status, 200, decided.text);
    assert.deepEqual([decided.body.data.status, decided.body.data.outcome], ['completed', 'declined']);
    for (const [action, body] of [['cancel', undefined], ['review', undefined], ['decision', { outcome: 'approved' }]] as const) await conflict(r, action, body);

    // completed by the run: every action 409; notes still allowed
    const p = await mk('pass');
    await waitStatus(c, p);
    for (const [action, body] of [['cancel', undefined], ['review', undefined], ['decision', { outcome: 'approved' }]] as const) await conflict(p, action, body);
    assert.equal((await act(p, 'notes', { note: 'closed' })).status, 200);

    // a live session, pending until the applicant acts: review, then decision
    const live = await account('us', 'live');
    const ls = await setup(live.c);
    const pending = (await createSession(live.c, { applicant_id: ls.applicantId, workflow_template_id: ls.templateId })).body.data.id;
    const lact = (action: string, body?: unknown) => live.c<One>('POST', `/v1/sessions/${pending}/${action}`, body === undefined ? {} : { body });
    assert.equal((await lact('decision', { outcome: 'approved' })).status, 409, 'decision only from manual_review');
    const toReview = await lact('review');
    assert.deepEqual([toReview.status, toReview.body.data.status, toReview.body.data.outcome], [200, 'manual_review', null]);
    assert.ok(!('manualReviewReason' in toReview.body.data.metadata), 'no reason sent, no key written');
    const approved = await lact('decision', { outcome: 'approved' });
    assert.deepEqual([approved.body.data.status, approved.body.data.outcome], ['completed', 'approved']);

    const live2 = (await createSession(live.c, { applicant_id: ls.applicantId, workflow_template_id: ls.templateId })).body.data.id;
    const cancelled = await live.c<One>('POST', `/v1/sessions/${live2}/cancel`);
    assert.deepEqual([cancelled.status, cancelled.body.data.status, cancelled.body.data.outcome], [200, 'cancelled', null]);
    assert.equal((await live.c('POST', `/v1/sessions/${live2}/cancel`)).status, 409);
    assert.equal((await live.c('POST', `/v1/sessions/${live2}/notes`, { body: { note: 'after cancel' } })).status, 200);
  });

  it('action bodies are validated (422) and unknown sessions are 404', async () => {
    const { c } = await account('us', 'live');
    const { applicantId, templateId } = await setup(c);
    const id = (await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId })).body.data.id;
    for (const [action, body, param] of [
      ['notes', {}, 'note'],
      ['notes', { note: '   ' }, 'note'],
      ['notes', { note: 'x'.repeat(2001) }, 'note'],
      ['notes', { note: 'nul \u0000 inside' }, 'note'],
      ['cancel', { reason: '' }, 'reason'],
      ['cancel', { why: 'x' }, 'why'],
      ['review', { reason: 5 }, 'reason'],
      ['decision', { outcome: 'maybe' }, 'outcome'],
      ['decision', {}, 'outcome'],
    ] as const) {
      const r = await c('POST', `/v1/sessions/${id}/${action}`, { body });
      assert.equal(r.status, 422, `${action} ${JSON.stringify(body)}`);
      assert.equal(errorOf(r).param, param);
    }
    assert.equal((await c<One>('GET', `/v1/sessions/${id}`)).body.data.status, 'pending');
    for (const [action, body] of [
      ['notes', { note: 'n' }],
      ['cancel', {}],
      ['review', { reason: 'r' }],
      ['decision', { outcome: 'approved' }],
    ] as const) {
      for (const bad of ['ses_' + 'x'.repeat(24), 'nope']) {
        const r = await c('POST', `/v1/sessions/${bad}/${action}`, { body });
        assert.equal(r.status, 404, `${action} ${bad}`);
        assert.equal(errorOf(r).code, 'resource_not_found');
      }
    }
  });

  it('test mode never sends email but logs the invitation; a live session invites the applicant (admin CLI email-log)', async () => {
    const test = await account();
    const live = await account('us', 'live');
    const t = await setup(test.c);
    const l = await setup(live.c);
    const ts = (await createSession(test.c, { applicant_id: t.applicantId, workflow_template_id: t.templateId })).body.data.id;
    const ls = (await createSession(live.c, { applicant_id: l.applicantId, workflow_template_id: l.templateId })).body.data.id;
    const testLog = await adminCli(['email-log', '--region', 'us', '--org', test.org.id]);
    assert.equal(testLog.code, 0, String(testLog.err));
    const [entry] = (testLog.out as { data: Array<Record<string, unknown>> }).data;
    assert.deepEqual(
      { ...entry, id: '', created_at: '' },
      { id: '', object: 'email', session_id: ts, mode: 'test', template: 'session_invite', subject: 'Please verify your identity', recipient: 'j***@e***.com', status: 'suppressed', created_at: '', sent_at: null },
    );
    // the invitation goes out in the background: wait for it in the log table, then read it as an operator would
    await waitFor(async () => (await query(E2E.db.us, `SELECT 1 FROM sessions.email_log WHERE session_id = $1 AND status = 'sent'`, [ls])).length === 1, 3000);
    const liveLog = await adminCli(['email-log', '--region', 'us', '--org', live.org.id, '--limit', '5', '--mode', 'live']);
    const sent = (liveLog.out as { data: Array<{ status: string; session_id: string; mode: string; sent_at: string | null }> }).data[0]!;
    assert.deepEqual([sent.session_id, sent.mode, sent.status], [ls, 'live', 'sent']);
    assert.ok(sent.sent_at);
    const bad = await adminCli(['email-log', '--region', 'us', '--org', test.org.id, '--limit', 'ten']);
    assert.notEqual(bad.code, 0);
  });
});
