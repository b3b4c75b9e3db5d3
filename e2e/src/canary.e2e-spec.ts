/**
 * The personal-data canary audit (docs/security.md): a canary applicant (name, email address, date of
 * birth, address) goes through every path — a test session, a live session whose invitation the mail server
 * rejects, refused requests carrying the canaries, and a fault (the applicants service stopped) — on a stack of
 * this file's own. Afterwards the canaries must be absent from every service's log output, from the event
 * stream and from every table except the ones meant to hold them (the applicant itself).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SUBJECTS } from '@verity/contracts';
import { api, query, startSmtpServer, waitFor, type SmtpServer } from '@verity/testing';
import { startOwnStack, type OwnStack } from './own-stack.js';
import { streamEvents } from './sessions-support.js';

const tag = randomBytes(3).toString('hex');
/** What the canary applicant is made of; each must appear only where it is meant to be stored. */
const CANARY = {
  family: `Canaryfamily${tag}`,
  given: `Canarygiven${tag}`,
  email: `canary.mailbox.${tag}@example.com`,
  dob: '1931-07-19',
  street: `${tag} Canarystreet`,
};
const NEEDLES = [CANARY.family, CANARY.given, CANARY.email, `canary.mailbox.${tag}`, CANARY.dob, CANARY.street];
/** Tables meant to hold an applicant's personal data. */
const HOLDERS = new Set(['applicants.applicants']);
const op = { principal: null, requestId: 'req_e2e_canary' };

