/**
 * DNS rebinding against the SSRF guard, with a real name server: a UDP resolver on loopback (answers encoded with
 * `dns-packet`) that the service asks through `WEBHOOK_DNS_SERVERS`. A name that answers a public address at
 * registration and a private one at delivery is refused at delivery, nothing reaching the private address; an
 * answer that changes between the guard's check and the connection cannot move the connection (the name is
 * resolved once per attempt); a name with both kinds of address is refused outright.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';
import { SUBJECTS } from '@verity/contracts';
import { refusal, startWebhookReceiver, testTls, waitFor, type WebhookReceiver } from '@verity/testing';
import { harness, sessionEvent, type Harness } from './support.js';

/** A public address (no connection to it can succeed here: the machine has no route out, which is the point). */
const PUBLIC = '93.184.216.34';
const LOOPBACK = '127.0.0.1';

/**
 * A name server on loopback: each name has a script of A answers, one per query (the last one repeats); AAAA
 * queries get an empty answer. Counts the A queries per name.
 */
class ScriptedNameServer {
  private readonly socket = dgram.createSocket('udp4');
  private readonly scripts = new Map<string, string[][]>();
  readonly queries = new Map<string, number>();

  async start(): Promise<string> {
    this.socket.on('message', (msg, from) => {
      const q = dnsPacket.decode(msg);
      const question = q.questions?.[0];
      if (!question) return;
      const name = question.name.toLowerCase();
      let answers: dnsPacket.Answer[] = [];
      if (question.type === 'A') {
        const n = this.queries.get(name) ?? 0;
        this.queries.set(name, n + 1);
        const script = this.scripts.get(name);
        const addresses = script ? script[Math.min(n, script.length - 1)]! : [];
        answers = addresses.map((data) => ({ type: 'A', class: 'IN', name: question.name, ttl: 0, data }));
      }
      const reply = dnsPacket.encode({
        id: q.id,
        type: 'response',
        flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
        questions: [question],
        answers,
      });
      this.socket.send(reply, from.port, from.address);
    });
    await new Promise<void>((resolve) => this.socket.bind(0, LOOPBACK, resolve));
    return `${LOOPBACK}:${this.socket.address().port}`;
  }

  answer(name: string, ...script: string[][]): void {
    this.scripts.set(name, script);
    this.queries.set(name, 0);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}

let dns: ScriptedNameServer;
let h: Harness;
let rx: WebhookReceiver;
let org: string;
const op = { principal: null, requestId: 'req_int_dns' };

before(async () => {
  dns = new ScriptedNameServer();
  const server = await dns.start();
  // the service as deployed (private networks refused), asking the scripted name server
  // retries far off: each test sees its first attempt alone
  h = await harness('whdns', { WEBHOOK_DNS_SERVERS: server, WEBHOOK_RETRY_SCHEDULE: '60s' });
  await h.start();
  rx = await startWebhookReceiver({ tls: testTls() });
  org = await h.createOrg();
});

after(async () => {
  await rx?.close();
  await h?.close();
  await dns?.close();
});

function subscribe(url: string, eventTypes = ['kyc.session.completed']) {
  return h.rpc.call(SUBJECTS.webhookSubscriptionCreate, { org_id: org, mode: 'test', url, event_types: eventTypes }, op);
}

/** The attempts of `eventId`, once `n` of them are logged. */
async function attemptsOf(eventId: string, n: number) {
  return waitFor(async () => {
    const r = (await h.attempts(org, 'test')).filter((a) => a.event_id === eventId);
    return r.length >= n ? r : undefined;
  }, 15_000);
}

describe('DNS rebinding against the SSRF guard, with a real name server', () => {
  it('a name with a public and a private address is refused at registration, nothing stored', async () => {
    dns.answer('both.rebind.test', [PUBLIC, LOOPBACK]);
    const refused = await refusal(subscribe(`https://both.rebind.test:${rx.port}/hook`));
    assert.deepEqual([refused.code, refused.param], ['validation_error', 'url']);
    assert.equal((refused.details as { issues: Array<{ code: string }> }).issues[0]!.code, 'blocked_destination');
    assert.equal(dns.queries.get('both.rebind.test'), 1, 'the guard asked the name server');
    const [n] = await h.rows<{ n: number }>('SELECT count(*)::int AS n FROM webhook_delivery.subscriptions WHERE url LIKE $1', ['%both.rebind.test%']);
    assert.equal(n!.n, 0);
  });

  it('public at registration, private at delivery: the attempt is blocked_destination, not retried, and nothing reaches the private address', async () => {
    dns.answer('flip.rebind.test', [PUBLIC], [LOOPBACK]);
    await subscribe(`https://flip.rebind.test:${rx.port}/hook`);
    const event = sessionEvent(org, 'test');
    await h.publish(event);
    const rows = await attemptsOf(event.id, 1);
    // failed for good: no retry is scheduled for a blocked destination
    assert.deepEqual(
      rows.map((r) => [r.attempt, r.status, r.error_code, r.next_attempt_at]),
      [[1, 'failed', 'blocked_destination', null]],
    );
    assert.equal(rx.received.length, 0, 'nothing reached the receiver on loopback');
  });

  it('private only after the check: the connection goes to the address that was checked, never to a second answer', async () => {
    // every query after the first answers loopback: a connection that resolved the name again would reach the receiver
    dns.answer('toctou.rebind.test', [PUBLIC], [LOOPBACK]);
    const received = rx.received.length;
    // registered with a literal public address, then pointed at the name (as an operator's edit would be stored),
    // so that the delivery's own lookup is the name server's first answer for it
    const sub = await subscribe(`https://${PUBLIC}:${rx.port}/hook`, ['kyc.session.cancelled']);
    await h.rows('UPDATE webhook_delivery.subscriptions SET url = $2 WHERE id = $1', [sub.id, `https://toctou.rebind.test:${rx.port}/hook`]);
    const event = sessionEvent(org, 'test', 'kyc.session.cancelled');
    await h.publish(event);
    const [first] = await attemptsOf(event.id, 1);
    // the first attempt connected to the public address it checked (unreachable here), not to loopback
    assert.equal(first!.error_code === 'blocked_destination', false, JSON.stringify(first));
    assert.equal(rx.received.length, received, 'nothing reached the receiver on loopback');
    assert.equal(dns.queries.get('toctou.rebind.test'), 1, 'one lookup for the attempt, none at connection time');
  });
});
