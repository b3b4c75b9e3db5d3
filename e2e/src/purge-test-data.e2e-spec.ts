/**
 * The test-data purge (docs/privacy.md): `npm run admin -- org purge-test-data` deletes every test-mode record of an
 * organization in every service of the region and prints the counts, which match what was stored; test-mode
 * lists are then empty, while live data, another organization and the other region are untouched.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SUBJECTS } from '@verity/contracts';
import { waitFor } from '@verity/testing';
import { adminCli, client, closeOperators, createKey, createOrg, operator, rows, type Region } from './support.js';

after(closeOperators);

const op = { principal: null, requestId: 'req_e2e_purge' };

/** Test-mode records of an organization, counted table by table as the purge names them. */
async function stored(region: Region, orgId: string) {
  const count = async (sql: string) => (await rows<{ n: number }>(region, sql, [orgId]))[0]!.n;
  return {
    sessions: await count(`SELECT count(*)::int AS n FROM sessions.sessions WHERE org_id = $1 AND mode = 'test'`),
    email_log: await count(`SELECT count(*)::int AS n FROM sessions.email_log WHERE org_id = $1 AND mode = 'test'`),
    captures: await count(`SELECT count(*)::int AS n FROM evidence.captures WHERE org_id = $1 AND mode = 'test'`),
    artifacts: await count(`SELECT count(*)::int AS n FROM evidence.artifacts a JOIN evidence.captures c USING (session_id) WHERE c.org_id = $1 AND c.mode = 'test'`),
    deliveries: await count(`SELECT count(*)::int AS n FROM webhook_delivery.deliveries WHERE org_id = $1 AND mode = 'test'`),
    attempts: await count(`SELECT count(*)::int AS n FROM webhook_delivery.attempts WHERE org_id = $1 AND mode = 'test'`),
    templates: await count(`SELECT count(*)::int AS n FROM screening.templates WHERE org_id = $1 AND mode = 'test'`),
    applicants: await count(`SELECT count(*)::int AS n FROM applicants.applicants WHERE org_id = $1 AND mode = 'test'`),
    data_subject_requests: await count(`SELECT count(*)::int AS n FROM applicants.data_subject_requests WHERE org_id = $1 AND mode = 'test'`),
  };
}

/** An applicant, a template and `n` sessions run to their end, in the key's mode. */
async function verifications(c: ReturnType<typeof client>, n: number, live = false) {
  const a = await c<{ data: { id: string } }>('POST', '/v1/applicants', { body: { family_name: 'Purgeable', email: 'p@example.com' } });
  assert.equal(a.status, 201, a.text);
  const t = await c<{ data: { id: string } }>('POST', '/v1/workflow-templates', { body: { name: 'purge', checks: ['document', 'face_match'] } });
  assert.equal(t.status, 201, t.text);
  const ids: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const s = await c<{ data: { id: string } }>('POST', '/v1/sessions', { body: { applicant_id: a.body.data.id, workflow_template_id: t.body.data.id, ...(live ? {} : { expected_outcome: 'pass' }) } });
    assert.equal(s.status, 201, s.text);
    ids.push(s.body.data.id);
  }
  return { applicantId: a.body.data.id, templateId: t.body.data.id, sessionIds: ids };
}

