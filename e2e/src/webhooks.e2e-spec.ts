/**
 * Webhooks end to end through the shared us stack: subscriptions made with the admin CLI, sessions created
 * through the gateway (their events relayed by the sessions outbox to the region's stream), signed deliveries
 * at an HTTPS receiver on loopback (its certificate trusted through NODE_EXTRA_CA_CERTS; the stack runs with
 * WEBHOOK_ALLOW_PRIVATE_NETWORKS=true and WEBHOOK_RETRY_SCHEDULE=1s,1s,1s), and the delivery log read back
 * through GET /v1/webhook-events.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import type { WebhookAttempt, WebhookSubscriptionWithSecret } from '@verity/contracts';
import { startWebhookReceiver, testTls, waitFor, type ReceivedWebhook, type WebhookReceiver } from '@verity/testing';
import { account, createSession, setup, waitStatus, type Client } from './sessions-support.js';
import { adminCli, client, closeOperators, errorOf, orgWithKey } from './support.js';

let rx: WebhookReceiver;

before(async () => {
  rx = await startWebhookReceiver({ tls: testTls() });
});
after(async () => {
  await rx?.close();
  await closeOperators();
});

type Page = { data: WebhookAttempt[]; next_cursor: string | null };

async function subscribe(orgId: string, mode: 'test' | 'live', path: string, events = 'kyc.session.completed,kyc.session.manual_review_requested,kyc.session.cancelled') {
  const res = await adminCli(['webhook', 'create', '--region', 'us', '--org', orgId, '--mode', mode, '--url', `${rx.url}${path}`, '--events', events]);
  assert.equal(res.code, 0, JSON.stringify(res.err));
  return res.out as WebhookSubscriptionWithSecret;
}

function verified(secret: string, got: ReceivedWebhook): { type: string; timestamp: string; data: Record<string, unknown> } {
  return new Webhook(secret).verify(got.body, got.headers) as { type: string; timestamp: string; data: Record<string, unknown> };
}

/** The requests of the session's event, once `n` of them arrived. */
async function receivedFor(sessionId: string, n: number, ms = 10_000): Promise<ReceivedWebhook[]> {
  return waitFor(async () => {
    const got = rx.received.filter((r) => (JSON.parse(r.body) as { data: { sessionId: string } }).data.sessionId === sessionId);
    return got.length >= n ? got : undefined;
  }, ms);
}

