/**
 * The shipped NATS configuration (deploy/overlays/us/nats-server.conf) on a real nats-server: a client without
 * credentials, or with another identity's, cannot call a service's subjects, cannot call the admin subjects and
 * cannot publish to the event stream; the rightful identities can. Clients speak TLS only, with a certificate made
 * by tools/scripts/region-secrets.sh (openssl); the system account's user sees the servers, the operator edits the
 * event stream; routes need TLS and the route login. Only `listen`, the store directory and the certificate's
 * files of the shipped file are replaced, to run it on loopback.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, nkeys, type NatsConnection } from '@nats-io/transport-node';
import { parseAllDocuments } from 'yaml';
import {
  ADMIN_SUBJECTS,
  EVENTS,
  eventStreamName,
  eventSubject,
  NATS_GRANTS,
  NATS_IDENTITIES,
  natsInboxPrefix,
  natsPasswordVariable,
  natsRoutesValue,
  natsServerConfig,
  qualify,
  SUBJECTS,
  type NatsIdentity,
  type Subject,
} from '@verity/contracts';
import { connectNats, encodeJson, ensureEventStream, natsCredentialsOf } from '@verity/platform';
import { DEPLOY_NATS_ROUTES, deployNatsConfig, deployNatsConfigPath, NATS_SERVER_BIN, NatsServer } from '../src/nats.js';
import { freePort, REPO_ROOT } from '../src/stack.js';

const ROOT = 'us';
const SHIPPED = readFileSync(path.join(REPO_ROOT, deployNatsConfigPath('us')), 'utf8');
const DEPLOYED = NATS_IDENTITIES.filter((id) => !NATS_GRANTS[id].testOnly);
const ALL_SUBJECTS = Object.values(SUBJECTS) as Subject[];

/**
 * The region's NATS certificate as the operator makes it without cert-manager (`region-secrets.sh us nats-tls`: a
 * new CA and a certificate for the Service, the route names, localhost and 127.0.0.1), written to files.
 */
function regionCertificate(dir: string): { certFile: string; keyFile: string; caFile: string } {
  const out = execFileSync('bash', [path.join(REPO_ROOT, 'tools/scripts/region-secrets.sh'), ROOT, 'nats-tls'], { encoding: 'utf8' });
  const secret = parseAllDocuments(out)
    .map((d) => d.toJS() as { metadata: { name: string }; stringData: Record<string, string> })
    .find((o) => o.metadata.name === 'verity-nats-tls')!;
  const file = (key: string) => {
    const f = path.join(dir, key);
    writeFileSync(f, secret.stringData[key]!, { mode: 0o600 });
    return f;
  };
  return { certFile: file('tls.crt'), keyFile: file('tls.key'), caFile: file('ca.crt') };
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'verity-nats-tls-'));
const TLS = regionCertificate(tmp);

let server: NatsServer;
const conns = new Map<NatsIdentity, NatsConnection>();
const as = (id: NatsIdentity) => conns.get(id)!;

/** Whether `nc` gets an answer to a request on `subject` (the responders below answer every request). */
async function answered(nc: NatsConnection, subject: string): Promise<boolean> {
  try {
    const m = await nc.request(qualify(ROOT, subject), encodeJson({}), { timeout: 1500 });
    return m.string() === 'served';
  } catch {
    return false; // refused by the server, or nobody may answer
  }
}

/**
 * What a client that does not speak TLS gets from `port`: the server's INFO if it sends one first (a client port
 * does, a route port expects the handshake at once), what comes after `connect` is sent, and whether the server closed.
 */
