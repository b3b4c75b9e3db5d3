import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { eventStreamName, eventSubject } from '@verity/contracts';

const NANOS_PER_MS = 1_000_000;

/**
 * Creates the region's domain-event stream (`eventStreamName(root)`, subjects `<root>.events.>`) when it
 * does not exist; an existing stream is left as its operator configured it. Two processes creating it at
 * once both succeed. The duplicate window bounds how long a message id is remembered (a relay that
 * publishes a row twice within it stores it once). `replicas` (EVENTS_STREAM_REPLICAS, default 1) is the
 * stream's replica count on a clustered server; a server that cannot hold that many refuses the create.
 */
export async function ensureEventStream(nc: NatsConnection, root: string, opts: { duplicateWindowMs: number; maxAgeMs: number; replicas?: number }): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const name = eventStreamName(root);
  try {
    await jsm.streams.info(name);
    return;
  } catch {
    // not found (or not reachable: the add below says which)
  }
  try {
    await jsm.streams.add({
      name,
      subjects: [eventSubject(root, '>')],
      duplicate_window: opts.duplicateWindowMs * NANOS_PER_MS,
      max_age: opts.maxAgeMs * NANOS_PER_MS,
      num_replicas: opts.replicas ?? 1,
    });
  } catch (e) {
    await jsm.streams.info(name).catch(() => {
      throw e;
    });
  }
}
