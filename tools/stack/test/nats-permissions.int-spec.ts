/**
 * The shipped NATS configuration (deploy/overlays/us/nats-server.conf) on a real nats-server: a client without
 * credentials, or with another identity's, cannot call a service's subjects, cannot call the admin subjects and
 * cannot publish to the event stream; the rightful identities can. Only `listen` and the store directory of
 * the shipped file are replaced, to run it on loopback.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { nkeys, type NatsConnection } from '@nats-io/transport-node';
import {
  ADMIN_SUBJECTS,
  EVENTS,
  eventStreamName,
  eventSubject,
  NATS_GRANTS,
  NATS_IDENTITIES,
  natsInboxPrefix,
  natsPasswordVariable,
  natsServerConfig,
  qualify,
  SUBJECTS,
  type NatsIdentity,
  type Subject,
} from '@verity/contracts';
import { connectNats, encodeJson, ensureEventStream, natsCredentialsOf } from '@verity/platform';
import { deployNatsConfig, deployNatsConfigPath, NATS_SERVER_BIN, NatsServer } from '../src/nats.js';
import { freePort, REPO_ROOT } from '../src/stack.js';

const ROOT = 'us';
const SHIPPED = readFileSync(path.join(REPO_ROOT, deployNatsConfigPath('us')), 'utf8');
const DEPLOYED = NATS_IDENTITIES.filter((id) => !NATS_GRANTS[id].testOnly);
const ALL_SUBJECTS = Object.values(SUBJECTS) as Subject[];

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

before(async () => {
  server = new NatsServer({ root: ROOT, port: await freePort(), config: SHIPPED });
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
});

describe('NATS permissions of the shipped configuration', () => {
  it('the shipped file, cluster block and all, is a configuration nats-server accepts as it runs in the StatefulSet', () => {
    const env: Record<string, string> = { PATH: process.env['PATH'] ?? '', POD_NAME: 'nats-0' };
    for (const id of DEPLOYED) env[natsPasswordVariable(id)] = 'p0123456789abcdef0123456789abcdef';
    const file = path.join(REPO_ROOT, deployNatsConfigPath('us'));
    const r = spawnSync(NATS_SERVER_BIN, ['-c', file, '-t'], { env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout + r.stderr, /configuration file .* is valid/);
    assert.match(SHIPPED, /^cluster \{\n {2}name: "verity-us"\n {2}listen: "0\.0\.0\.0:6222"\n {2}routes: \["nats:\/\/nats-0\.nats-headless:6222", "nats:\/\/nats-1\.nats-headless:6222", "nats:\/\/nats-2\.nats-headless:6222"\]\n\}$/m);
  });

  it('the shipped file is what the generator writes from NATS_GRANTS (regenerate with npm run nats-config), without test identities or passwords', () => {
    assert.equal(SHIPPED, deployNatsConfig('us'));
    assert.equal(/test-reader/.test(SHIPPED), false);
    assert.equal(/password: (?!\$NATS_PASSWORD_)/.test(SHIPPED), false, 'every password is read from the environment');
    // the server's Deployment passes every identity's password, and the operator's script makes a Secret for each
    const server = readFileSync(path.join(REPO_ROOT, 'deploy/base/nats.yaml'), 'utf8');
    const script = readFileSync(path.join(REPO_ROOT, 'tools/scripts/nats-secrets.sh'), 'utf8');
    for (const id of DEPLOYED) {
      assert.ok(server.includes(`- name: ${natsPasswordVariable(id)}\n              valueFrom: { secretKeyRef: { name: verity-nats-${id}, key: NATS_PASSWORD } }`), id);
    }
    assert.deepEqual(/identities=\(([a-z -]+)\)/.exec(script)?.[1]?.split(' '), DEPLOYED);
  });

  it('a client without credentials, or with a wrong password, is refused at connection', async () => {
    await assert.rejects(connectNats(server.url, 'anonymous').then((nc) => nc.close()), /authorization violation/i);
    await assert.rejects(connectNats(server.url, 'guess', { identity: 'gateway', password: 'pwrongwrongwrongwrongwrong1' }).then((nc) => nc.close()), /authorization violation/i);
    // another identity's password does not open this one
    await assert.rejects(
      connectNats(server.url, 'swap', { identity: 'operator', password: server.credentials('gateway').password }).then((nc) => nc.close()),
      /authorization violation/i,
    );
  });

  it('each identity gets answers on exactly the subjects it calls: no other service subject, and the admin subjects only as the operator and the console', async () => {
    for (const id of DEPLOYED) {
      const results = await Promise.all(ALL_SUBJECTS.map(async (s) => [s, await answered(as(id), s)] as const));
      const reached = results.filter(([, ok]) => ok).map(([s]) => s).sort();
      assert.deepEqual(reached, [...NATS_GRANTS[id].calls].sort(), `subjects ${id} reached`);
    }
    for (const s of ADMIN_SUBJECTS) {
      const callers = DEPLOYED.filter((id) => (NATS_GRANTS[id].calls as readonly string[]).includes(s));
      const console = (NATS_GRANTS.console.calls as readonly string[]).includes(s) ? ['console'] : [];
      assert.deepEqual(callers, s === SUBJECTS.accountsOrgGet ? ['webhook-delivery', ...console, 'operator'] : [...console, 'operator'], s);
    }
    // the console, for a signed-in person, never makes organizations or changes tiers and billing
    assert.equal(await answered(as('console'), SUBJECTS.accountsOrgCreate), false);
    assert.equal(await answered(as('console'), SUBJECTS.accountsBillingSet), false);
    // e.g. sessions, a rightful caller of screening, cannot mint a key or act as the gateway
    assert.equal(await answered(as('sessions'), SUBJECTS.accountsKeyCreate), false);
    assert.equal(await answered(as('webhook-delivery'), SUBJECTS.sessionsCreate), false);
    assert.equal(await answered(as('operator'), SUBJECTS.accountsKeyCreate), true);
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
  const cert = process.env.WEBHOOK_TEST_TLS_CERT!;
  const key = process.env.WEBHOOK_TEST_TLS_KEY!;

  before(async () => {
    const config = natsServerConfig({
      root: ROOT,
      listen: 'replaced',
      storeDir: 'replaced',
      tls: { certFile: cert, keyFile: key },
      nkeys: { sessions: sessionsKey.getPublicKey() },
    });
    tlsServer = new NatsServer({ root: ROOT, port: await freePort(), config });
    await tlsServer.start();
  });
  after(() => tlsServer?.stop());

  it('a service configured with NATS_TLS_CA and NATS_NKEY_SEED calls what it may; its password no longer opens the identity', async () => {
    const env = (extra: Record<string, string>) => natsCredentialsOf({ NATS_TLS_CA: cert, ...extra }, 'unused');
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
