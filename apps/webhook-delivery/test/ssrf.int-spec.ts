import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import os from 'node:os';
import { SUBJECTS } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { classifyAddress } from '@verity/ssrf';
import { startWebhookReceiver, testTls, waitFor, type WebhookReceiver } from '@verity/testing';
import { harness, sessionEvent, type Harness } from './support.js';

/** The service as deployed: WEBHOOK_ALLOW_PRIVATE_NETWORKS unset (false). */
let h: Harness;
let rx: WebhookReceiver;
let org: string;
const op = { principal: null, requestId: 'req_int' };

before(async () => {
  h = await harness('whssrf');
  await h.start();
  rx = await startWebhookReceiver({ tls: testTls() });
  org = await h.createOrg();
});

after(async () => {
  await rx?.close();
  await h?.close();
});

async function refusal(url: string, events = ['kyc.session.completed']): Promise<DomainError> {
  try {
    await h.rpc.call(SUBJECTS.webhookSubscriptionCreate, { org_id: org, mode: 'test', url, event_types: events }, op);
  } catch (e) {
    assert.ok(e instanceof DomainError);
    return e;
  }
  assert.fail(`${url} was accepted`);
}

describe('the SSRF guard at registration (private networks not allowed)', () => {
  const matrix = [
    'https://127.0.0.1/hook',
    'https://2130706433/hook', // decimal
    'https://0x7f.1/hook', // hex, short form
    'https://0177.0.0.1/hook', // octal
    'https://0x7f000001/hook',
    'https://127.1/hook',
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook', // IPv4-mapped IPv6
    'https://[::ffff:a9fe:a9fe]/hook', // mapped metadata address
    'https://[2002:7f00:1::]/hook', // 6to4 of 127.0.0.1
    'https://[64:ff9b::7f00:1]/hook', // NAT64 of 127.0.0.1
    'https://[64:ff9b::a00:1]/hook', // NAT64 of 10.0.0.1
    'https://10.0.0.1/hook',
    'https://172.16.5.4/hook',
    'https://192.168.1.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/hook',
    'https://[fd00::1]/hook',
    'https://[fe80::1]/hook',
    'https://0.0.0.0/hook',
    'https://localhost/hook',
    'https://api.localhost/hook',
  ];
  for (const url of matrix) {
    it(`refuses ${url}`, async () => {
      const e = await refusal(url);
      assert.equal(e.code, 'validation_error');
      assert.equal(e.param, 'url');
      assert.equal((e.details as { issues: Array<{ code: string }> }).issues[0]!.code, 'blocked_destination');
    });
  }

  it('refuses a host name that resolves to loopback', async () => {
    const name = os.hostname();
    const resolved = await lookup(name, { all: true });
    assert.ok(resolved.length > 0 && resolved.every((r) => classifyAddress(r.address)?.range === 'loopback'), `${name} should resolve to loopback here`);
    const e = await refusal(`https://${name}:8443/hook`);
    assert.equal((e.details as { issues: Array<{ code: string; message: string }> }).issues[0]!.code, 'blocked_destination');
    assert.match(e.message, /resolves to 127\./);
    // the refusal names the setting a local stack needs for a receiver on this machine
    assert.match(e.message, /WEBHOOK_ALLOW_PRIVATE_NETWORKS=true/);
  });

  it('a metadata address is refused without naming a setting that would not allow it', async () => {
    const e = await refusal('https://169.254.169.254/latest/meta-data');
    assert.match(e.message, /a metadata address: receivers must be on the public internet/);
    assert.doesNotMatch(e.message, /WEBHOOK_ALLOW_PRIVATE_NETWORKS/);
  });

  it('refuses plain HTTP and malformed input, and nothing was stored', async () => {
    const http = await refusal('http://hooks.example.com/hook');
    assert.equal((http.details as { issues: Array<{ code: string }> }).issues[0]!.code, 'https_required');
    assert.equal((await refusal('https://user:pw@hooks.example.com/')).param, 'url');
    const types = await refusal('https://hooks.example.com/', ['kyc.session.completed', 'kyc.session.exploded']);
    assert.deepEqual((types.details as { issues: Array<{ path: unknown[] }> }).issues[0]!.path, ['event_types', 1]);
    assert.equal((await refusal('https://hooks.example.com/', [])).param, 'event_types');
    const [n] = await h.rows<{ n: number }>('SELECT count(*)::int AS n FROM webhook_delivery.subscriptions WHERE org_id = $1', [org]);
    assert.equal(n!.n, 0);
  });

  it('refuses an unknown organization with resource_not_found', async () => {
    for (const org_id of ['org_AAAAAAAAAAAAAAAAAAAAAAAA', 'nonsense']) {
      await assert.rejects(
        h.rpc.call(SUBJECTS.webhookSubscriptionCreate, { org_id, mode: 'test', url: 'https://hooks.example.com/', event_types: ['kyc.session.completed'] }, op),
        (e: DomainError) => e.code === 'resource_not_found' && e.param === 'org_id',
      );
    }
  });

  it('accepts a public receiver, both reserved types included, and shows the secret once', async () => {
    const created = await h.rpc.call(
      SUBJECTS.webhookSubscriptionCreate,
      { org_id: org, mode: 'live', url: 'https://hooks.example.com/verity', event_types: ['kyc.session.skipped_by_applicant', 'kyc.session.expired', 'kyc.session.completed'] },
      op,
    );
    assert.match(created.id, /^whs_[A-Za-z0-9]{24}$/);
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(created.event_types, ['kyc.session.completed', 'kyc.session.expired', 'kyc.session.skipped_by_applicant']);
    assert.equal(created.status, 'active');
    const listed = await h.rpc.call(SUBJECTS.webhookSubscriptionList, { org_id: org }, op);
    assert.deepEqual(listed.data.map((s) => s.id), [created.id]);
    assert.ok(!JSON.stringify(listed).includes(created.secret.slice(6)), 'never the secret again');
  });
});

