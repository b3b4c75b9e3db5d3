import { TEST_SERVER_ENV } from './servers.js';
import assert from 'node:assert/strict';
import type { NatsConnection } from '@nats-io/transport-node';
import { subjectRoot } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { connectNats, createLogger, createServiceApp, loadConfig, RpcClient, serviceEnv, type ServiceConfig, type ServiceDefinition } from '@verity/platform';
import type { z } from 'zod';
import { cloneTestDatabase, isolationPrefix } from './database.js';
import { testSigner } from './principal.js';

export type ServiceApp = Awaited<ReturnType<typeof createServiceApp>>;

/** One service in process for an integration test, isolated by its own database and NATS subject root. */
export interface ServiceUnderTest<C> {
  app: ServiceApp;
  cfg: C;
  db: Awaited<ReturnType<typeof cloneTestDatabase>>;
  nc: NatsConnection;
  /** A client on the service's subject root, as the gateway (signing principals with the test keys) or the admin CLI would call it. */
  rpc: RpcClient;
  root: string;
  /** Stops the service, closes the client connection and drops the database. */
  close: () => Promise<void>;
}

/**
 * Starts `module` of `def` on a fresh clone of the test template database, with a subject root and Redis
 * prefix of its own, and connects a client to it. `env` adds the service's own configuration shape; `vars`
 * sets variables besides the isolation ones.
 */
export async function startServiceUnderTest<E extends z.ZodRawShape = Record<never, never>>(opts: {
  def: ServiceDefinition;
  module: new () => unknown;
  env?: E;
  vars?: Record<string, string>;
  region?: 'us' | 'eu';
}): Promise<ServiceUnderTest<z.infer<z.ZodObject<typeof serviceEnv & E>>>> {
  const region = opts.region ?? 'us';
  const label = opts.def.name;
  const db = await cloneTestDatabase(label);
  const prefix = isolationPrefix(label);
  const root = subjectRoot(region, prefix);
  const shape = { ...serviceEnv, ...(opts.env ?? {}) } as typeof serviceEnv & E;
  let cfg: z.infer<z.ZodObject<typeof serviceEnv & E>>;
  let app: ServiceApp | undefined;
  let nc: NatsConnection | undefined;
  try {
    cfg = loadConfig(shape, {
      ...TEST_SERVER_ENV,
      REGION: region,
      DATABASE_URL: db.url,
      NATS_SUBJECT_PREFIX: prefix,
      REDIS_KEY_PREFIX: `${prefix}${region}:`,
      LOG_LEVEL: 'silent',
      ...opts.vars,
    });
    app = await createServiceApp(opts.def, opts.module, cfg as ServiceConfig, createLogger(label, region, 'silent'));
    nc = await connectNats((cfg as ServiceConfig).NATS_URL, `${label}-int-test`);
  } catch (e) {
    await app?.close();
    await db.drop();
    throw e;
  }
  const client = nc;
  const started = app;
  return {
    app: started,
    cfg,
    db,
    nc: client,
    rpc: new RpcClient(client, root, 5000, { signer: testSigner() }),
    root,
    close: async () => {
      try {
        await client.close();
        await started.close();
      } finally {
        await db.drop();
      }
    },
  };
}

/** The DomainError a call was refused with; fails the test when the call succeeded or threw anything else. */
export async function refusal(p: Promise<unknown>): Promise<DomainError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof DomainError, String(e));
    return e;
  }
  assert.fail('expected a refusal');
}
