/**
 * The console's subjects of webhook-delivery (docs/security.md, "The bus's trust boundary"): the organization and mode
 * are those of the principal the console signed, never fields of the request; only owners and admins manage
 * endpoints; a request without a principal the console signed for a person is refused and changes nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SUBJECTS, type ConsoleRole, type Principal, type ReqOf, type ResOf, type Subject } from '@verity/contracts';
import { newId, type Mode } from '@verity/keys';
import { RpcClient } from '@verity/platform';
import { refusal, testPrincipal, testSigner } from '@verity/testing';
import { harness, type Harness } from './support.js';

let h: Harness;
let consoleRpc: RpcClient;
const op = { principal: null, requestId: 'req_int_console' };
const URL_OF = (label: string) => `https://127.0.0.1:9/${label}`;

before(async () => {
  h = await harness('whconsole', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  await h.start();
  consoleRpc = new RpcClient(h.nc, h.root, 5000, { signer: testSigner('console') });
});

after(() => h?.close());

/** The principal the console signs for a person of `orgId` with `role`, working in `mode`. */
function person(orgId: string, role: ConsoleRole, mode: Mode = 'test'): Principal {
  const user_id = newId('consoleUser');
  return testPrincipal({ org_id: orgId, key_id: user_id, mode, actor: { user_id, role } });
}

function as<S extends Subject>(principal: Principal | null, subject: S, payload: Record<string, unknown>, rpc = consoleRpc): Promise<ResOf<S>> {
  return rpc.call(subject, payload as ReqOf<S>, { principal, requestId: 'req_int_console' });
}

async function subscriptionsOf(orgId: string): Promise<Array<{ id: string; mode: string; status: string }>> {
  return h.rows('SELECT id, mode, status FROM webhook_delivery.subscriptions WHERE org_id = $1 ORDER BY id', [orgId]);
}

describe("the console's webhook subjects take the organization and mode from the signed principal", () => {
  it('an endpoint is registered for the principal\'s organization and mode, and listed for them only, whatever the request names', async () => {
    const [mine, theirs] = [await h.createOrg(), await h.createOrg()];
    const admin = person(mine, 'admin', 'test');
    const created = await as(admin, SUBJECTS.webhooksConsoleSubscriptionCreate, { url: URL_OF('a'), event_types: ['kyc.session.completed'], org_id: theirs, mode: 'live' });
    assert.deepEqual([created.org_id, created.mode], [mine, 'test']);
    assert.deepEqual(await subscriptionsOf(theirs), []);
    const other = await h.subscribe(theirs, 'test', URL_OF('b'));
    const listed = await as(admin, SUBJECTS.webhooksConsoleSubscriptionList, { org_id: theirs, mode: 'live' });
    assert.deepEqual(listed.data.map((s) => s.id), [created.id]);
    assert.ok(!listed.data.some((s) => s.id === other.id));
  });

  it("another organization's endpoint, or the other mode's, cannot be disabled, rotated or replayed: 404, and it stays as it was", async () => {
    const [mine, theirs] = [await h.createOrg(), await h.createOrg()];
    const owner = person(mine, 'owner', 'test');
    const other = await h.subscribe(theirs, 'test', URL_OF('c'));
    const live = await h.subscribe(mine, 'live', URL_OF('d'));
    for (const sub of [other, live]) {
      for (const [subject, payload] of [
        [SUBJECTS.webhooksConsoleSubscriptionDisable, { subscription_id: sub.id }],
        [SUBJECTS.webhooksConsoleSubscriptionRotateSecret, { subscription_id: sub.id }],
        [SUBJECTS.webhooksConsoleReplay, { subscription_id: sub.id, event_id: newId('event') }],
      ] as const) {
        assert.equal((await refusal(as(owner, subject, { ...payload, org_id: sub.org_id }))).code, 'resource_not_found', `${subject} ${sub.mode}`);
      }
    }
    assert.deepEqual((await subscriptionsOf(theirs)).map((s) => s.status), ['active']);
    assert.deepEqual((await subscriptionsOf(mine)).map((s) => s.status), ['active']);
  });

  it('only owners and admins manage endpoints: a developer or a reviewer is refused and nothing is registered', async () => {
    const org = await h.createOrg();
    for (const role of ['developer', 'reviewer'] as const) {
      const e = await refusal(as(person(org, role), SUBJECTS.webhooksConsoleSubscriptionCreate, { url: URL_OF(role), event_types: ['kyc.session.completed'] }));
      assert.equal(e.code, 'insufficient_scope', role);
      assert.equal((await refusal(as(person(org, role), SUBJECTS.webhooksConsolePurgeTestData, {}))).code, 'insufficient_scope', role);
    }
    assert.deepEqual(await subscriptionsOf(org), []);
  });

  it('refused before anything is written: no principal, one the gateway signed, one that names no person', async () => {
    const org = await h.createOrg();
    const owner = person(org, 'owner');
    const payload = { url: URL_OF('e'), event_types: ['kyc.session.completed'], org_id: org, mode: 'test' };
    for (const p of [
      as(null, SUBJECTS.webhooksConsoleSubscriptionCreate, payload),
      as(owner, SUBJECTS.webhooksConsoleSubscriptionCreate, payload, h.rpc),
      as({ ...owner, actor: undefined }, SUBJECTS.webhooksConsoleSubscriptionCreate, payload),
    ]) {
      assert.equal((await refusal(p)).code, 'internal_error');
    }
    assert.deepEqual(await subscriptionsOf(org), []);
    // the operator's subject still takes the organization in the request
    assert.equal((await h.rpc.call(SUBJECTS.webhookSubscriptionCreate, { org_id: org, mode: 'test', url: URL_OF('f'), event_types: ['kyc.session.completed'] }, op)).org_id, org);
  });
});