async function log(c: Client, query: string): Promise<Page> {
  const res = await c<Page>('GET', `/v1/webhook-events${query}`);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

describe('webhooks end to end', () => {
  it('a completed test session is delivered signed to the test endpoint only, and logged', async () => {
    const { org, c } = await account('us', 'test');
    const sub = await subscribe(org.id, 'test', '/e2e/test');
    assert.match(sub.secret, /^whsec_/);
    await subscribe(org.id, 'live', '/e2e/live');
    const { applicantId, templateId } = await setup(c, { checks: ['document', 'watchlist'] });
    const created = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, expected_outcome: 'pass' });
    assert.equal(created.status, 201);
    const session = await waitStatus(c, created.body.data.id);
    const [got] = await receivedFor(session.id, 1);
    const body = verified(sub.secret, got!);
    const { timestamp, ...rest } = body;
    assert.deepEqual(rest, {
      type: 'kyc.session.completed',
      data: { sessionId: session.id, status: 'completed', outcome: 'approved', occurredAt: session.updated_at, checks: session.checks },
    });
    // test mode: synthetic outcomes, no reasons, no scores
    assert.deepEqual(session.checks, [
      { type: 'document', outcome: 'pass', reasons: [], score: null },
      { type: 'watchlist', outcome: 'pass', reasons: [], score: null },
    ]);
    // the event's own time: an ISO 8601 instant between the session's creation and its delivery
    assert.match(timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    assert.ok(Date.parse(timestamp) >= Date.parse(session.created_at) && Date.parse(timestamp) <= Date.now(), timestamp);
    assert.match(got!.headers['webhook-id']!, /^evt_/);
    assert.equal(got!.path, '/e2e/test');
    assert.equal(got!.headers['content-type'], 'application/json');
    assert.ok(!got!.body.includes('Doe') && !got!.body.includes('jane'), 'no personal data');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(rx.received.filter((r) => r.path === '/e2e/live' && r.body.includes(session.id)).length, 0, 'the live endpoint gets nothing');

    const page = await waitFor(async () => {
      const p = await log(c, `?session_id=${session.id}`);
      return p.data.length ? p : undefined;
    }, 5000);
    assert.equal(page.data.length, 1);
    const row = page.data[0]!;
    assert.deepEqual(
      { ...row, id: 'x', delivery_id: 'x', latency_ms: 0, created_at: 'x' },
      {
        id: 'x',
        object: 'webhook_attempt',
        delivery_id: 'x',
        event_id: got!.headers['webhook-id'],
        event_type: 'kyc.session.completed',
        session_id: session.id,
        subscription_id: sub.id,
        attempt: 1,
        status: 'succeeded',
        http_status: 200,
        latency_ms: 0,
        error_code: null,
        next_attempt_at: null,
        created_at: 'x',
      },
    );
    assert.ok(!JSON.stringify(page).includes(sub.secret) && !JSON.stringify(page).includes('"data":{"sessionId"'), 'never the secret, never the payload');
  });

  it('a receiver answering 500 twice then 200 gets three attempts with the same webhook-id; the log shows attempts 1–3', async () => {
    const { org, c } = await account('us', 'test');
    const sub = await subscribe(org.id, 'test', '/e2e/flaky');
    const { applicantId, templateId } = await setup(c, { checks: ['document'] });
    const created = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId, expected_outcome: 'review' });
    const sessionId = created.body.data.id;
    const isOurs = (r: ReceivedWebhook) => r.path === '/e2e/flaky';
    const previous = rx.respond;
    rx.respond = (r, n) => (isOurs(r) && n <= 2 ? 500 : previous(r, n));
    try {
      const got = await receivedFor(sessionId, 3, 15_000);
      assert.equal(got.length, 3);
      assert.equal(new Set(got.map((g) => g.headers['webhook-id'])).size, 1, 'one webhook-id across retries');
      for (const g of got) assert.equal(verified(sub.secret, g).type, 'kyc.session.manual_review_requested');
      const rows = await waitFor(async () => {
        const p = await log(c, `?session_id=${sessionId}&subscription_id=${sub.id}`);
        return p.data.length === 3 ? p.data : undefined;
      }, 5000);
      assert.deepEqual(
        rows.map((r) => [r.attempt, r.status, r.http_status, r.error_code, r.next_attempt_at === null]),
        [
          [3, 'succeeded', 200, null, true],
          [2, 'failed', 500, 'http_status', false],
          [1, 'failed', 500, 'http_status', false],
        ],
      );
      assert.equal(new Set(rows.map((r) => r.delivery_id)).size, 1);
      for (const r of rows) assert.ok(Number.isInteger(r.latency_ms) && r.latency_ms >= 0 && r.latency_ms < 10_000);
      // the retry schedule here is 1 s: each retry was due about a second after the failure, and came no earlier
      for (const [failed, next] of [[rows[2]!, rows[1]!], [rows[1]!, rows[0]!]]) {
        const due = Date.parse(failed.next_attempt_at!);
        assert.ok(due - Date.parse(failed.created_at) >= 1000);
        assert.ok(Date.parse(next.created_at) >= due - 100);
      }
    } finally {
      rx.respond = previous;
    }
  });

  it('the admin CLI lists, rotates (both signatures during the overlap), replays with the same webhook-id and disables', async () => {
    const { org, c } = await account('us', 'test');
    const sub = await subscribe(org.id, 'test', '/e2e/cli', 'kyc.session.completed');
    const listed = await adminCli(['webhook', 'list', '--region', 'us', '--org', org.id]);
    assert.equal(listed.code, 0);
    assert.deepEqual((listed.out as { data: Array<{ id: string; secret?: string }> }).data.map((s) => [s.id, s.secret]), [[sub.id, undefined]]);

    const rotated = await adminCli(['webhook', 'rotate-secret', '--region', 'us', '--subscription', sub.id]);
    assert.equal(rotated.code, 0);
    const next = rotated.out as WebhookSubscriptionWithSecret & { previous_secret_expires_at: string };
    assert.notEqual(next.secret, sub.secret);

    const { applicantId, templateId } = await setup(c, { checks: ['document'] });
    const s1 = (await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId })).body.data.id;
    const [first] = await receivedFor(s1, 1);
    assert.equal(first!.headers['webhook-signature']!.split(' ').length, 2);
    assert.ok(verified(next.secret, first!) && verified(sub.secret, first!));

    const replayed = await adminCli(['webhook', 'replay', '--region', 'us', '--session', s1]);
    assert.equal(replayed.code, 0, JSON.stringify(replayed.err));
    assert.equal((replayed.out as { replayed: number }).replayed, 1);
    const both = await receivedFor(s1, 2);
    assert.equal(both[1]!.headers['webhook-id'], first!.headers['webhook-id']);
    assert.equal(both[1]!.body, first!.body);

    const disabled = await adminCli(['webhook', 'disable', '--region', 'us', '--subscription', sub.id]);
    assert.equal(disabled.code, 0);
    assert.equal((disabled.out as { status: string }).status, 'disabled');
    const s2 = (await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId })).body.data.id;
    await waitStatus(c, s2);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(rx.received.filter((r) => r.body.includes(s2)).length, 0, 'a disabled subscription receives nothing');
  });

  it('the CLI refuses plain HTTP and private receivers are checked per address; refusals exit non-zero with an error object', async () => {
    const { org } = await orgWithKey('us');
    const http = await adminCli(['webhook', 'create', '--region', 'us', '--org', org.id, '--mode', 'test', '--url', 'http://127.0.0.1:9/x', '--events', 'kyc.session.completed']);
    assert.notEqual(http.code, 0);
    assert.equal((http.err as { error: { code: string } }).error.code, 'validation_error');
    assert.match((http.err as { error: { message: string } }).error.message, /https/);
    // allowed on this stack (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true) but metadata endpoints never are
    const metadata = await adminCli(['webhook', 'create', '--region', 'us', '--org', org.id, '--mode', 'test', '--url', 'https://169.254.169.254/', '--events', 'kyc.session.completed']);
    assert.notEqual(metadata.code, 0);
    assert.equal((metadata.err as { error: { code: string } }).error.code, 'validation_error');
    const unknown = await adminCli(['webhook', 'replay', '--region', 'us']);
    assert.equal(unknown.code, 2);
  });

  it('GET /v1/webhook-events needs webhooks:read and validates its parameters', async () => {
    const { key } = await orgWithKey('us', { scopes: ['sessions:read'] });
    const res = await client('us', key)('GET', '/v1/webhook-events');
    assert.equal(res.status, 403);
    assert.equal(errorOf(res).code, 'insufficient_scope');
    const ok = await orgWithKey('us', { scopes: ['webhooks:read'] });
    const c = client('us', ok.key);
    assert.deepEqual((await c('GET', '/v1/webhook-events')).body, { data: [], next_cursor: null });
    for (const q of ['?limit=0', '?limit=abc', '?cursor=nope', '?event_type=x']) {
      const r = await c('GET', `/v1/webhook-events${q}`);
      assert.equal(r.status, 422, q);
      assert.equal(errorOf(r).code, 'validation_error');
    }
  });
});
