import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { query } from '@verity/testing';
import { client, closeOperators, createKey, E2E, errorOf, orgWithKey, type Region } from './support.js';

after(closeOperators);

interface Template {
  id: string;
  object: string;
  mode: string;
  name: string;
  version: number;
  checks: string[];
  screening_rules: Array<Record<string, unknown>>;
  metadata: Record<string, unknown>;
  device_intelligence: boolean;
  photo_upload: boolean;
  review_threshold: number;
  signing_document: unknown;
  created_at: string;
  updated_at: string;
}
type One = { data: Template };
type List = { data: Template[]; next_cursor: string | null };
type Issue = { code: string; message: string; path: (string | number)[] };

const field = (f: string, operator = 'exists', value?: unknown) => ({ kind: 'field', field: f, operator, ...(value === undefined ? {} : { value }) });
const rule = (over: Record<string, unknown> = {}) => ({
  name: 'high findings',
  ruleType: 'watchlist_hit',
  condition: field('finding.severity.high.count', 'gte', 1),
  action: 'review',
  ...over,
});

async function storedVersions(region: Region, id: string) {
  return query<{ version: number; screening_rules: unknown[] }>(
    E2E.db[region],
    'SELECT version, screening_rules FROM screening.template_versions WHERE template_id = $1 ORDER BY version',
    [id],
  );
}

