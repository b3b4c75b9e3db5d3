/**
 * Integration-test harness of webhook-delivery: the service in process (createServiceApp) on its own
 * database and subject root, the real accounts service as a child process on the same ones (operators'
 * organizations come from it), JetStream for events, and HTTPS receivers on loopback.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  eventStreamName,
  eventSubject,
  subjectRoot,
  SUBJECTS,
  type DomainEvent,
  type Page,
  type Principal,
  type SessionEventType,
  type WebhookAttempt,
  type WebhookSubscriptionWithSecret,
} from '@verity/contracts';
import type { Mode } from '@verity/keys';
import { connectNats, createLogger, createServiceApp, encodeJson, loadConfig, RpcClient, serviceEnv } from '@verity/platform';
import { cloneTestDatabase, isolationPrefix, query, testPrincipal, waitFor, TEST_NATS_URL, TEST_SERVER_ENV, testSigner } from '@verity/testing';
export { sessionEvent } from '@verity/testing';
import { WebhookDeliveryModule } from '../src/app.module.js';
import { WEBHOOK_DELIVERY_SERVICE, webhookEnv } from '../src/config.js';

type App = Awaited<ReturnType<typeof createServiceApp>>;

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

export interface Harness {
  db: { name: string; url: string };
  prefix: string;
  root: string;
  nc: NatsConnection;
  rpc: RpcClient;
  app: App | null;
  env: Record<string, string>;
  /** (Re)starts the service in process with the harness's environment plus `extra`. */
  start(extra?: Record<string, string>): Promise<App>;
  stop(): Promise<void>;
  close(): Promise<void>;
  createOrg(): Promise<string>;
  subscribe(orgId: string, mode: Mode, url: string, events?: SessionEventType[]): Promise<WebhookSubscriptionWithSecret>;
  publish(event: DomainEvent, msgId?: string): Promise<void>;
  attempts(orgId: string, mode: Mode, query?: Record<string, string>): Promise<WebhookAttempt[]>;
  rows<R extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
}

const op = { principal: null, requestId: 'req_int' };

export function principal(orgId: string, mode: Mode = 'test'): Principal {
  return testPrincipal({ org_id: orgId, mode, scopes: ['webhooks:read'] });
}

async function startAccounts(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'apps/accounts/dist/src/main.js')], {
    env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return child;
}

export async function harness(label: string, env: Record<string, string> = {}): Promise<Harness> {
  const db = await cloneTestDatabase(label);
  const prefix = isolationPrefix(label);
  const root = subjectRoot('us', prefix);
  const base: Record<string, string> = {
    ...TEST_SERVER_ENV,
    REGION: 'us',
    DATABASE_URL: db.url,
    NATS_SUBJECT_PREFIX: prefix,
    LOG_LEVEL: process.env.LOG_LEVEL === 'debug' ? 'debug' : 'silent',
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms',
    WEBHOOK_POLL_MS: '100',
    ...env,
  };
  const accounts = await startAccounts({ REGION: 'us', DATABASE_URL: db.url, NATS_SUBJECT_PREFIX: prefix, PRINCIPAL_VERIFY_KEYS: TEST_SERVER_ENV.PRINCIPAL_VERIFY_KEYS, CONSOLE_TOTP_KEY: TEST_SERVER_ENV.CONSOLE_TOTP_KEY });
  const nc = await connectNats(TEST_NATS_URL, `${label}-int-test`);
  const rpc = new RpcClient(nc, root, 5000, { signer: testSigner() });
  await waitFor(async () => (await rpc.call(SUBJECTS.accountsHealth, {}, op).catch(() => null))?.status === 'ok', 15_000, 100);
  const log = createLogger('webhook-delivery', 'us', base.LOG_LEVEL);

  const h: Harness = {
    db,
    prefix,
    root,
    nc,
    rpc,
    app: null,
    env: base,
    async start(extra = {}) {
      const cfg = loadConfig({ ...serviceEnv, ...webhookEnv }, { ...base, ...extra });
      h.app = await createServiceApp(WEBHOOK_DELIVERY_SERVICE, WebhookDeliveryModule, cfg, log);
      return h.app;
    },
    async stop() {
      await h.app?.close();
      h.app = null;
    },
    async close() {
      await h.stop();
      accounts.kill('SIGTERM');
      if (accounts.exitCode === null) await once(accounts, 'exit');
      const jsm = await jetstreamManager(nc);
      await jsm.streams.delete(eventStreamName(root)).catch(() => undefined);
      await nc.close();
      await db.drop();
    },
    async createOrg() {
      return (await rpc.call(SUBJECTS.accountsOrgCreate, { name: `int ${label}` }, op)).id;
    },
    async subscribe(orgId, mode, url, events = ['kyc.session.completed', 'kyc.session.cancelled', 'kyc.session.manual_review_requested']) {
      return rpc.call(SUBJECTS.webhookSubscriptionCreate, { org_id: orgId, mode, url, event_types: events }, op);
    },
    async publish(event, msgId = event.id) {
      await jetstream(nc).publish(eventSubject(root, event.type), encodeJson(event), { msgID: msgId });
    },
    async attempts(orgId, mode, q = {}) {
      const out: WebhookAttempt[] = [];
      let cursor: string | null = null;
      do {
        const page: Page<WebhookAttempt> = await rpc.call(SUBJECTS.webhookAttemptsList, { limit: '100', ...q, ...(cursor ? { cursor } : {}) }, { ...op, principal: principal(orgId, mode) });
        out.push(...page.data);
        cursor = page.next_cursor;
      } while (cursor);
      return out;
    },
    rows: (sql, params = []) => query(db.url, sql, params),
  };
  return h;
}
