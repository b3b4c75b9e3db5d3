/** Helpers of the sessions end-to-end tests: fixtures through the API, stored rows and the region's event stream. */
import assert from 'node:assert/strict';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { eventStreamName, subjectRoot, SUBJECTS, type DomainEvent, type Session } from '@verity/contracts';
import { query, waitFor, type ApiResponse } from '@verity/testing';
import { client, connectAs, E2E, operator, orgWithKey, type Region } from './support.js';

export type Client = ReturnType<typeof client>;
export type One = { data: Session };
export type List = { data: Session[]; next_cursor: string | null };
export type Issue = { code: string; message: string; path: (string | number)[] };

export const RESTING = ['completed', 'manual_review', 'errored'];

/** What a live organization of these tests holds in its wallet: enough for every live create a test makes. */
export const LIVE_WALLET = 1_000_000;

/**
 * An organization with a key of the given mode, and a client for it. Live creates are billed (docs/sessions.md, "Billing") and
 * a new wallet holds 0, so a live organization gets `LIVE_WALLET` from the operator first.
 */
export async function account(region: Region = 'us', mode: 'test' | 'live' = 'test') {
  const { org, key } = await orgWithKey(region, { mode });
  if (mode === 'live') await (await operator(region)).call(SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_balance: LIVE_WALLET }, { principal: null, requestId: 'req_e2e' });
  return { org, key, c: client(region, key) };
}

export async function newApplicant(c: Client, body: Record<string, unknown> = {}): Promise<string> {
  const res = await c<{ data: { id: string } }>('POST', '/v1/applicants', {
    body: { family_name: 'Doe', given_names: ['Jane'], email: 'jane.doe@example.com', date_of_birth: '1990-04-01', ...body },
  });
  if (res.status !== 201) throw new Error(`applicant not created: ${res.status} ${res.text}`);
  return res.body.data.id;
}

export async function newTemplate(c: Client, body: Record<string, unknown> = {}): Promise<string> {
  const res = await c<{ data: { id: string } }>('POST', '/v1/workflow-templates', {
    body: { name: 'Onboarding', checks: ['document', 'face_match', 'liveness'], ...body },
  });
  if (res.status !== 201) throw new Error(`template not created: ${res.status} ${res.text}`);
  return res.body.data.id;
}

/** One applicant and one template of `checks`, ready for sessions. */
export async function setup(c: Client, template: Record<string, unknown> = {}) {
  return { applicantId: await newApplicant(c), templateId: await newTemplate(c, template) };
}

export function createSession(c: Client, body: Record<string, unknown>): Promise<ApiResponse<One>> {
  return c<One>('POST', '/v1/sessions', { body });
}

/** The session once it reached one of `statuses`, polled; fails after `ms` (3 s: "within a few seconds"). */
export async function waitStatus(c: Client, id: string, statuses = RESTING, ms = 3000): Promise<Session> {
  return waitFor(async () => {
    const r = await c<One>('GET', `/v1/sessions/${id}`);
    return statuses.includes(r.body.data?.status) ? r.body.data : undefined;
  }, ms);
}

/** Session rows, outbox rows and unrelayed outbox rows of an organization, as stored. */
export async function stored(region: Region, orgId: string): Promise<{ sessions: number; events: number; unrelayed: number }> {
  const [r] = await query<{ sessions: number; events: number; unrelayed: number }>(
    E2E.db[region],
    `SELECT (SELECT count(*)::int FROM sessions.sessions WHERE org_id = $1) AS sessions,
            (SELECT count(*)::int FROM sessions.outbox o JOIN sessions.sessions s ON s.id = o.session_id WHERE s.org_id = $1) AS events,
            (SELECT count(*)::int FROM sessions.outbox o JOIN sessions.sessions s ON s.id = o.session_id WHERE s.org_id = $1 AND o.relayed_at IS NULL) AS unrelayed`,
    [orgId],
  );
  return r!;
}

export interface StreamMessage {
  seq: number;
  subject: string;
  msgId: string;
  event: DomainEvent;
}

const connections = new Map<string, Promise<NatsConnection>>();
/** The region's NATS as the test-only stream reader (or, for a stack of a test's own, the connection it gives). */
function nats(region: Region): Promise<NatsConnection> {
  let c = connections.get(region);
  if (!c) {
    c = connectAs(region, 'test-reader', 'e2e-events');
    connections.set(region, c);
  }
  return c;
}

export async function closeStreams(): Promise<void> {
  for (const c of connections.values()) await (await c).close();
  connections.clear();
}

/**
 * The exactly-once check of the crash tests: each committed outbox row is on the stream once (by its event id,
 * which is also the message's deduplication id) and nothing else is. Returns the streamed events by session.
 */
export function eventsOnceEach(onStream: StreamMessage[], outbox: { event_id: string }[]): Map<string, DomainEvent[]> {
  const count = new Map<string, number>();
  for (const m of onStream) {
    assert.equal(m.msgId, m.event.id);
    count.set(m.event.id, (count.get(m.event.id) ?? 0) + 1);
  }
  for (const row of outbox) assert.equal(count.get(row.event_id), 1, `${row.event_id} is on the stream ${count.get(row.event_id) ?? 0} times`);
  assert.equal(onStream.length, outbox.length);
  const bySession = new Map<string, DomainEvent[]>();
  for (const m of onStream) bySession.set(m.event.data.sessionId, [...(bySession.get(m.event.data.sessionId) ?? []), m.event]);
  return bySession;
}

/**
 * Every message now on the events stream of a region (root `root`, default the shared e2e stack's) that
 * `keep` accepts, read with an ordered consumer from the first message to the last one present when called.
 */
export async function streamEvents(
  region: Region,
  keep: (e: DomainEvent) => boolean,
  root = subjectRoot(region, E2E.prefix),
  connection?: NatsConnection,
): Promise<StreamMessage[]> {
  const nc = connection ?? (await nats(region));
  const name = eventStreamName(root);
  const jsm = await jetstreamManager(nc);
  let last: number;
  try {
    last = (await jsm.streams.info(name)).state.last_seq;
  } catch {
    return []; // no event was ever relayed in this region
  }
  const out: StreamMessage[] = [];
  if (last === 0) return out;
  // the stream holds `<root>.events.>` only; no subject filter (NATS 2.9 has no multi-filter consumers)
  const consumer = await jetstream(nc).consumers.get(name);
  for (;;) {
    const m = await consumer.next({ expires: 2000 });
    if (!m) throw new Error(`stream ${name} stopped before sequence ${last}`);
    const event = m.json<DomainEvent>();
    if (keep(event)) out.push({ seq: m.seq, subject: m.subject, msgId: m.headers?.get('Nats-Msg-Id') ?? '', event });
    if (m.seq >= last) break;
  }
  await consumer.delete().catch(() => undefined);
  return out;
}

/**
 * The events of these sessions, once every one of their outbox rows is relayed (so the stream holds all of
 * them and nothing more is coming).
 */
export async function eventsOf(region: Region, sessionIds: string[], ms = 3000): Promise<StreamMessage[]> {
  const ids = new Set(sessionIds);
  await waitFor(async () => {
    const [r] = await query<{ n: number }>(E2E.db[region], `SELECT count(*)::int AS n FROM sessions.outbox WHERE session_id = ANY($1) AND relayed_at IS NULL`, [
      sessionIds,
    ]);
    return r!.n === 0;
  }, ms);
  return streamEvents(region, (e) => ids.has(e.data.sessionId));
}
