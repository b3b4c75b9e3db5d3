import { createHash } from 'node:crypto';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SUBJECTS } from '@verity/contracts';
import { waitFor } from '@verity/testing';
import { adminCli, client, closeOperators, createKey, createOrg, natsEnvOf, operator, rows } from './support.js';

after(closeOperators);

interface Org {
  id: string;
  object: string;
  name: string;
  region: string;
  tier: string;
  custom_limits: Record<string, number> | null;
  billing: { subscription_status: string; past_due_since: string | null; wallet_balance: number | null; wallet_locked: boolean };
  created_at: string;
}
interface Key {
  id: string;
  key: string;
  object: string;
  org_id: string;
  type: string;
  mode: string;
  region: string;
  scopes: string[];
  revoked: boolean;
  created_at: string;
}

type Run = Awaited<ReturnType<typeof adminCli>>;

/** A successful command: exit 0, exactly one JSON object on one line of stdout, nothing on stderr. */
function printed<T>(r: Run): T {
  assert.equal(r.code, 0, `exit code; stderr: ${r.stderr}`);
  assert.equal(r.stderr, '');
  assert.equal(r.stdout.trim().split('\n').length, 1, 'one line');
  assert.ok(typeof r.out === 'object' && r.out !== null && !Array.isArray(r.out), 'one JSON object');
  return r.out as T;
}

/** A refused command: non-zero exit, nothing on stdout, exactly {"error":{"code","message"}} on stderr. */
function refused(r: Run, code: string, label = ''): string {
  assert.notEqual(r.code, 0, `${label}: exit code of a refusal; stdout: ${r.stdout}`);
  assert.equal(r.stdout, '', label);
  const err = r.err as { error?: { code?: unknown; message?: unknown } };
  assert.ok(typeof err === 'object' && err !== null && err.error, `${label}: stderr is the error JSON: ${r.stderr}`);
  assert.deepEqual(Object.keys(err).sort(), ['error']);
  assert.deepEqual(Object.keys(err.error).sort(), ['code', 'message']);
  assert.equal(err.error.code, code, `${label}: ${r.stderr}`);
  assert.equal(typeof err.error.message, 'string');
  return err.error.message as string;
}

const cli = (...args: string[]) => adminCli(args);