describe('personal-data canary audit', () => {
  let own: OwnStack;
  let mail: SmtpServer;
  const logs: string[] = [];

  before(async () => {
    // a mail server that refuses every recipient, naming the address, as real ones do
    mail = await startSmtpServer();
    mail.rejectRecipients = true;
    own = await startOwnStack('canary', {
      // the level a production region runs at
      env: { LOG_LEVEL: 'info', RPC_TIMEOUT_MS: '2000', RATE_LIMIT_IP_PER_MINUTE: '100000' },
      // what the canary never calls is not started
      replicas: { 'id-scan': 0, 'webhook-delivery': 0 },
      serviceEnv: { sessions: { JOBS_POLL_MS: '200', SMTP_URL: mail.url, CAPTURE_SECRET_KEY: randomBytes(32).toString('base64') } },
      output: (region, service, line) => logs.push(`[${region}/${service}] ${line}`),
    });
  });

  after(async () => {
    await own?.close();
    await mail?.close();
  });

  it('the canaries sent through every path are absent from logs, events and every table but the applicant', async () => {
    const { stack, db, ops, root, reader } = own;
    const org = await ops.call(SUBJECTS.accountsOrgCreate, { name: 'canary', tier: 'enterprise' }, op);
    await ops.call(SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_balance: 1_000_000 }, op);
    const scopes = ['applicants:read', 'applicants:write', 'workflows:write', 'sessions:read', 'sessions:write'];
    const test = (await ops.call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'test', type: 'sk', scopes }, op)).key;
    const live = (await ops.call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'live', type: 'sk', scopes }, op)).key;
    const base = stack.baseUrl('us');
    const call = <T = { data: { id: string } }>(key: string, method: string, p: string, body?: unknown, rawBody?: string) =>
      api<T>(base, method, p, { key, body, rawBody, headers: rawBody ? { 'content-type': 'application/json' } : {} });
    const applicant = {
      family_name: CANARY.family,
      given_names: [CANARY.given],
      email: CANARY.email,
      date_of_birth: CANARY.dob,
      address: { line1: CANARY.street, city: 'Amsterdam', postal_code: '1011AB', country: 'NL' },
    };

    // a test session, run to its end
    const a = await call(test, 'POST', '/v1/applicants', applicant);
    assert.equal(a.status, 201, a.text);
    const t = await call(test, 'POST', '/v1/workflow-templates', { name: 'canary', checks: ['document', 'watchlist'] });
    const s = await call<{ data: { id: string; status: string } }>(test, 'POST', '/v1/sessions', { applicant_id: a.body.data.id, workflow_template_id: t.body.data.id });
    assert.equal(s.status, 201, s.text);

    // a live session: its invitation goes to a mail server that rejects the address, naming it
    const la = await call(live, 'POST', '/v1/applicants', applicant);
    const lt = await call(live, 'POST', '/v1/workflow-templates', { name: 'canary', checks: ['document'] });
    const ls = await call(live, 'POST', '/v1/sessions', { applicant_id: la.body.data.id, workflow_template_id: lt.body.data.id });
    assert.equal(ls.status, 201, ls.text);

    // refused requests carrying the canaries: wrong shapes, an unknown field, bad dates, text Postgres cannot store
    const refusals = [
      await call(test, 'POST', '/v1/applicants', { ...applicant, given_names: CANARY.given }),
      await call(test, 'POST', '/v1/applicants', { ...applicant, date_of_birth: `${CANARY.dob}T99` }),
      await call(test, 'POST', '/v1/applicants', { ...applicant, nickname: CANARY.email }),
      await call(test, 'POST', '/v1/applicants', undefined, `{"family_name":"${CANARY.family}\\ud800","email":"${CANARY.email}"}`),
      await call(test, 'POST', '/v1/applicants', undefined, `{"family_name":"${CANARY.family}\\u0000"}`),
      await call(test, 'POST', '/v1/applicants', undefined, `{"family_name":"${CANARY.family}",`),
    ];
    for (const r of refusals) assert.ok(r.status >= 400 && r.status < 500, `${r.status} ${r.text}`);
    // a list filtered by a canary: a filter that matches nothing is an empty page
    const filtered = await call(test, 'GET', `/v1/sessions?applicant_id=${encodeURIComponent(CANARY.email)}`);
    assert.equal(filtered.status, 200, filtered.text);
    for (const r of [...refusals, filtered]) for (const n of NEEDLES) assert.ok(!r.text.includes(n), `an answer echoes ${n}: ${r.text}`);

    // a fault: the applicants service stopped while a canary applicant is created
    await stack.stopService('us', 'applicants');
    const down = await call(test, 'POST', '/v1/applicants', applicant);
    assert.equal(down.status, 503, down.text);
    stack.startService('us', 'applicants');
    await stack.waitReady('us', 60_000);

    // everything has happened: the test run rested, the invitation was refused by the mail server
    await waitFor(async () => {
      const [r] = await query<{ status: string }>(db.url, 'SELECT status FROM sessions.sessions WHERE id = $1', [s.body.data.id]);
      return ['completed', 'manual_review'].includes(r?.status ?? '') ? true : undefined;
    }, 60_000);
    await waitFor(async () => {
      const [r] = await query<{ status: string }>(db.url, `SELECT status FROM sessions.email_log WHERE session_id = $1`, [ls.body.data.id]);
      return r?.status === 'failed' ? true : undefined;
    }, 60_000);
    // the logs were captured, the mail server's refusal (which names the address) among them; on a busy machine
    // the line can reach the pipe after the row it follows
    const refusal = await waitFor(async () => logs.find((l) => l.includes('invitation given up')), 15_000).catch(() => undefined);
    assert.ok(refusal, 'the refused invitation was logged');
    await new Promise((r) => setTimeout(r, 500)); // the last log lines of the services
    assert.match(refusal, /Recipient address rejected/);
    const found: string[] = [];
    // every service's log output
    for (const line of logs) for (const n of NEEDLES) if (line.toLowerCase().includes(n.toLowerCase())) found.push(`log: ${line.slice(0, 300)}`);
    // the event stream
    for (const m of await streamEvents('us', () => true, root, reader)) {
      const text = JSON.stringify(m.event);
      for (const n of NEEDLES) if (text.includes(n)) found.push(`event ${m.event.type}: ${n}`);
    }
    // every table of every schema, the activity log included
    const tables = await query<{ t: string }>(
      db.url,
      `SELECT format('%I.%I', table_schema, table_name) AS t FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema', 'public')`,
    );
    assert.ok(tables.length > 10, 'the schemas are there');
    for (const { t } of tables) {
      if (HOLDERS.has(t)) continue;
      const [r] = await query<{ n: number }>(db.url, `SELECT count(*)::int AS n FROM ${t} x WHERE x::text ILIKE ANY($1)`, [NEEDLES.map((n) => `%${n}%`)]);
      if (r!.n > 0) found.push(`table ${t}: ${r!.n} row(s)`);
    }
    // the applicant was stored where it belongs (the audit looks for the right strings)
    const [held] = await query<{ n: number }>(db.url, `SELECT count(*)::int AS n FROM applicants.applicants x WHERE x::text ILIKE $1`, [`%${CANARY.family}%`]);
    assert.ok(held!.n >= 2, 'the canary applicants are stored');
    assert.deepEqual(found, []);
  });
});
