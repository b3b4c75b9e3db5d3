/**
 * The sender stage in the running service, against a real HTTPS receiver on loopback: many attempts at once,
 * each signed with every secret of its subscription and each logged with its own result.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SUBJECTS } from '@verity/contracts';
import { startWebhookReceiver, testTls, waitFor, type WebhookReceiver } from '@verity/testing';
import { Webhook } from 'standardwebhooks';
import { harness, sessionEvent, type Harness } from './support.js';

let h: Harness;
let rx: WebhookReceiver;
const op = { principal: null, requestId: 'req_int' };

before(async () => {
  // no retries within the test: each delivery's one attempt is its result
  h = await harness('whsender', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '60s', WEBHOOK_CONCURRENCY: '16' });
  await h.start();
  rx = await startWebhookReceiver({ tls: testTls() });
});

after(async () => {
  await rx?.close();
  await h?.close();
});

describe('the sender', () => {
  it('signs each attempt with every secret of its subscription and logs each with its own result, however many go at once', async () => {
    const org = await h.createOrg();
    const sub = await h.subscribe(org, 'test', `${rx.url}/many`);
    const rotated = await h.rpc.call(SUBJECTS.webhookSubscriptionRotateSecret, { subscription_id: sub.id }, op);
    const events = Array.from({ length: 60 }, () => sessionEvent(org, 'test'));
    const statusOf = new Map(events.map((e, i) => [e.id, [200, 204, 503, 410][i % 4]!]));
    rx.respond = (req) => statusOf.get(req.headers['webhook-id']!) ?? 500;
    await Promise.all(events.map((e) => h.publish(e)));
    const logged = await waitFor(async () => {
      const rows = (await h.attempts(org, 'test')).filter((a) => statusOf.has(a.event_id));
      return rows.length >= events.length ? rows : undefined;
    }, 20_000);
    assert.deepEqual(
      logged.map((a) => [a.event_id, a.status, a.http_status, a.error_code]).sort(),
      events.map((e) => {
        const s = statusOf.get(e.id)!;
        return [e.id, s < 300 ? 'succeeded' : 'failed', s, s < 300 ? null : 'http_status'];
      }).sort(),
    );
    for (const e of events) {
      const [got] = rx.byId(e.id);
      assert.ok(got, `${e.id} reached the receiver`);
      assert.match(got.headers['user-agent']!, /^Verity-Webhooks\//);
      assert.equal(got.headers['content-type'], 'application/json');
      // both signatures verify: the current secret's and the previous one's
      assert.doesNotThrow(() => new Webhook(rotated.secret).verify(got.body, got.headers));
      assert.doesNotThrow(() => new Webhook(sub.secret).verify(got.body, got.headers));
    }
  });
});