describe('admin CLI (docs/operations.md)', () => {
  it('org create, org get, org set-tier: each prints the organization', async () => {
    const [created, elevated] = await Promise.all([
      cli('org', 'create', '--region', 'us', '--name', 'Acme CLI'),
      cli('org', 'create', '--region', 'us', '--name', 'Bigger', '--tier', 'elevated'),
    ]);
    const org = printed<Org>(created);
    assert.match(org.id, /^org_[A-Za-z0-9]+$/);
    assert.deepEqual(
      { object: org.object, name: org.name, region: org.region, tier: org.tier, custom_limits: org.custom_limits },
      { object: 'organization', name: 'Acme CLI', region: 'us', tier: 'standard', custom_limits: null },
    );
    assert.equal(org.billing.subscription_status, 'active');
    assert.equal(org.billing.wallet_locked, false);
    assert.equal(printed<Org>(elevated).tier, 'elevated');

    assert.deepEqual(printed<Org>(await cli('org', 'get', '--region', 'us', '--org', org.id)), org);

    const custom = printed<Org>(await cli('org', 'set-tier', '--region', 'us', '--org', org.id, '--tier', 'custom', '--limits', '{"reads":5000}'));
    assert.equal(custom.id, org.id);
    assert.equal(custom.tier, 'custom');
    assert.deepEqual(custom.custom_limits, { reads: 5000 });
    assert.deepEqual(printed<Org>(await cli('org', 'get', '--region', 'us', '--org', org.id)).custom_limits, { reads: 5000 });
    const back = printed<Org>(await cli('org', 'set-tier', '--region', 'us', '--org', org.id, '--tier', 'enterprise'));
    assert.deepEqual([back.tier, back.custom_limits], ['enterprise', null]);
  });

  it('key create prints id and the key once; only its hash is stored; the key works', async () => {
    const org = await createOrg('us');
    const r = await cli('key', 'create', '--region', 'us', '--org', org.id, '--mode', 'test', '--type', 'sk', '--scopes', 'applicants:read,sessions:read');
    const k = printed<Key>(r);
    assert.match(k.id, /^key_[A-Za-z0-9]+$/);
    assert.match(k.key, /^idv_sk_us_test_[A-Za-z0-9]{43}$/);
    assert.equal(r.stdout.split(k.key).length - 1, 1, 'the key is printed exactly once');
    assert.deepEqual(
      { object: k.object, org_id: k.org_id, type: k.type, mode: k.mode, region: k.region, scopes: k.scopes, revoked: k.revoked },
      { object: 'api_key', org_id: org.id, type: 'sk', mode: 'test', region: 'us', scopes: ['applicants:read', 'sessions:read'], revoked: false },
    );

    const [row] = await rows<{ j: string; key_hash: string }>('us', 'SELECT row_to_json(k)::text AS j, key_hash FROM accounts.api_keys k WHERE id = $1', [k.id]);
    assert.ok(row);
    assert.equal(row.key_hash, createHash('sha256').update(k.key).digest('hex'));
    assert.ok(!row.j.includes(k.key.slice(-43)), 'the secret is not stored');

    const me = await client('us', k.key)<{ data: { id: string; scopes: string[] } }>('GET', '/v1/me');
    assert.equal(me.status, 200);
    assert.deepEqual([me.body.data.id, me.body.data.scopes], [k.id, ['applicants:read', 'sessions:read']]);

    const pk = printed<Key>(await cli('key', 'create', '--region', 'us', '--org', org.id, '--mode', 'live', '--type', 'pk', '--scopes', 'applicants:read'));
    assert.match(pk.key, /^idv_pk_us_live_[A-Za-z0-9]{43}$/);
    assert.deepEqual([pk.type, pk.mode], ['pk', 'live']);
  });

  it('key rotate keeps the id and prints the new key once; key revoke prints the revoked key; the old secrets stop working', async () => {
    const org = await createOrg('us');
    const k = await createKey('us', org.id, { scopes: ['applicants:read'] });
    const r = await cli('key', 'rotate', '--region', 'us', '--key', k.id);
    const rotated = printed<Key>(r);
    assert.equal(rotated.id, k.id);
    assert.match(rotated.key, /^idv_sk_us_test_[A-Za-z0-9]{43}$/);
    assert.notEqual(rotated.key, k.key);
    assert.equal(r.stdout.split(rotated.key).length - 1, 1);
    assert.deepEqual(rotated.scopes, ['applicants:read']);
    assert.equal((await client('us', rotated.key)('GET', '/v1/me')).status, 200);
    await waitFor(async () => (await client('us', k.key)('GET', '/v1/me')).status === 401, 5000);

    const revoked = printed<{ id: string; revoked: boolean; key?: string }>(await cli('key', 'revoke', '--region', 'us', '--key', k.id));
    assert.equal(revoked.id, k.id);
    assert.equal(revoked.revoked, true);
    assert.equal(revoked.key, undefined, 'revoke never prints a secret');
    await waitFor(async () => (await client('us', rotated.key)('GET', '/v1/me')).status === 401, 5000);
    // a revoked key cannot be rotated back to life
    refused(await cli('key', 'rotate', '--region', 'us', '--key', k.id), 'resource_not_found');
  });

  it('billing set prints the organization with its billing state', async () => {
    const org = await createOrg('us');
    const a = printed<Org>(await cli('billing', 'set', '--region', 'us', '--org', org.id, '--subscription', 'past_due', '--wallet-balance', '1234', '--wallet-locked', 'true'));
    assert.equal(a.id, org.id);
    assert.equal(a.billing.subscription_status, 'past_due');
    assert.equal(typeof a.billing.past_due_since, 'string');
    assert.equal(a.billing.wallet_balance, 1234);
    assert.equal(a.billing.wallet_locked, true);
    const b = printed<Org>(await cli('billing', 'set', '--region', 'us', '--org', org.id, '--subscription', 'active', '--wallet-balance', 'none', '--wallet-locked', 'false'));
    assert.deepEqual(b.billing, { subscription_status: 'active', past_due_since: null, wallet_balance: null, wallet_locked: false });
    assert.deepEqual(printed<Org>(await cli('org', 'get', '--region', 'us', '--org', org.id)).billing, b.billing);
  });

  it('refusals exit non-zero with {"error":{"code","message"}} on stderr and nothing on stdout', async () => {
    const org = await createOrg('us');
    const unknownOrg = `org_${'Z'.repeat(24)}`;
    const cases: Array<[string[], string]> = [
      // unknown organization or key
      [['org', 'get', '--region', 'us', '--org', unknownOrg], 'resource_not_found'],
      [['key', 'create', '--region', 'us', '--org', unknownOrg, '--mode', 'test', '--type', 'sk', '--scopes', 'applicants:read'], 'resource_not_found'],
      // bad values
      [['key', 'create', '--region', 'us', '--org', org.id, '--mode', 'test', '--type', 'sk', '--scopes', 'applicants:read,everything'], 'validation_error'],
      [['org', 'set-tier', '--region', 'us', '--org', org.id, '--tier', 'gold'], 'validation_error'],
      [['org', 'set-tier', '--region', 'us', '--org', org.id, '--tier', 'custom', '--limits', '{"uploads":5}'], 'validation_error'],
      // usage: missing flags, malformed flags, unknown commands
      [['org', 'create', '--region', 'us'], 'usage'],
      [['org', 'create', '--name', 'No region'], 'usage'],
      [['org', 'set-tier', '--region', 'us', '--org', org.id, '--tier', 'custom', '--limits', 'not json'], 'usage'],
      [['org', 'delete', '--region', 'us', '--org', org.id], 'usage'],
    ];
    const results = await Promise.all(cases.map(([args]) => adminCli(args)));
    results.forEach((r, i) => refused(r, cases[i]![1], cases[i]![0].join(' ')));
    // a refused command changed nothing
    const unchanged = await (await operator('us')).call(SUBJECTS.accountsOrgGet, { org_id: org.id }, { principal: null, requestId: 'req_e2e' });
    assert.deepEqual([unchanged.tier, unchanged.custom_limits, unchanged.billing.subscription_status], ['standard', null, 'active']);
  });

  it('only the operator identity gets through: a wrong password is authentication_required, another identity cannot create an organization, nothing is created', async () => {
    const name = `not by the operator ${Date.now()}`;
    const wrong = await adminCli(['org', 'create', '--region', 'us', '--name', name], { NATS_PASSWORD: 'pwrongwrongwrongwrongwrong1' });
    refused(wrong, 'authentication_required', 'wrong password');
    assert.equal(wrong.stderr.includes('pwrongwrong'), false, 'the password is not echoed');
    // sessions' own credentials are valid, but sessions may not call the admin subjects: nobody answers
    refused(await adminCli(['org', 'create', '--region', 'us', '--name', name], { ...natsEnvOf('us', 'sessions'), RPC_TIMEOUT_MS: '1000' }), 'service_unavailable', 'as sessions');
    assert.deepEqual(await rows('us', 'SELECT id FROM accounts.organizations WHERE name = $1', [name]), []);
  });

  it('--region eu works against eu: the organization lives there only and its keys are idv_sk_eu_… keys', async () => {
    const org = printed<Org>(await cli('org', 'create', '--region', 'eu', '--name', 'Europa'));
    assert.equal(org.region, 'eu');
    const k = printed<Key>(await cli('key', 'create', '--region', 'eu', '--org', org.id, '--mode', 'test', '--type', 'sk', '--scopes', 'applicants:read'));
    assert.match(k.key, /^idv_sk_eu_test_[A-Za-z0-9]{43}$/);
    assert.equal(k.region, 'eu');
    const me = await client('eu', k.key)<{ data: { region: string; org_id: string } }>('GET', '/v1/me');
    assert.equal(me.status, 200);
    assert.deepEqual([me.body.data.region, me.body.data.org_id], ['eu', org.id]);
    assert.equal((await client('us', k.key)('GET', '/v1/me')).status, 403, 'region_mismatch on us');

    assert.deepEqual(printed<Org>(await cli('org', 'get', '--region', 'eu', '--org', org.id)).id, org.id);
    refused(await cli('org', 'get', '--region', 'us', '--org', org.id), 'resource_not_found');
    assert.deepEqual(await rows('us', 'SELECT id FROM accounts.organizations WHERE id = $1', [org.id]), []);
  });
});
