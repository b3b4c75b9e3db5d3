/** A one-region stack of a test file's own (crash, fault and audit tests), with its database, NATS and clients. */
import type { NatsConnection } from '@nats-io/transport-node';
import { subjectRoot } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import { freePort, Stack, type StackOptions } from '@verity/stack';
import { cloneTestDatabase, isolationPrefix } from '@verity/testing';
import { closeStreams } from './sessions-support.js';

export interface OwnStack {
  stack: Stack;
  db: Awaited<ReturnType<typeof cloneTestDatabase>>;
  /** The region's subject root. */
  root: string;
  /** The stack's NATS as the operator, and an RPC client on it. */
  nc: NatsConnection;
  ops: RpcClient;
  /** The stack's NATS as the test-only event-stream reader. */
  reader: NatsConnection;
  /** Stops everything and drops the database (the event stream goes with the stack's NATS server). */
  close(): Promise<void>;
}

/**
 * Starts a us stack on a fresh copy of the test database, isolated by a prefix of `label`. `beforeStart` runs
 * once the stack is built and before it starts (what a test prepares meanwhile can be awaited with it).
 */
export async function startOwnStack(
  label: string,
  opts: Pick<StackOptions, 'env' | 'serviceEnv' | 'output' | 'replicas'>,
  beforeStart: Promise<unknown> = Promise.resolve(),
): Promise<OwnStack> {
  const prefix = isolationPrefix(label);
  const root = subjectRoot('us', prefix);
  const db = await cloneTestDatabase(label);
  // the readers load their engines on their first read (READING_WARM): most of these stacks never read
  const env = { READING_WARM: 'false', ...opts.env };
  const stack = new Stack({ regions: ['us'], migrate: false, ports: { us: await freePort(), eu: 0 }, databaseUrl: () => db.url, isolationPrefix: prefix, ...opts, env });
  await Promise.all([stack.start(), beforeStart]);
  const nc = await stack.connectNats('us', 'operator', `e2e-${label}`);
  const reader = await stack.connectNats('us', 'test-reader', `e2e-${label}-reader`);
  return {
    stack,
    db,
    root,
    nc,
    ops: new RpcClient(nc, root, 5000),
    reader,
    async close() {
      await nc.close();
      await reader.close();
      await stack.stop();
      await closeStreams();
      await db.drop();
    },
  };
}
