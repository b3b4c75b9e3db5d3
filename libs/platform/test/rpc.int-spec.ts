/** The NATS client and server over a real NATS server: what never reaches NATS, and replies too large for it. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { qualify, subjectRoot, SUBJECTS, type Applicant } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { connectNats, createLogger, RpcClient, RpcServer } from '../src/index.js';

const root = subjectRoot('us', `trpc${randomBytes(3).toString('hex')}_`);
const caller = { principal: null, requestId: 'req_rpc_test' };
let nc: NatsConnection;
let client: RpcClient;
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
  server = new RpcServer(nc, root, 'rpc-int', createLogger('rpc-int', 'us', 'silent'));
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
