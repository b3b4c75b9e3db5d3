/**
 * The NATS client and server over a real NATS server: what never reaches NATS, replies too large for it, and
 * principals only an edge's signature gets past (docs/security.md, "The bus's trust boundary").
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { Writable } from 'node:stream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { qualify, REQUEST_ID_HEADER, subjectRoot, SUBJECTS, type Applicant, type Principal, type PrincipalSeal, type RpcReply, type Session } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { connectNats, createLogger, decodeJson, encodeJson, newPrincipalKeyPair, PrincipalSigner, PrincipalVerifier, RpcClient, RpcServer, sealOf } from '../src/index.js';

const root = subjectRoot('us', `trpc${randomBytes(3).toString('hex')}_`);
const gateway = newPrincipalKeyPair('gateway', 'k1');
const consoleKeys = newPrincipalKeyPair('console', 'k1');
/** The next key of the gateway during a rotation: both verify. */
const gatewayNext = newPrincipalKeyPair('gateway', 'k2');
const signer = new PrincipalSigner('gateway', gateway.signing);
/** What the service logged (JSON lines). */
const logged: string[] = [];
/** The principals the handlers ran with, by subject. */
const ran: { subject: string; principal: Principal | null }[] = [];
const caller = { principal: null, requestId: 'req_rpc_test' };
let nc: NatsConnection;
let client: RpcClient;
/** A service's client (no signer): forwards the principals it received. */
let forwarder: RpcClient;
let server: RpcServer;
/** Every message published on the subjects of these tests. */
const seen: string[] = [];

before(async () => {
  nc = await connectNats(process.env.NATS_URL ?? 'nats://127.0.0.1:4222', 'rpc-int');
  nc.subscribe(`${root}.>`, {
    callback: (_e, m) => {
      seen.push(m.subject);
    },
  });
  client = new RpcClient(nc, root, 2000);
  forwarder = new RpcClient(nc, root, 2000);
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logged.push(...chunk.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  server = new RpcServer(nc, root, 'rpc-int', createLogger('rpc-int', 'us', 'info', sink), {
    principals: new PrincipalVerifier(`${gateway.verify},${consoleKeys.verify},${gatewayNext.verify}`),
  });
  // a read an edge calls (signed principals only), and one that forwards its caller's principal to another
  server.handle(SUBJECTS.sessionsGet, async (_p, ctx) => {
    ran.push({ subject: SUBJECTS.sessionsGet, principal: ctx.principal });
    return { id: 'ses_x' } as unknown as Session;
  });
  server.handle(SUBJECTS.sessionsList, async (_p, ctx) => {
    ran.push({ subject: SUBJECTS.sessionsList, principal: ctx.principal });
    await forwarder.call(SUBJECTS.sessionsGet, { id: 'ses_x' }, { principal: ctx.principal, requestId: ctx.requestId });
    return { object: 'list', data: [], has_more: false, next_cursor: null } as never;
  });
  // a subject a service calls on its own account (the billing sweep): an unsigned principal is taken
  server.handle(SUBJECTS.sessionsExists, async (_p, ctx) => {
    ran.push({ subject: SUBJECTS.sessionsExists, principal: ctx.principal });
    return { exists: true };
  });
  // a reply of 2 MiB: more than one NATS message carries
  server.handle(SUBJECTS.applicantsGet, async () => ({ family_name: 'x'.repeat(2 * 1024 * 1024) }) as unknown as Applicant);
  await nc.flush();
});

after(async () => {
  await server.close();
  await nc.close();
});

async function refusal(p: Promise<unknown>): Promise<DomainError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof DomainError, String(e));
    return e;
  }
  assert.fail('expected a refusal');
}

describe('RpcClient and RpcServer', () => {
  it('a request with text Postgres cannot store is 422 naming the field, and nothing is published', async () => {
    const before = seen.length;
    const e = await refusal(client.call(SUBJECTS.applicantsCreate, { body: { family_name: 'Ann\uD800' } }, caller));
    assert.equal(e.code, 'validation_error');
    assert.equal(e.param, 'family_name');
    const q = await refusal(client.call(SUBJECTS.sessionsList, { applicant_id: '\u0000' }, caller));
    assert.equal(q.param, 'applicant_id');
    await nc.flush();
    assert.equal(seen.length, before);
  });

  it('a request larger than one NATS message is 413 request_too_large at once, and nothing is published', async () => {
    const before = seen.length;
    const started = Date.now();
    const e = await refusal(client.call(SUBJECTS.applicantsCreate, { body: { family_name: 'x'.repeat(nc.info!.max_payload) } }, caller));
    assert.equal(e.code, 'request_too_large');
    assert.ok(Date.now() - started < 1000);
    await nc.flush();
    assert.equal(seen.length, before);
  });

  it('a request nested deeper than JSON can be written is 422, not a 503', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const e = await refusal(client.call(SUBJECTS.applicantsCreate, { body: deep }, caller));
    assert.equal(e.code, 'validation_error');
  });

  it('a reply larger than one NATS message is an internal_error at once, not a 503 after the timeout', async () => {
    const started = Date.now();
    const e = await refusal(client.call(SUBJECTS.applicantsGet, { id: 'app_x' }, caller));
    assert.equal(e.code, 'internal_error');
    assert.ok(Date.now() - started < 1500, `${Date.now() - started} ms`);
    assert.ok(seen.includes(qualify(root, SUBJECTS.applicantsGet)));
  });
});