async function plainText(port: number, connect: string): Promise<{ info: Record<string, unknown> | null; after: string; closed: boolean }> {
  const socket = net.connect(port, '127.0.0.1');
  socket.setEncoding('latin1');
  socket.on('error', () => undefined);
  let text = '';
  socket.on('data', (d: string) => (text += d));
  const closed = once(socket, 'close').then(() => true);
  await once(socket, 'connect');
  const deadline = Date.now() + 500;
  while (!text.includes('\r\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  const line = text.includes('\r\n') ? text.slice(0, text.indexOf('\r\n')) : null;
  text = '';
  socket.write(`${connect}\r\nPING\r\n`);
  const ended = await Promise.race([closed, new Promise<boolean>((r) => setTimeout(() => r(false), 3000))]);
  socket.destroy();
  return { info: line === null ? null : (JSON.parse(line.replace(/^INFO /, '')) as Record<string, unknown>), after: text, closed: ended };
}

before(async () => {
  server = new NatsServer({ root: ROOT, port: await freePort(), config: SHIPPED, tls: TLS });
  await server.start();
  for (const id of DEPLOYED) conns.set(id, await connectNats(server.url, `${id}-permissions-test`, server.credentials(id)));
  // every identity serves what the table says it serves, as its service would
  for (const id of DEPLOYED) {
    for (const s of NATS_GRANTS[id].serves) {
      as(id).subscribe(qualify(ROOT, s), {
        queue: id,
        // an error here (a subscription the server refuses) leaves the subject unanswered: the tests below say which
        callback: (e, m) => {
          if (!e) m.respond('served');
        },
      });
    }
    await as(id).flush();
  }
});

after(async () => {
  for (const nc of conns.values()) await nc.close();
  await server?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe('NATS permissions of the shipped configuration', () => {
  it('the shipped file, cluster block and all, is a configuration nats-server accepts as it runs in the StatefulSet', () => {
    // the environment of deploy/base/nats.yaml: the pod's name, its route address, every password and the routes
    const pw = 'p0123456789abcdef0123456789abcdef';
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '',
      POD_NAME: 'nats-0',
      NATS_CLUSTER_ADVERTISE: 'nats-0.nats-headless:6222',
      NATS_ROUTES: natsRoutesValue(DEPLOY_NATS_ROUTES, pw),
      [natsPasswordVariable('route')]: pw,
      [natsPasswordVariable('system')]: pw,
    };
    for (const id of DEPLOYED) env[natsPasswordVariable(id)] = pw;
    // the certificate's files are read by the check: this run's in place of the Secret's mount
    const file = path.join(tmp, 'shipped.conf');
    writeFileSync(file, SHIPPED.replaceAll('/etc/nats-tls/', `${tmp}/`));
    const r = spawnSync(NATS_SERVER_BIN, ['-c', file, '-t'], { env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout + r.stderr, /configuration file .* is valid/);
    assert.match(SHIPPED, /^cluster \{\n {2}name: "verity-us"\n {2}listen: "0\.0\.0\.0:6222"\n/m);
    // clients: TLS with the Secret's certificate; routes: TLS verified both ways against its CA, and the route login
    assert.match(SHIPPED, /^tls \{\n {2}cert_file: "\/etc\/nats-tls\/tls\.crt"\n {2}key_file: "\/etc\/nats-tls\/tls\.key"\n\}$/m);
    assert.match(SHIPPED, /^ {2}tls \{\n {4}cert_file: "\/etc\/nats-tls\/tls\.crt"\n {4}key_file: "\/etc\/nats-tls\/tls\.key"\n {4}ca_file: "\/etc\/nats-tls\/ca\.crt"\n {4}verify: true\n {2}\}$/m);
    assert.match(SHIPPED, /^ {2}authorization \{ user: "route", password: \$NATS_PASSWORD_ROUTE \}\n {2}routes: \$NATS_ROUTES\n\}$/m);
    assert.match(SHIPPED, /^system_account: "SYS"\naccounts \{\n {2}SYS \{ users = \[ \{ user: "system", password: \$NATS_PASSWORD_SYSTEM \} \] \}\n\}$/m);
  });

  it('the shipped file is what the generator writes from NATS_GRANTS (regenerate with npm run nats-config), without test identities or passwords', () => {
    assert.equal(SHIPPED, deployNatsConfig('us'));
    assert.equal(/test-reader/.test(SHIPPED), false);
    assert.equal(/password: (?!\$NATS_PASSWORD_)/.test(SHIPPED), false, 'every password is read from the environment');
    // the server's Deployment passes every identity's password, and the operator's script makes a Secret for each
    const server = readFileSync(path.join(REPO_ROOT, 'deploy/base/nats.yaml'), 'utf8');
    const script = readFileSync(path.join(REPO_ROOT, 'tools/scripts/nats-secrets.sh'), 'utf8');
    for (const id of [...DEPLOYED, 'route', 'system']) {
      assert.ok(server.includes(`- name: ${natsPasswordVariable(id)}\n              valueFrom: { secretKeyRef: { name: verity-nats-${id}, key: NATS_PASSWORD } }`), id);
    }
    assert.deepEqual(/identities=\(([a-z -]+)\)/.exec(script)?.[1]?.split(' '), DEPLOYED);
    assert.deepEqual(/servers=\(([a-z -]+)\)/.exec(script)?.[1]?.split(' '), ['route', 'system']);
    assert.ok(server.includes(`- name: NATS_ROUTES\n              value: '${natsRoutesValue(DEPLOY_NATS_ROUTES, '$(NATS_PASSWORD_ROUTE)')}'`));
  });

  it('a client without credentials, or with a wrong password, is refused at connection', async () => {
    // over TLS with the region's CA, so that the login is what is refused
    const tlsCa = TLS.caFile;
    await assert.rejects(connectNats(server.url, 'anonymous', { tlsCa }).then((nc) => nc.close()), /authorization violation/i);
    await assert.rejects(connectNats(server.url, 'guess', { identity: 'gateway', password: 'pwrongwrongwrongwrongwrong1', tlsCa }).then((nc) => nc.close()), /authorization violation/i);
    // another identity's password does not open this one
    await assert.rejects(
      connectNats(server.url, 'swap', { identity: 'operator', password: server.credentials('gateway').password, tlsCa }).then((nc) => nc.close()),
      /authorization violation/i,
    );
  });

  it('clients speak TLS only: every identity above is connected over TLS with the region’s CA; plain text, or a client that does not trust the CA, is refused', async () => {
    for (const id of DEPLOYED) assert.equal(as(id).info?.tls_required, true, id);
    const plain = await plainText(server.opts.port, `CONNECT ${JSON.stringify({ user: 'gateway', pass: server.credentials('gateway').password, tls_required: false, verbose: false })}`);
    assert.equal(plain.info?.['tls_required'], true);
    assert.equal(plain.closed, true, 'the server closes a connection that does not start TLS');
    assert.doesNotMatch(plain.after, /PONG|\+OK/);
    // the system's trusted certificates (and the tests' NODE_EXTRA_CA_CERTS) do not include the region's own CA
    await assert.rejects(
      connectNats(server.url, 'untrusting', { identity: 'gateway', password: server.credentials('gateway').password }).then((nc) => nc.close()),
      /certificate|self.signed|issuer/i,
    );
  });

  it('the system account’s user, the operator’s, sees the servers and JetStream (`nats server …`); no identity can, and it calls no service', async () => {
    const sys = await connect({ servers: server.url, name: 'system-test', ...server.systemLogin() });
    try {
      const ping = (await sys.request('$SYS.REQ.SERVER.PING', '', { timeout: 2000 })).json<{ server: { id: string } }>();
      assert.match(ping.server.id, /^N[A-Z0-9]{55}$/);
      const jsz = (await sys.request('$SYS.REQ.SERVER.PING.JSZ', '', { timeout: 2000 })).json<{ server: { jetstream: boolean }; data: { streams: number } }>();
      assert.equal(jsz.server.jetstream, true);
      assert.equal(typeof jsz.data.streams, 'number');
      // the system account is an account of its own: the services' subjects have nobody there
      await assert.rejects(sys.request(qualify(ROOT, SUBJECTS.accountsKeyCreate), encodeJson({}), { timeout: 1000 }));
    } finally {
      await sys.close();
    }
    for (const id of ['operator', 'gateway'] as const) await assert.rejects(as(id).request('$SYS.REQ.SERVER.PING', '', { timeout: 1000 }), Error, id);
    await assert.rejects(
      connect({ servers: server.url, ...server.systemLogin(), pass: server.credentials('operator').password }).then((nc) => nc.close()),
      /authorization violation/i,
    );
  });

  it('the operator edits the event stream (`nats stream edit`) and snapshots it (`nats stream backup`); no service may', async () => {
    await ensureEventStream(as('sessions'), ROOT, { duplicateWindowMs: 120_000, maxAgeMs: 600_000 });
    const stream = eventStreamName(ROOT);
    const jsm = await jetstreamManager(as('operator'));
    const config = (await jsm.streams.info(stream)).config;
    const edited = await jsm.streams.update(stream, { ...config, description: 'edited by the operator' });
    assert.equal(edited.config.description, 'edited by the operator');
    const refused = await Promise.all(
      (['sessions', 'webhook-delivery', 'gateway'] as const).map(async (id) => {
        const theirs = await jetstreamManager(as(id), { checkAPI: false });
        return theirs.streams.update(stream, { ...config, description: `edited by ${id}` }).then(
          () => `${id} edited`,
          () => null,
        );
      }),
    );
    assert.deepEqual(refused, [null, null, null]);
    assert.equal((await jsm.streams.info(stream)).config.description, 'edited by the operator');
    // a snapshot's chunks come to the operator's own inbox
    const deliver = `${natsInboxPrefix('operator')}.snapshot`;
    const chunks = as('operator').subscribe(deliver, { max: 1 });
    const answer = await as('operator').request(`$JS.API.STREAM.SNAPSHOT.${stream}`, encodeJson({ deliver_subject: deliver, chunk_size: 1024 }), { timeout: 2000 });
    assert.equal(answer.json<{ error?: unknown }>().error, undefined);
    for await (const chunk of chunks) assert.equal(chunk.subject, deliver);
    assert.equal(chunks.getProcessed(), 1);
    assert.equal(await answered(as('gateway'), `$JS.API.STREAM.SNAPSHOT.${stream}`), false);
  });

  it('each identity gets answers on exactly the subjects it calls: no other service subject, and the admin subjects only as the operator', async () => {
    for (const id of DEPLOYED) {
      const results = await Promise.all(ALL_SUBJECTS.map(async (s) => [s, await answered(as(id), s)] as const));
      const reached = results.filter(([, ok]) => ok).map(([s]) => s).sort();
      assert.deepEqual(reached, [...NATS_GRANTS[id].calls].sort(), `subjects ${id} reached`);
    }
    for (const s of ADMIN_SUBJECTS) assert.deepEqual(DEPLOYED.filter((id) => (NATS_GRANTS[id].calls as readonly string[]).includes(s)), ['operator'], s);
    // the console, for a signed-in person, never makes organizations or changes tiers and billing
    assert.equal(await answered(as('console'), SUBJECTS.accountsOrgCreate), false);
    assert.equal(await answered(as('console'), SUBJECTS.accountsBillingSet), false);
    // e.g. sessions, a rightful caller of screening, cannot mint a key or act as the gateway
    assert.equal(await answered(as('sessions'), SUBJECTS.accountsKeyCreate), false);
    assert.equal(await answered(as('webhook-delivery'), SUBJECTS.sessionsCreate), false);
    assert.equal(await answered(as('operator'), SUBJECTS.accountsKeyCreate), true);
  });

  it('the console cannot call an operator subject: the server refuses its requests that would name an organization, and answers its console subjects', async () => {
    const violations: string[] = [];
    const watching = (async () => {
      for await (const st of as('console').status()) {
        if (st.type === 'error' && /permissions violation/i.test(String(st.error))) violations.push(String(st.error));
      }
    })();
    // what its pages called until they carried the principal the console signs (keys, team, webhooks, logs, usage, purge)
    const former = [
      SUBJECTS.accountsOrgGet,
      SUBJECTS.accountsKeyCreate,
      SUBJECTS.accountsKeyList,
      SUBJECTS.accountsConsoleUserGet,
      SUBJECTS.accountsConsoleUserUpdate,
      SUBJECTS.accountsConsoleLogin,
      SUBJECTS.accountsConsoleTotpVerify,
      SUBJECTS.accountsConsoleInvitationAccept,
      SUBJECTS.accountsActivityRecord,
      SUBJECTS.accountsActivityList,
      SUBJECTS.sessionsUsage,
      SUBJECTS.sessionsEmailLog,
      SUBJECTS.webhookSubscriptionCreate,
      SUBJECTS.webhookReplay,
      SUBJECTS.evidenceActivityList,
      SUBJECTS.sessionsPurgeTestData,
      SUBJECTS.applicantsPurgeTestData,
    ];
    for (const s of ADMIN_SUBJECTS) assert.equal(await answered(as('console'), s), false, s);
    await as('console').flush();
    for (const s of former) assert.ok(violations.some((v) => v.includes(qualify(ROOT, s))), `the server refused the console's publish to ${s}: ${violations.join('; ')}`);
    for (const s of [SUBJECTS.accountsConsoleKeyCreate, SUBJECTS.accountsConsoleTeamRole, SUBJECTS.accountsConsoleSignIn, SUBJECTS.webhooksConsoleReplay, SUBJECTS.sessionsConsolePurgeTestData]) {
      assert.equal(await answered(as('console'), s), true, s);
    }
    // webhook-delivery reads an organization's region, no more
    assert.equal(await answered(as('webhook-delivery'), SUBJECTS.accountsOrgGet), false);
    assert.equal(await answered(as('webhook-delivery'), SUBJECTS.accountsOrgRegion), true);
    void watching;
  });

  it("evidence cannot read any organization's sessions: the server refuses its requests to every sessions subject but the yes-or-no of sessions.visible", async () => {
    // what the server tells evidence's connection about each refused publish
    const violations: string[] = [];
    const watching = (async () => {
      for await (const st of as('evidence').status()) {
        if (st.type === 'error' && /permissions violation/i.test(String(st.error))) violations.push(String(st.error));
      }
    })();
    const reads = [SUBJECTS.sessionsGet, SUBJECTS.sessionsList, SUBJECTS.sessionsTimeline, SUBJECTS.sessionsExists, SUBJECTS.sessionsPrivacyExport, SUBJECTS.sessionsEmailLog];
    for (const s of reads) assert.equal(await answered(as('evidence'), s), false, s);
    await as('evidence').flush();
    for (const s of reads) assert.ok(violations.some((v) => v.includes(qualify(ROOT, s))), `the server refused evidence's publish to ${s}: ${violations.join('; ')}`);
    // the one subject it calls, on behalf of the image request it serves (with that request's signed principal)
    assert.equal(await answered(as('evidence'), SUBJECTS.sessionsVisible), true);
    assert.deepEqual(NATS_GRANTS.evidence.calls, [SUBJECTS.sessionsVisible]);
    void watching;
  });

  it('no identity can serve (and so read) another identity’s subjects, or read another identity’s replies', async () => {
    const seen: string[] = [];
    const refused: string[] = [];
    // the gateway tries to take requests of accounts and the replies sent to sessions
    const steal = [qualify(ROOT, SUBJECTS.accountsKeyCreate), `${natsInboxPrefix('sessions')}.>`].map((subject) =>
      as('gateway').subscribe(subject, {
        callback: (e, m) => {
          if (e) refused.push(e.message);
          else seen.push(m.subject);
        },
      }),
    );
    await as('gateway').flush().catch(() => undefined);
    assert.equal(await answered(as('operator'), SUBJECTS.accountsKeyCreate), true);
    assert.equal(await answered(as('sessions'), SUBJECTS.templatesVersion), true);
    await as('gateway').flush().catch(() => undefined);
    assert.deepEqual(seen, []);
    assert.equal(refused.length, 2, 'the server refused both subscriptions');
    assert.match(refused[0]!, /permissions violation/i);
    for (const sub of steal) sub.unsubscribe();
  });

  it('only sessions can publish to the event stream; webhook-delivery can consume it', async () => {
    await ensureEventStream(as('sessions'), ROOT, { duplicateWindowMs: 120_000, maxAgeMs: 600_000 });
    const stream = eventStreamName(ROOT);
    const subject = eventSubject(ROOT, 'kyc.session.completed');
    for (const id of DEPLOYED) {
      const event = encodeJson({ id: `evt_${id}`, type: 'kyc.session.completed', forgedBy: id });
      as(id).publish(subject, event);
      await jetstream(as(id)).publish(subject, event, { msgID: `js_${id}`, timeout: 1000 }).catch(() => undefined);
      await as(id).flush().catch(() => undefined);
    }
    const jsm = await jetstreamManager(as('webhook-delivery'));
    const info = await jsm.streams.info(stream);
    // sessions' two messages (core and JetStream publish), nobody else's
    assert.equal(info.state.messages, 2);
    const consumer = await jsm.consumers.add(stream, { durable_name: 'permissions-test', ack_policy: AckPolicy.Explicit });
    const c = await jetstream(as('webhook-delivery')).consumers.get(stream, consumer.name);
    const forgers = new Set<string>();
    for (let i = 0; i < 2; i++) {
      const m = await c.next({ expires: 2000 });
      assert.ok(m, 'webhook-delivery reads the stream');
      forgers.add(m.json<{ forgedBy: string }>().forgedBy);
      m.ack();
    }
    assert.deepEqual([...forgers], ['sessions']);
    // the gateway can neither read the stream nor create a consumer of it
    await assert.rejects((await jetstreamManager(as('gateway'), { checkAPI: false })).streams.info(stream));
  });

  it('broadcast events reach their subscribers from their publisher only', async () => {
    const got: string[] = [];
    const sub = as('gateway').subscribe(qualify(ROOT, EVENTS.keyInvalidated), {
      callback: (_e, m) => {
        got.push(m.string());
      },
    });
    await as('gateway').flush();
    for (const id of DEPLOYED) as(id).publish(qualify(ROOT, EVENTS.keyInvalidated), id);
    for (const id of DEPLOYED) await as(id).flush().catch(() => undefined);
    await as('gateway').flush();
    assert.deepEqual(got, ['accounts']);
    sub.unsubscribe();
  });
});

describe('NATS logins over TLS and with an NKEY', () => {
  const sessionsKey = nkeys.createUser();
  let tlsServer: NatsServer;

  before(async () => {
    const config = natsServerConfig({
      root: ROOT,
      listen: 'replaced',
      storeDir: 'replaced',
      tls: { certFile: TLS.certFile, keyFile: TLS.keyFile },
      nkeys: { sessions: sessionsKey.getPublicKey() },
    });
    tlsServer = new NatsServer({ root: ROOT, port: await freePort(), config });
    await tlsServer.start();
  });
  after(() => tlsServer?.stop());

  it('a service configured with NATS_TLS_CA and NATS_NKEY_SEED calls what it may; its password no longer opens the identity', async () => {
    const env = (extra: Record<string, string>) => natsCredentialsOf({ NATS_TLS_CA: TLS.caFile, ...extra }, 'unused');
    const screening = await connectNats(tlsServer.url, 'screening-tls', env({ NATS_USER: 'screening', NATS_PASSWORD: tlsServer.credentials('screening').password }));
    screening.subscribe(qualify(ROOT, SUBJECTS.templatesVersion), {
      callback: (_e, m) => {
        m.respond('served');
      },
    });
    await screening.flush();
    const sessions = await connectNats(tlsServer.url, 'sessions-nkey', env({ NATS_USER: 'sessions', NATS_NKEY_SEED: new TextDecoder().decode(sessionsKey.getSeed()) }));
    assert.equal(await answered(sessions, SUBJECTS.templatesVersion), true);
    assert.equal(await answered(sessions, SUBJECTS.templatesCreate), false);
    await assert.rejects(
      connectNats(tlsServer.url, 'sessions-password', env({ NATS_USER: 'sessions', NATS_PASSWORD: tlsServer.credentials('sessions').password })).then((nc) => nc.close()),
      /authorization violation/i,
    );
    await sessions.close();
    await screening.close();
  });
});

describe('NATS routes of the shipped configuration: TLS verified both ways, and the route login', () => {
  const servers: NatsServer[] = [];
  const refusedRoutes: string[] = [];
  let a: NatsServer;
  let aRoutePort: number;

  /** A server of the shipped file, its cluster block kept on loopback, named `name`, with the route password `routePassword`. */
  async function clustered(name: string, clusterPort: number, routePorts: number[], routePassword: string, output?: (line: string) => void): Promise<NatsServer> {
    const s = new NatsServer({
      root: ROOT,
      port: await freePort(),
      config: SHIPPED,
      tls: TLS,
      cluster: { name, port: clusterPort, routes: routePorts.map((p) => `nats://127.0.0.1:${p}`) },
      routePassword,
      output: output ?? null,
    });
    servers.push(s);
    await s.start();
    return s;
  }

  /** The names of the servers that answer the system account's ping on `s` within half a second (`nats server ls`). */
  async function serverNames(s: NatsServer): Promise<string[]> {
    const sys = await connect({ servers: s.url, name: 'system-test', ...s.systemLogin() });
    const names: string[] = [];
    const inbox = `_INBOX.servers.${Date.now()}`;
    const sub = sys.subscribe(inbox, {
      callback: (_e, m) => {
        names.push(m.json<{ server: { name: string } }>().server.name);
      },
    });
    sys.publish('$SYS.REQ.SERVER.PING', '', { reply: inbox });
    await new Promise((r) => setTimeout(r, 500));
    sub.unsubscribe();
    await sys.close();
    return names.sort();
  }

  before(async () => {
    const [ca, cb, cc] = [await freePort(), await freePort(), await freePort()];
    aRoutePort = ca;
    const password = 'proute0123456789abcdef0123456789';
    a = await clustered('nats-a', ca, [ca, cb], password, (line) => {
      if (/authentication error - User "route"/.test(line)) refusedRoutes.push(line);
    });
    await clustered('nats-b', cb, [ca, cb], password);
    // an intruder on the route port: the certificate, but not the route password
    await clustered('nats-c', cc, [ca, cc], 'pwrong0123456789abcdef0123456789');
  });
  after(async () => {
    for (const s of servers) await s.stop();
  });

  it('a server with the route login joins; one without it is refused and never joins', async () => {
    const deadline = Date.now() + 10_000;
    let names = await serverNames(a);
    while ((names.length < 2 || refusedRoutes.length === 0) && Date.now() < deadline) names = await serverNames(a);
    assert.deepEqual(names, ['nats-a', 'nats-b']);
    assert.ok(refusedRoutes.length > 0, 'the intruder’s route was refused for its login');
    assert.deepEqual(await serverNames(a), ['nats-a', 'nats-b']);
  });

  it('the route port speaks TLS only: a route in plain text, with the right login, is closed', async () => {
    const plain = await plainText(aRoutePort, `CONNECT ${JSON.stringify({ user: 'route', pass: a.routePassword, tls_required: false })}`);
    assert.equal(plain.info, null, 'a route port starts with the TLS handshake');
    assert.equal(plain.closed, true, 'and closes a connection that does not make it');
    assert.doesNotMatch(plain.after, /PONG|INFO/);
  });
});
