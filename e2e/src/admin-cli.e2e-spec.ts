import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SUBJECTS } from '@verity/contracts';
import { REPO_ROOT } from '@verity/stack';
import { waitFor } from '@verity/testing';
import { adminCli, client, closeOperators, createKey, createOrg, E2E, natsEnvOf, operator, rows } from './support.js';

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

interface ConsoleUser {
  id: string;
  object: string;
  org_id: string;
  email: string;
  role: string;
  created_at: string;
}

type Run = Awaited<ReturnType<typeof adminCli>>;

/** The CLI as `adminCli` runs it, with `input` on its standard input (`printf '%s\n' "$PW" | npm run admin -- …`). */
function adminCliWithStdin(input: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'tools/admin/dist/src/main.js'), ...args], {
      env: { ...process.env, NATS_SUBJECT_PREFIX: E2E.prefix, ...natsEnvOf('us', 'operator') },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const parse = (text: string): unknown => {
        try {
          return JSON.parse(text);
        } catch {
          return text;
        }
      };
      resolve({ code: code ?? 1, out: code === 0 ? parse(stdout) : stdout, err: code === 0 ? null : parse(stderr), stdout, stderr });
    });
    child.stdin.end(input);
  });
}

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

    // org get adds the region's pricing, with its currency (docs/operations.md, "Admin CLI")
    const { pricing, ...got } = printed<Org & { pricing: { currency: string; minor_unit_digits: number; check_prices: Record<string, number> } }>(
      await cli('org', 'get', '--region', 'us', '--org', org.id),
    );
    assert.deepEqual(got, org);
    assert.deepEqual([pricing.currency, pricing.minor_unit_digits], ['USD', 2]);
    assert.ok(pricing.check_prices['document']! > 0);

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

  it('user create prints the console user with a generated password, once; --password-stdin prints none; user list; refusals echo no password', async () => {
    const org = await createOrg('us');
    const address = `ops.${Date.now()}@example.com`;
    const r = await cli('user', 'create', '--region', 'us', '--org', org.id, '--email', address.toUpperCase(), '--role', 'owner');
    const owner = printed<ConsoleUser & { password: string }>(r);
    assert.match(owner.id, /^usr_[A-Za-z0-9]{24}$/);
    assert.deepEqual(
      { object: owner.object, org_id: owner.org_id, email: owner.email, role: owner.role },
      { object: 'console_user', org_id: org.id, email: address, role: 'owner' },
    );
    assert.match(owner.password, /^[A-Za-z0-9]{24}$/);
    assert.equal(r.stdout.split(owner.password).length - 1, 1, 'the password is printed exactly once');
    const [row] = await rows<{ j: string; password_hash: string }>('us', 'SELECT row_to_json(u)::text AS j, password_hash FROM accounts.console_users u WHERE id = $1', [owner.id]);
    assert.ok(row);
    assert.match(row.password_hash, /^\$argon2id\$/);
    assert.ok(!row.j.includes(owner.password), 'the password is not stored');

    // the printed password is the one that signs in
    const { password, ...user } = owner;
    const op = await operator('us');
    const login = (email: string, pw: string) => op.call(SUBJECTS.accountsConsoleLogin, { email, password: pw }, { principal: null, requestId: 'req_e2e' });
    assert.deepEqual(await login(address, password), { user });
    assert.deepEqual(await login(address, `${password}x`), { user: null });

    const chosen = 'a passphrase chosen by the operator';
    const fromStdin = await adminCliWithStdin(`${chosen}\n`, ['user', 'create', '--region', 'us', '--org', org.id, '--email', `dev.${address}`, '--role', 'developer', '--password-stdin']);
    const developer = printed<ConsoleUser & { password?: string }>(fromStdin);
    assert.equal(developer.password, undefined, 'a password read from stdin is not printed');
    assert.ok(!fromStdin.stdout.includes(chosen));
    assert.equal(developer.role, 'developer');
    assert.equal((await login(`dev.${address}`, chosen)).user?.id, developer.id);

    assert.deepEqual(printed<{ data: ConsoleUser[] }>(await cli('user', 'list', '--region', 'us', '--org', org.id)), { data: [user, developer] });

    const taken = refused(await cli('user', 'create', '--region', 'us', '--org', org.id, '--email', address, '--role', 'admin'), 'validation_error', 'address in use');
    assert.match(taken, /already in use/);
    refused(await cli('user', 'create', '--region', 'us', '--org', `org_${'Z'.repeat(24)}`, '--email', `x.${address}`, '--role', 'admin'), 'resource_not_found', 'unknown org');
    refused(await cli('user', 'create', '--region', 'us', '--org', org.id, '--email', `x.${address}`, '--role', 'root'), 'validation_error', 'bad role');
    refused(await cli('user', 'create', '--region', 'us', '--org', org.id, '--role', 'admin'), 'usage', 'no email');
    const short = await adminCliWithStdin('tooShort1\n', ['user', 'create', '--region', 'us', '--org', org.id, '--email', `x.${address}`, '--role', 'admin', '--password-stdin']);
    refused(short, 'validation_error', 'short password');
    assert.ok(!short.stderr.includes('tooShort1'), 'the refused password is not echoed');
    const onCommandLine = await cli('user', 'create', '--region', 'us', '--org', org.id, '--email', `x.${address}`, '--role', 'admin', '--password', 'hunter2hunter2hunter2');
    refused(onCommandLine, 'usage', '--password');
    assert.ok(!onCommandLine.stderr.includes('hunter2'), 'the password is not echoed');
    assert.equal(printed<{ data: ConsoleUser[] }>(await cli('user', 'list', '--region', 'us', '--org', org.id)).data.length, 2, 'the refusals created nobody');
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