describe('org purge-test-data', () => {
  it('removes every test-mode record of the organization, prints counts that match, and leaves live data as it was', async () => {
    const org = await createOrg('us', 'enterprise');
    await (await operator('us')).call(SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_balance: 1_000_000 }, op);
    const test = client('us', (await createKey('us', org.id, { mode: 'test' })).key);
    const live = client('us', (await createKey('us', org.id, { mode: 'live' })).key);
    // deliveries to an address nobody answers: failed attempts recorded, retried on the compressed schedule
    await (await operator('us')).call(SUBJECTS.webhookSubscriptionCreate, { org_id: org.id, mode: 'test', url: 'https://127.0.0.1:9/hook', event_types: ['kyc.session.completed'] }, op);

    const t = await verifications(test, 3);
    const l = await verifications(live, 1, true);
    await test('POST', '/v1/data_subject_requests', { body: { type: 'access', applicant_id: t.applicantId } });
    // every test run ended, and every delivery has given up, before the counting
    await waitFor(async () => {
      const [r] = await rows<{ open: number; done: number }>(
        'us',
        `SELECT count(*) FILTER (WHERE status IN ('pending', 'in_progress'))::int AS open, count(*)::int AS done FROM sessions.sessions WHERE org_id = $1 AND mode = 'test'`,
        [org.id],
      );
      const [d] = await rows<{ open: number; n: number }>('us', `SELECT count(*) FILTER (WHERE status = 'pending')::int AS open, count(*)::int AS n FROM webhook_delivery.deliveries WHERE org_id = $1`, [org.id]);
      return r!.open === 0 && r!.done === 3 && d!.n === 3 && d!.open === 0 ? true : undefined;
    }, 60_000, 250);
    const liveBefore = {
      applicant: (await live('GET', `/v1/applicants/${l.applicantId}`)).body,
      session: (await live('GET', `/v1/sessions/${l.sessionIds[0]}`)).body,
      template: (await live('GET', `/v1/workflow-templates/${l.templateId}`)).body,
    };
    const before = await stored('us', org.id);
    assert.deepEqual(
      { sessions: before.sessions, captures: before.captures, deliveries: before.deliveries, templates: before.templates, applicants: before.applicants, data_subject_requests: before.data_subject_requests },
      { sessions: 3, captures: 3, deliveries: 3, templates: 1, applicants: 1, data_subject_requests: 1 },
    );
    assert.ok(before.artifacts >= 6 && before.attempts >= 3, JSON.stringify(before));
    const otherOrg = await createOrg('us');
    const otherTest = await verifications(client('us', (await createKey('us', otherOrg.id, { mode: 'test' })).key), 1);

    const run = await adminCli(['org', 'purge-test-data', '--region', 'us', '--org', org.id]);
    assert.equal(run.code, 0, run.stderr);
    const printed = run.out as { object: string; org_id: string; mode: string; removed: Record<string, Record<string, number>> };
    assert.equal(printed.object, 'test_data_purge');
    assert.equal(printed.org_id, org.id);
    assert.deepEqual(Object.keys(printed.removed).sort(), ['applicants', 'evidence', 'id-scan', 'screening', 'sessions', 'webhook-delivery']);
    assert.equal(printed.removed.sessions!.sessions, before.sessions);
    assert.equal(printed.removed.sessions!.email_log ?? 0, before.email_log);
    assert.equal(printed.removed.evidence!.captures, before.captures);
    assert.equal(printed.removed.evidence!.artifacts, before.artifacts);
    assert.equal(printed.removed['webhook-delivery']!.deliveries, before.deliveries);
    assert.equal(printed.removed['webhook-delivery']!.attempts, before.attempts);
    assert.equal(printed.removed.screening!.templates, before.templates);
    assert.equal(printed.removed.applicants!.applicants, before.applicants);
    assert.equal(printed.removed.applicants!.data_subject_requests, before.data_subject_requests);

    // nothing of test mode is left, in the tables and in every list
    assert.deepEqual(Object.values(await stored('us', org.id)).filter((n) => n > 0), []);
    for (const path of ['/v1/applicants', '/v1/sessions', '/v1/workflow-templates', '/v1/webhook-events']) {
      const r = await test<{ data: unknown[] }>('GET', path);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.data, [], path);
    }
    // live data, another organization and the other region are as they were
    assert.deepEqual((await live('GET', `/v1/applicants/${l.applicantId}`)).body, liveBefore.applicant);
    assert.deepEqual((await live('GET', `/v1/sessions/${l.sessionIds[0]}`)).body, liveBefore.session);
    assert.deepEqual((await live('GET', `/v1/workflow-templates/${l.templateId}`)).body, liveBefore.template);
    assert.equal((await rows('us', 'SELECT id FROM sessions.sessions WHERE id = $1', [otherTest.sessionIds[0]])).length, 1);

    // again: nothing more to remove
    const again = await adminCli(['org', 'purge-test-data', '--region', 'us', '--org', org.id]);
    assert.equal(again.code, 0, again.stderr);
    const counts = Object.values((again.out as typeof printed).removed).flatMap((r) => Object.values(r));
    assert.deepEqual(counts.filter((n) => n !== 0), []);

    // an unknown organization is refused, naming nothing it removed
    const unknown = await adminCli(['org', 'purge-test-data', '--region', 'us', '--org', 'org_000000000000000000000000']);
    assert.notEqual(unknown.code, 0);
    assert.equal((unknown.err as { error: { code: string } }).error.code, 'resource_not_found');
  });
});