describe('the SSRF guard at delivery', () => {
  it('refuses at connection time a receiver whose address became private (blocked_destination, no retry, nothing sent)', async () => {
    // registered while its name did not resolve to anything private...
    const sub = await h.rpc.call(
      SUBJECTS.webhookSubscriptionCreate,
      { org_id: org, mode: 'test', url: 'https://hooks.example.com/rebind', event_types: ['kyc.session.completed'] },
      op,
    );
    // ...and now pointing at loopback (as a DNS answer that changed would)
    for (const url of [`https://localhost:${rx.port}/rebind`]) {
      await h.rows('UPDATE webhook_delivery.subscriptions SET url = $2 WHERE id = $1', [sub.id, url]);
      const event = sessionEvent(org, 'test');
      await h.publish(event);
      const rows = await waitFor(async () => {
        const r = (await h.attempts(org, 'test')).filter((a) => a.event_id === event.id);
        return r.length ? r : undefined;
      }, 10_000);
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(rx.received.length, 0, 'nothing reached the receiver');
      assert.deepEqual(
        rows.map((r) => [r.attempt, r.status, r.error_code, r.http_status, r.next_attempt_at]),
        [[1, 'failed', 'blocked_destination', null, null]],
      );
      const [d] = await h.rows<{ status: string }>('SELECT status FROM webhook_delivery.deliveries WHERE event_id = $1', [event.id]);
      assert.equal(d!.status, 'failed');
    }
  });

  it('checks literal addresses at delivery too', async () => {
    const sub = await h.rpc.call(
      SUBJECTS.webhookSubscriptionCreate,
      { org_id: org, mode: 'test', url: 'https://hooks.example.com/literal', event_types: ['kyc.session.cancelled'] },
      op,
    );
    await h.rows('UPDATE webhook_delivery.subscriptions SET url = $2 WHERE id = $1', [sub.id, `https://[::ffff:127.0.0.1]:${rx.port}/x`]);
    const event = sessionEvent(org, 'test', 'kyc.session.cancelled');
    await h.publish(event);
    const rows = await waitFor(async () => {
      const r = (await h.attempts(org, 'test')).filter((a) => a.event_id === event.id);
      return r.length ? r : undefined;
    }, 10_000);
    assert.equal(rows[0]!.error_code, 'blocked_destination');
    assert.equal(rx.received.length, 0);
  });
});