/** Publishes a request exactly as it travels, whatever it carries: what anyone with the subject's grant could send. */
async function publish(subject: string, req: { principal: Principal | null; seal?: unknown; deadline?: number }, requestId = 'req_bus'): Promise<RpcReply<unknown>> {
  const h = natsHeaders();
  h.set(REQUEST_ID_HEADER, requestId);
  const msg = await nc.request(qualify(root, subject), encodeJson({ deadline: Date.now() + 2000, payload: { id: 'ses_x', session_id: 'ses_x' }, ...req }), { timeout: 2000, headers: h });
  return decodeJson<RpcReply<unknown>>(msg.data);
}

const org = (id: string): Principal =>
  ({
    org_id: id,
    key_id: 'key_bus',
    key_type: 'sk',
    mode: 'live',
    region: 'us',
    scopes: ['sessions:read'],
    tier: 'standard',
    custom_limits: null,
    billing: { subscription_status: 'active', past_due_since: null, wallet_balance: 0, wallet_locked: false },
  }) as Principal;

describe('the bus takes a principal only with the signature of the edge that authenticated the request', () => {
  const victim = org('org_victim');
  const refusedWith = async (code: string, subject: string, req: { principal: Principal; seal?: unknown }, why: string, requestId?: string) => {
    const before = ran.length;
    const logs = logged.length;
    const reply = await publish(subject, req, requestId);
    assert.equal(reply.ok, false, why);
    assert.equal(!reply.ok && reply.error.code, code, why);
    assert.equal(ran.length, before, `${why}: no handler ran`);
    const line = logged.slice(logs).find((l) => l.includes('request with a principal refused'));
    assert.ok(line, `${why}: logged`);
    // the log says why and which key, never the principal or the signature
    assert.equal(line.includes('org_victim') || line.includes('org_mine') || (typeof req.seal === 'object' && line.includes((req.seal as PrincipalSeal).sig)), false, line);
  };

  it('refuses a forged principal before any handler runs: unsigned, a tampered organization, another key, another request, an unknown key id, a signature that is no seal', async () => {
    const now = Date.now();
    const mine = org('org_mine');
    const genuine = signer.seal(mine, 'req_bus', now + 2000);
    await refusedWith('internal_error', SUBJECTS.sessionsGet, { principal: victim }, 'no signature');
    await refusedWith('internal_error', SUBJECTS.sessionsGet, { principal: victim, seal: genuine }, 'the organization changed under a genuine signature');
    await refusedWith('internal_error', SUBJECTS.sessionsGet, { principal: { ...mine, mode: 'test' }, seal: genuine }, 'the mode changed');
    const stranger = new PrincipalSigner('gateway', newPrincipalKeyPair('gateway', 'k1').signing);
    await refusedWith('internal_error', SUBJECTS.sessionsGet, { principal: victim, seal: stranger.seal(victim, 'req_bus', now + 2000) }, 'signed with a key of the right name the service does not hold');
    await refusedWith('internal_error', SUBJECTS.sessionsGet, { principal: mine, seal: genuine }, 'a genuine signature of another request', 'req_other');
    await refusedWith('internal_error', SUBJECTS.sessionsGet, { principal: mine, seal: { ...genuine, kid: 'k9' } }, 'an unknown key id');
    await refusedWith('internal_error', SUBJECTS.sessionsGet, { principal: mine, seal: { ...genuine, edge: 'console' } }, 'the gateway\'s signature presented as the console\'s');
    await refusedWith('internal_error', SUBJECTS.sessionsGet, { principal: mine, seal: { ...genuine, exp: genuine.exp + 60_000 } }, 'the expiry moved later');
    await refusedWith('internal_error', SUBJECTS.sessionsGet, { principal: mine, seal: 'gateway' }, 'a seal that is not one');
    // genuinely signed, but for longer than any request lasts (a signer's clock an hour ahead)
    await refusedWith('internal_error', SUBJECTS.sessionsGet, { principal: mine, seal: signer.seal(mine, 'req_bus', now + 3_600_000, now + 3_600_000) }, 'a signature valid for an hour');
  });

  it('refuses a principal whose signature has expired (a captured one, replayed after its request) as the 503 of a request past its deadline', async () => {
    const mine = org('org_mine');
    const captured = signer.seal(mine, 'req_bus', Date.now() + 50);
    await new Promise((r) => setTimeout(r, 100));
    await refusedWith('service_unavailable', SUBJECTS.sessionsGet, { principal: mine, seal: captured }, 'expired');
  });

  it("serves a principal signed by the gateway, by the console, and by the gateway's next key during a rotation", async () => {
    const mine = org('org_mine');
    for (const [edge, keys] of [
      ['gateway', gateway],
      ['console', consoleKeys],
      ['gateway', gatewayNext],
    ] as const) {
      const before = ran.length;
      const reply = await publish(SUBJECTS.sessionsGet, { principal: mine, seal: new PrincipalSigner(edge, keys.signing).seal(mine, 'req_bus', Date.now() + 2000) });
      assert.equal(reply.ok, true, `${edge} ${keys.verify.slice(0, 12)}`);
      assert.deepEqual(ran.slice(before), [{ subject: SUBJECTS.sessionsGet, principal: mine }]);
    }
  });

  it('the edge client signs what it sends; a service forwards the principal it received with its signature, unchanged', async () => {
    const edge = new RpcClient(nc, root, 2000, { signer });
    const mine = org('org_mine');
    const before = ran.length;
    await edge.call(SUBJECTS.sessionsList, {}, { principal: mine, requestId: 'req_fwd' });
    assert.deepEqual(
      ran.slice(before).map((r) => [r.subject, r.principal?.org_id]),
      [
        [SUBJECTS.sessionsList, 'org_mine'],
        [SUBJECTS.sessionsGet, 'org_mine'],
      ],
    );
    // a principal the service built itself carries no signature, and is refused on a subject an edge calls
    const e = await refusal(forwarder.call(SUBJECTS.sessionsGet, { id: 'ses_x' }, { principal: org('org_built'), requestId: 'req_fwd' }));
    assert.equal(e.code, 'internal_error');
    // a received principal carries its seal only as the very object received: a copy is a built one
    assert.equal(sealOf({ ...mine }), undefined);
  });

  it('a forwarded principal whose signature has expired is not sent at all: 503 at once', async () => {
    const mine = org('org_mine');
    let received: Principal | null = null;
    const probe = new RpcServer(nc, root, 'rpc-int-probe', createLogger('rpc-int', 'us', 'silent'), { principals: new PrincipalVerifier(gateway.verify) });
    probe.handle(SUBJECTS.sessionsTimeline, async (_p, ctx) => {
      received = ctx.principal;
      return { data: [] };
    });
    await nc.flush();
    try {
      await new RpcClient(nc, root, 2000, { signer }).call(SUBJECTS.sessionsTimeline, { id: 'ses_x' }, { principal: mine, requestId: 'req_late', timeoutMs: 100 });
      assert.ok(received);
      await new Promise((r) => setTimeout(r, 150));
      const started = Date.now();
      const e = await refusal(forwarder.call(SUBJECTS.sessionsGet, { id: 'ses_x' }, { principal: received, requestId: 'req_late' }));
      assert.equal(e.code, 'service_unavailable');
      assert.ok(Date.now() - started < 100);
    } finally {
      await probe.close();
    }
  });

  it("takes an unsigned principal only on a subject a service calls on its own account (a sweep, a job), and no principal as the handler's business", async () => {
    const before = ran.length;
    const built = org('org_swept');
    assert.equal((await publish(SUBJECTS.sessionsExists, { principal: built })).ok, true);
    assert.equal((await publish(SUBJECTS.sessionsGet, { principal: null })).ok, true);
    assert.deepEqual(ran.slice(before), [
      { subject: SUBJECTS.sessionsExists, principal: built },
      { subject: SUBJECTS.sessionsGet, principal: null },
    ]);
    // a signed principal is verified on those subjects too
    await refusedWith('internal_error', SUBJECTS.sessionsExists, { principal: victim, seal: signer.seal(org('org_mine'), 'req_bus', Date.now() + 2000) }, 'a tampered signed principal on an own-account subject');
  });
});
