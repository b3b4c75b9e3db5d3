/**
 * Attempts sent from the sender thread against real HTTPS servers on loopback: signed there, answered each
 * with its own result however they are batched, refused by the guard the thread was given, and, should the
 * thread die, unanswered attempts fail (to be retried) while a new thread takes the next ones.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Worker } from 'node:worker_threads';
import { createLogger } from '@verity/platform';
import { startWebhookReceiver, testTls, type WebhookReceiver } from '@verity/testing';
import { Webhook } from 'standardwebhooks';
import { SenderThread } from '../src/delivery/sender.js';
import { generateSigningSecret, signingKey } from '../src/delivery/signing.js';

const log = createLogger('webhook-delivery', 'us', 'silent');
const secret = generateSigningSecret();
const previous = generateSigningSecret();
const body = JSON.stringify({ type: 'kyc.session.completed', data: { sessionId: 'ses_x' } });

let sender: SenderThread;
let rx: WebhookReceiver;

before(async () => {
  // a timeout far above a loopback answer: sixty TLS handshakes at once on a busy machine must not time out
  sender = new SenderThread({ allowPrivateNetworks: true, dnsServers: '', timeoutMs: 5000 }, log);
  rx = await startWebhookReceiver({ tls: testTls() });
});

after(async () => {
  await sender.close();
  await rx.close();
});

describe('SenderThread', () => {
  it('signs each attempt with every key given and answers each with its own result, however many go at once', async () => {
    rx.respond = (req) => Number(req.path.split('/').pop());
    const statuses = Array.from({ length: 60 }, (_, i) => [200, 204, 503, 410][i % 4]!);
    const results = await Promise.all(
      statuses.map((status, i) => sender.send({ url: `${rx.url}/n${i}/${status}`, eventId: `evt_senderthread${String(i).padStart(12, '0')}`, body, keys: [signingKey(secret), signingKey(previous)] })),
    );
    assert.deepEqual(
      results.map((r) => [r.ok, r.httpStatus, r.errorCode]),
      statuses.map((s) => [s < 300, s, s < 300 ? null : 'http_status']),
    );
    for (const [i] of statuses.entries()) {
      const got = rx.received.find((r) => r.path.startsWith(`/n${i}/`))!;
      assert.equal(got.headers['webhook-id'], `evt_senderthread${String(i).padStart(12, '0')}`);
      const headers = { 'webhook-id': got.headers['webhook-id']!, 'webhook-timestamp': got.headers['webhook-timestamp']!, 'webhook-signature': got.headers['webhook-signature']! };
      // both signatures verify: the current secret's and the previous one's
      assert.doesNotThrow(() => new Webhook(secret.slice('whsec_'.length)).verify(got.body, headers));
      assert.doesNotThrow(() => new Webhook(previous.slice('whsec_'.length)).verify(got.body, headers));
    }
  });

  it('the guard runs in the thread with the setting it was given', async () => {
    const strict = new SenderThread({ allowPrivateNetworks: false, dnsServers: '', timeoutMs: 400 }, log);
    try {
      const before = rx.received.length;
      const r = await strict.send({ url: `${rx.url}/private`, eventId: 'evt_senderthreadguard0000000', body, keys: [signingKey(secret)] });
      assert.deepEqual([r.ok, r.httpStatus, r.errorCode], [false, null, 'blocked_destination']);
      assert.equal(rx.received.length, before, 'nothing reached the receiver');
    } finally {
      await strict.close();
    }
  });

  it('attempts a dead thread never answered fail as connection errors; a new thread sends the next ones', async () => {
    let arrived!: () => void;
    const hanging = new Promise<void>((r) => (arrived = r));
    const server = https.createServer(testTls(), () => arrived()); // never answers
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hang`;
      const pending = sender.send({ url, eventId: 'evt_senderthreadcrash0000000', body, keys: [signingKey(secret)] });
      await hanging;
      // the thread dies with the request in flight (as on a fatal error in it)
      await (sender as unknown as { thread: Worker }).thread.terminate();
      assert.deepEqual(await pending, { ok: false, httpStatus: null, latencyMs: 0, errorCode: 'connection_error' });
      rx.respond = () => 200;
      const next = await sender.send({ url: `${rx.url}/after`, eventId: 'evt_senderthreadafter0000000', body, keys: [signingKey(secret)] });
      assert.deepEqual([next.ok, next.httpStatus], [true, 200]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
