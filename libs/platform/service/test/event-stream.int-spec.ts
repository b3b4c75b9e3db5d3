/** The region's event stream as created on the machine's NATS (one server, JetStream): its replicas come from EVENTS_STREAM_REPLICAS. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { eventStreamName, subjectRoot } from '@verity/contracts';
import { connectNats, ensureEventStream, eventStreamEnv, loadConfig } from '../src/index.js';

let nc: NatsConnection;
const roots: string[] = [];
const newRoot = () => {
  const root = subjectRoot('us', `tstream${randomBytes(3).toString('hex')}_`);
  roots.push(root);
  return root;
};

before(async () => {
  nc = await connectNats(process.env.NATS_URL ?? 'nats://127.0.0.1:4222', 'event-stream-int');
});

after(async () => {
  const jsm = await jetstreamManager(nc);
  for (const r of roots) await jsm.streams.delete(eventStreamName(r)).catch(() => undefined);
  await nc.close();
});

describe('EVENTS_STREAM_REPLICAS', () => {
  it('defaults to 1 and accepts 1, 3 and 5 only', () => {
    assert.equal(loadConfig(eventStreamEnv, {}).EVENTS_STREAM_REPLICAS, 1);
    assert.equal(loadConfig(eventStreamEnv, { EVENTS_STREAM_REPLICAS: '3' }).EVENTS_STREAM_REPLICAS, 3);
    assert.equal(loadConfig(eventStreamEnv, { EVENTS_STREAM_REPLICAS: '5' }).EVENTS_STREAM_REPLICAS, 5);
    for (const bad of ['2', '0', '4', 'three']) {
      assert.throws(() => loadConfig(eventStreamEnv, { EVENTS_STREAM_REPLICAS: bad }), /EVENTS_STREAM_REPLICAS/, bad);
    }
  });

  it('the stream is created with the configured replicas: 1 on one server', async () => {
    const root = newRoot();
    await ensureEventStream(nc, root, { duplicateWindowMs: 120_000, maxAgeMs: 600_000, replicas: 1 });
    const info = await (await jetstreamManager(nc)).streams.info(eventStreamName(root));
    assert.equal(info.config.num_replicas, 1);
  });

  it('3 replicas reach the server: one server that is not clustered refuses them, and no stream is left', async () => {
    const root = newRoot();
    await assert.rejects(ensureEventStream(nc, root, { duplicateWindowMs: 120_000, maxAgeMs: 600_000, replicas: 3 }), /replicas/i);
    await assert.rejects((await jetstreamManager(nc)).streams.info(eventStreamName(root)), /not found/i);
  });
});
