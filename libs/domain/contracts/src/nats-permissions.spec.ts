import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_SUBJECTS, NATS_GRANTS, NATS_IDENTITIES, natsPermissions, natsRoutesValue, natsServerConfig, OWN_ACCOUNT_SUBJECTS, type NatsIdentity } from './nats-permissions.js';
import { EVENTS, SUBJECTS } from './subjects.js';

const identities = (pick: (id: NatsIdentity) => readonly string[], subject: string) => NATS_IDENTITIES.filter((id) => pick(id).includes(subject));

describe('NATS grants', () => {
  it('every subject is served by exactly one identity, and every called subject by someone', () => {
    for (const s of Object.values(SUBJECTS)) assert.equal(identities((id) => NATS_GRANTS[id].serves, s).length, 1, s);
    for (const id of NATS_IDENTITIES) for (const s of NATS_GRANTS[id].calls) assert.ok(identities((x) => NATS_GRANTS[x].serves, s).length === 1, `${id} calls ${s}`);
  });

  it('admin subjects are called by the operator alone: the console and the services call none (they take the organization in the request)', () => {
    for (const s of ADMIN_SUBJECTS) assert.deepEqual(identities((id) => NATS_GRANTS[id].calls, s), ['operator'], s);
    for (const id of NATS_IDENTITIES.filter((x) => x !== 'operator')) {
      assert.deepEqual(NATS_GRANTS[id].calls.filter((s) => s.includes('.admin.')), [], id);
    }
  });

  it('a service calls on its own account (unsigned principals) only subjects it may call; the edges and evidence never do', () => {
    for (const id of NATS_IDENTITIES) for (const s of NATS_GRANTS[id].ownAccount ?? []) assert.ok((NATS_GRANTS[id].calls as readonly string[]).includes(s), `${id} ${s}`);
    for (const id of ['gateway', 'console', 'operator', 'evidence', 'id-scan', 'webhook-delivery', 'screening'] as const) assert.deepEqual(NATS_GRANTS[id].ownAccount ?? [], [], id);
    assert.equal(OWN_ACCOUNT_SUBJECTS.has(SUBJECTS.sessionsGet), false);
    assert.equal(OWN_ACCOUNT_SUBJECTS.has(SUBJECTS.sessionsExists), true);
  });

  it("acknowledges the event stream's messages as responses, never through a grant of the ack subjects", () => {
    for (const id of NATS_IDENTITIES) assert.equal(natsPermissions(id, 'us').publish.some((s) => s.startsWith('$JS.ACK')), false, id);
  });

  it('the console never creates organizations, changes tiers or billing, or runs a data subject request', () => {
    const calls = NATS_GRANTS.console.calls as readonly string[];
    for (const s of [SUBJECTS.accountsOrgCreate, SUBJECTS.accountsOrgSetTier, SUBJECTS.accountsBillingSet, SUBJECTS.applicantsDsarCreate, SUBJECTS.sessionsPrivacyErase, SUBJECTS.evidencePrivacyErase]) {
      assert.equal(calls.includes(s), false, s);
    }
  });

  it('every broadcast event has one publisher; only sessions may publish to the event stream', () => {
    for (const e of Object.values(EVENTS)) assert.equal(identities((id) => NATS_GRANTS[id].publishes, e).length, 1, e);
    for (const id of NATS_IDENTITIES) {
      const p = natsPermissions(id, 'us');
      assert.equal(p.publish.includes('us.events.>'), id === 'sessions', id);
      assert.equal(p.publish.some((s) => s.startsWith('us.events.') && s !== 'us.events.>'), false, id);
    }
  });

  it('each identity subscribes only to what it serves, its broadcasts and its own inbox', () => {
    const p = natsPermissions('gateway', 'e2eab_us');
    assert.deepEqual(p.subscribe, ['e2eab_us.accounts.events.key-invalidated.v1', 'e2eab_us.accounts.events.org-changed.v1', '_INBOX_gateway.>']);
    assert.ok(p.publish.includes('e2eab_us.sessions.create.v1'));
    assert.equal(p.publish.some((s) => s.includes('admin') || s.startsWith('$JS') || s.includes('>') || s.includes('*')), false);
  });

  it('the configuration grants the test reader only when asked, holds no password, and denies all to an identity with nothing to send', () => {
    const deploy = natsServerConfig({ root: 'us', listen: '0.0.0.0:4222', storeDir: '/data' });
    assert.equal(deploy.includes('test-reader'), false);
    assert.match(deploy, /user: "gateway", password: \$NATS_PASSWORD_GATEWAY\n/);
    assert.match(deploy, /user: "id-scan", password: \$NATS_PASSWORD_ID_SCAN\n {6}permissions: \{\n {8}publish: \{ deny: \[">"\] \}/);
    assert.ok(natsServerConfig({ root: 'us', listen: '0.0.0.0:4222', storeDir: '/data', includeTestIdentities: true }).includes('user: "test-reader"'));
  });

  it('a cluster block and the server name only when asked for, the name read from the environment when it is a variable', () => {
    assert.equal(/cluster|server_name/.test(natsServerConfig({ root: 'us', listen: '0.0.0.0:4222', storeDir: '/data' })), false);
    const clustered = natsServerConfig({
      root: 'us',
      listen: '0.0.0.0:4222',
      storeDir: '/data',
      cluster: { serverName: '$POD_NAME', name: 'verity-us', listen: '0.0.0.0:6222', routes: ['nats://nats-0.nats-headless:6222', 'nats://nats-1.nats-headless:6222'] },
    });
    assert.match(clustered, /^server_name: \$POD_NAME$/m);
    assert.match(clustered, /^cluster \{\n {2}name: "verity-us"\n {2}listen: "0\.0\.0\.0:6222"\n {2}routes: \["nats:\/\/nats-0\.nats-headless:6222", "nats:\/\/nats-1\.nats-headless:6222"\]\n\}$/m);
    assert.match(natsServerConfig({ root: 'us', listen: 'x:1', storeDir: '/d', cluster: { serverName: 'n1', name: 'c', listen: 'x:2', routes: [] } }), /^server_name: "n1"$/m);
  });
});

describe('NATS transport in the configuration', () => {
  it('only the operator manages the event stream (edit, snapshot, restore); nobody may delete or purge it or read its messages directly', () => {
    for (const id of NATS_IDENTITIES) {
      const p = natsPermissions(id, 'us').publish;
      for (const s of ['$JS.API.STREAM.UPDATE.us_EVENTS', '$JS.API.STREAM.SNAPSHOT.us_EVENTS', '$JS.API.STREAM.RESTORE.us_EVENTS']) assert.equal(p.includes(s), id === 'operator', `${id} ${s}`);
      assert.equal(p.some((s) => /^\$JS\.API\.STREAM\.(DELETE|PURGE|MSG)/.test(s)), false, id);
    }
  });

  it('clients over TLS; routes over TLS verified both ways, logging in with the password of the environment; a system account with one user; anonymous is nobody', () => {
    const conf = natsServerConfig({
      root: 'us',
      listen: '0.0.0.0:4222',
      storeDir: '/data',
      tls: { certFile: '/tls/c', keyFile: '/tls/k' },
      cluster: {
        serverName: '$POD_NAME',
        name: 'verity-us',
        listen: '0.0.0.0:6222',
        routes: ['nats://n0:6222', 'nats://n1:6222'],
        advertise: '$ADVERTISE',
        tls: { certFile: '/tls/c', keyFile: '/tls/k', caFile: '/tls/ca' },
        authorization: true,
      },
      systemAccount: true,
    });
    assert.match(conf, /^tls \{\n {2}cert_file: "\/tls\/c"\n {2}key_file: "\/tls\/k"\n\}$/m);
    assert.match(conf, /^ {2}advertise: \$ADVERTISE\n {2}no_advertise: true$/m);
    assert.match(conf, /^ {2}tls \{\n {4}cert_file: "\/tls\/c"\n {4}key_file: "\/tls\/k"\n {4}ca_file: "\/tls\/ca"\n {4}verify: true\n {2}\}$/m);
    assert.match(conf, /^ {2}authorization \{ user: "route", password: \$NATS_PASSWORD_ROUTE \}\n {2}routes: \$NATS_ROUTES\n\}$/m);
    assert.doesNotMatch(conf, /routes: \[/);
    assert.match(conf, /^system_account: "SYS"\naccounts \{\n {2}SYS \{ users = \[ \{ user: "system", password: \$NATS_PASSWORD_SYSTEM \} \] \}\n\}$/m);
    assert.match(conf, /^no_auth_user: "nobody"$/m);
    assert.match(conf, /\{ user: "nobody", allowed_connection_types: \["MQTT"\], permissions: \{ publish: \{ deny: \[">"\] \}, subscribe: \{ deny: \[">"\] \} \} \}/);
    assert.equal(natsRoutesValue(['nats://n0:6222', 'nats://n1:6222'], '$(PW)'), '["nats://route:$(PW)@n0:6222", "nats://route:$(PW)@n1:6222"]');
    // the local stack's configuration has none of it
    assert.doesNotMatch(natsServerConfig({ root: 'us', listen: '127.0.0.1:4223', storeDir: '/d' }), /tls|system_account|no_auth_user|accounts \{/);
  });
});