describe('workflow templates API', () => {
  for (const region of ['us', 'eu'] as const) {
    it(`${region}: creates (201), reads, lists newest first and patches into a new version`, async () => {
      const { key } = await orgWithKey(region);
      const c = client(region, key);
      const created = await c<One>('POST', '/v1/workflow-templates', {
        body: { name: 'Onboarding', checks: ['document', 'face_match', 'liveness'], screening_rules: [rule()], metadata: { tier: 'gold' } },
      });
      assert.equal(created.status, 201, created.text);
      const t = created.body.data;
      assert.match(t.id, /^wft_[A-Za-z0-9]{24}$/);
      assert.deepEqual({ ...t, id: '', created_at: '', updated_at: '' }, {
        id: '',
        object: 'workflow_template',
        mode: 'test',
        name: 'Onboarding',
        version: 1,
        checks: ['document', 'face_match', 'liveness'],
        screening_rules: [{ ...rule(), priority: 100, isActive: true }],
        metadata: { tier: 'gold' },
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
        created_at: '',
        updated_at: '',
      });

      const read = await c<One>('GET', `/v1/workflow-templates/${t.id}`);
      assert.equal(read.status, 200);
      assert.deepEqual(read.body.data, t);

      const second = (await c<One>('POST', '/v1/workflow-templates', { body: { name: 'Second' } })).body.data;
      const list = await c<List>('GET', '/v1/workflow-templates?limit=1');
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.data.map((x) => x.id), [second.id]);
      assert.ok(list.body.next_cursor);
      const next = await c<List>('GET', `/v1/workflow-templates?limit=1&cursor=${list.body.next_cursor}`);
      assert.deepEqual([next.body.data.map((x) => x.id), next.body.next_cursor], [[t.id], null]);
      assert.equal(errorOf(await c('GET', '/v1/workflow-templates?limit=0')).code, 'validation_error');

      const patched = await c<One>('PATCH', `/v1/workflow-templates/${t.id}`, { body: { name: 'Onboarding v2', photo_upload: true } });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.data.version, 2);
      assert.equal(patched.body.data.name, 'Onboarding v2');
      assert.equal(patched.body.data.photo_upload, true);
      assert.deepEqual(patched.body.data.screening_rules, t.screening_rules, 'omitted rules stay');

      const cleared = await c<One>('PATCH', `/v1/workflow-templates/${t.id}`, { body: { screening_rules: [] } });
      assert.deepEqual([cleared.body.data.version, cleared.body.data.screening_rules], [3, []]);
      assert.deepEqual((await c<One>('GET', `/v1/workflow-templates/${t.id}`)).body.data, cleared.body.data);
      const stored = await storedVersions(region, t.id);
      assert.deepEqual(
        stored.map((v) => [v.version, v.screening_rules.length]),
        [
          [1, 1],
          [2, 1],
          [3, 0],
        ],
      );
    });
  }

  it('refuses each kind of screening-rule problem with 422 validation_error, and creates nothing', async () => {
    const { key, org } = await orgWithKey('us');
    const c = client('us', key);
    const refuse = async (screening_rules: unknown[]) => {
      const res = await c('POST', '/v1/workflow-templates', { body: { name: 'refused', screening_rules } });
      assert.equal(res.status, 422, res.text);
      const e = errorOf(res);
      assert.equal(e.code, 'validation_error');
      assert.equal(e.type, 'invalid_request_error');
      assert.equal(e.param, 'screening_rules');
      return e;
    };
    const issuesOf = (e: { details?: Record<string, unknown> }) => (e.details as { issues: Issue[] }).issues;

    // a limit: at most 100 rules
    const tooMany = await refuse(Array.from({ length: 101 }, () => rule()));
    assert.deepEqual(issuesOf(tooMany).map((i) => [i.code, i.path]), [['too_big', ['screening_rules']]]);

    // a bad operator
    const badOp = await refuse([rule(), rule({ condition: field('finding.count', 'between', 3) })]);
    assert.deepEqual(issuesOf(badOp).map((i) => [i.code, i.path]), [['invalid_value', ['screening_rules', 1, 'condition', 'operator']]]);

    // a pattern field off its grammar (the key of session.metadata.<key> is letters, digits and _)
    const grammar = await refuse([rule({ condition: field('session.metadata.risk-tier', 'eq', 'high') })]);
    assert.deepEqual(grammar.details, { field: 'session.metadata.risk-tier' });

    // the three decline refusals, each with its own message, at [screening_rules, i, action]
    const declines = [
      rule({ ruleType: 'credit_history', action: 'decline' }),
      rule({ ruleType: 'device_velocity', action: 'decline' }),
      rule({ ruleType: 'country_block', action: 'decline', condition: field('applicant.address.country', 'in', ['KP']) }),
    ];
    const messages: string[] = [];
    for (const [i, d] of declines.entries()) {
      const rules = [...Array.from({ length: i }, () => rule()), d];
      const issues = issuesOf(await refuse(rules));
      assert.equal(issues.length, 1);
      assert.equal(issues[0]!.code, 'custom');
      assert.deepEqual(issues[0]!.path, ['screening_rules', i, 'action']);
      messages.push(issues[0]!.message);
    }
    assert.match(messages[0]!, /consumer report/);
    assert.match(messages[1]!, /no automated decline/);
    assert.match(messages[2]!, /sensitive attribute/);
    assert.equal(new Set(messages).size, 3);

    // an unresolvable field nested in a group: details are exactly { field }, the value never echoed
    const nested = await refuse([
      rule(),
      rule({
        condition: {
          kind: 'group',
          op: 'AND',
          children: [field('finding.count', 'gt', 0), { kind: 'group', op: 'OR', children: [field('applicant.ssn', 'eq', '078-05-1120')] }],
        },
      }),
    ]);
    assert.deepEqual(nested.details, { field: 'applicant.ssn' });
    assert.match(nested.message, /unresolvable screening-rule field/i);
    assert.ok(!JSON.stringify(nested).includes('078-05-1120'));

    assert.deepEqual((await c<List>('GET', '/v1/workflow-templates')).body.data, []);
    assert.deepEqual(await query(E2E.db.us, 'SELECT id FROM screening.templates WHERE org_id = $1', [org.id]), []);
  });

  it('refuses other invalid bodies: unknown fields, bad values, a signing check without its document', async () => {
    const { key } = await orgWithKey('us');
    const c = client('us', key);
    const unknown = errorOf(await c('POST', '/v1/workflow-templates', { body: { name: 'x', rules: [] } }));
    assert.deepEqual([unknown.code, unknown.param], ['validation_error', 'rules']);
    const bad = await c('POST', '/v1/workflow-templates', { body: { name: '', checks: ['selfie'], review_threshold: 2 } });
    assert.equal(bad.status, 422);
    assert.deepEqual(
      (errorOf(bad).details as { issues: Issue[] }).issues.map((i) => i.path),
      [['name'], ['checks', 0], ['review_threshold']],
    );
    const esign = await c('POST', '/v1/workflow-templates', { body: { name: 'sign', checks: ['document_signing'] } });
    assert.equal(esign.status, 403);
    assert.deepEqual([errorOf(esign).code, errorOf(esign).type, errorOf(esign).details], [
      'esign_requirements_not_met',
      'invalid_request_error',
      { reason: 'signing_document_required' },
    ]);
    const signed = await c<One>('POST', '/v1/workflow-templates', {
      body: { name: 'sign', checks: ['document_signing'], signing_document: { title: 'Rental agreement', variables: ['start_datetime', 'amount', 'currency'] } },
    });
    assert.equal(signed.status, 201);
    assert.deepEqual(signed.body.data.signing_document, { title: 'Rental agreement', variables: ['start_datetime', 'amount', 'currency'] });
    assert.equal((await c('POST', '/v1/workflow-templates', { rawBody: '{"name":', headers: { 'content-type': 'application/json' } })).status, 400);
  });

  it('a refused PATCH saves nothing: the previous rules stay readable and unchanged', async () => {
    const { key } = await orgWithKey('us');
    const c = client('us', key);
    const t = (await c<One>('POST', '/v1/workflow-templates', { body: { name: 'keep', screening_rules: [rule(), rule({ name: 'second', action: 'tag' })] } })).body.data;
    const refusals = [
      { name: 'changed', screening_rules: [rule({ ruleType: 'email_risk', action: 'decline' })] },
      { screening_rules: [rule({ condition: { kind: 'group', op: 'OR', children: [field('device.velocity.unknown')] } })] },
      { screening_rules: [rule({ priority: 10001 })] },
      { name: 'changed', checks: ['document_signing'] },
      { name: 'changed', owner: 'someone' },
    ];
    for (const body of refusals) {
      const res = await c('PATCH', `/v1/workflow-templates/${t.id}`, { body });
      assert.ok(res.status === 422 || res.status === 403, `${res.status} ${res.text}`);
    }
    const read = await c<One>('GET', `/v1/workflow-templates/${t.id}`);
    assert.deepEqual(read.body.data, t);
    assert.deepEqual(
      (await storedVersions('us', t.id)).map((v) => v.version),
      [1],
    );
  });

  it('a us template is invisible from eu, from another organization and from the other mode', async () => {
    const { key, org } = await orgWithKey('us');
    const t = (await client('us', key)<One>('POST', '/v1/workflow-templates', { body: { name: 'us only' } })).body.data;
    const notFound = async (region: Region, k: string) => {
      for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'taken' }]] as const) {
        const res = await client(region, k)(method, `/v1/workflow-templates/${t.id}`, { body });
        assert.equal(res.status, 404, `${region} ${method} ${res.text}`);
        assert.equal(errorOf(res).code, 'resource_not_found');
        assert.ok(!res.text.includes(t.id), 'the id is not echoed');
      }
      assert.deepEqual((await client(region, k)<List>('GET', '/v1/workflow-templates')).body.data, []);
    };
    await notFound('eu', (await orgWithKey('eu')).key);
    await notFound('us', (await orgWithKey('us')).key);
    await notFound('us', (await createKey('us', org.id, { mode: 'live' })).key);
    // the us key itself on the eu endpoint never gets that far
    assert.equal(errorOf(await client('eu', key)('GET', `/v1/workflow-templates/${t.id}`)).code, 'region_mismatch');
    for (const id of ['wft_unknown', 'wft_AAAAAAAAAAAAAAAAAAAAAAAA', 'app_123']) {
      assert.equal(errorOf(await client('us', key)('GET', `/v1/workflow-templates/${id}`)).code, 'resource_not_found');
    }
    assert.equal((await client('us', key)<One>('GET', `/v1/workflow-templates/${t.id}`)).body.data.name, 'us only');
  });

  it('needs workflows:read to read and workflows:write to create or patch', async () => {
    const { key: writer } = await orgWithKey('us', { scopes: ['workflows:read', 'workflows:write'] });
    const t = (await client('us', writer)<One>('POST', '/v1/workflow-templates', { body: { name: 'scoped' } })).body.data;
    const { key: reader, org } = await orgWithKey('us', { scopes: ['workflows:read'] });

    const r = client('us', reader);
    for (const [method, path] of [
      ['POST', '/v1/workflow-templates'],
      ['PATCH', `/v1/workflow-templates/${t.id}`],
    ] as const) {
      const res = await r(method, path, { body: { name: 'nope' } });
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.deepEqual([errorOf(res).code, errorOf(res).details], ['insufficient_scope', { required_scope: 'workflows:write' }]);
    }
    assert.equal((await r<List>('GET', '/v1/workflow-templates')).status, 200);

    const { key: none } = await orgWithKey('us', { scopes: ['sessions:read', 'workflows:write'] });
    for (const path of ['/v1/workflow-templates', `/v1/workflow-templates/${t.id}`]) {
      const res = await client('us', none)('GET', path);
      assert.equal(res.status, 403, path);
      assert.deepEqual([errorOf(res).code, errorOf(res).details], ['insufficient_scope', { required_scope: 'workflows:read' }]);
    }
    assert.deepEqual(await query(E2E.db.us, 'SELECT id FROM screening.templates WHERE org_id = $1', [org.id]), []);
    assert.equal((await client('us', writer)<One>('GET', `/v1/workflow-templates/${t.id}`)).body.data.version, 1);
  });

  it('readiness of each region includes the screening service', async () => {
    for (const region of ['us', 'eu'] as const) {
      const res = await client(region)<{ services: Record<string, string> }>('GET', '/health/ready');
      assert.equal(res.status, 200);
      assert.equal(res.body.services.screening, 'ok');
    }
  });
});
