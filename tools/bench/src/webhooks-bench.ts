import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { eventSubject, subjectRoot, SUBJECTS } from '@verity/contracts';
import { encodeJson, RpcClient } from '@verity/platform';
import { freePort, REPO_ROOT, Stack } from '@verity/stack';
import { query, sessionEvent, waitFor } from '@verity/testing';
import pg from 'pg';
import { Agent, request } from 'undici';
import { formatRow } from './load.js';

/** Attempts in flight: the webhook worker's concurrency (WEBHOOK_CONCURRENCY) and the raw loop's. */
const CONCURRENCY = 64;
/**
 * Both sides are measured at their steady pace: the raw loop needs a few thousand requests before undici's
 * paths are optimised (docs/benchmarks.md).
 */
const WARMUP = 5000;
const PER_ROUND = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
/**
 * Rounds of each side, alternating. The machine's pace drifts by a factor of up to two over a run (a shared
 * VM), and each delivery round is compared with the raw round just before it: the ratio reported is the
 * median of those pairs, which a drift between distant rounds does not move.
 */
const ROUNDS = 5;
const TARGET_PERCENT = 25;
const op = { principal: null, requestId: 'req_bench' };

function makeCert(): { dir: string; cert: string; key: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'verity-bench-tls-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=verity bench receiver', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' });
  return { dir, cert, key };
}

async function startReceiver(tls: { cert: string; key: string }): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'tools/bench/dist/src/webhook-receiver-server.js')], {
    env: { ...process.env, TLS_CERT: tls.cert, TLS_KEY: tls.key },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(Number(/ready (\d+)/.exec(d.toString())![1]))));
  return { url: `https://127.0.0.1:${port}`, child };
}


/** CPU seconds used so far by each named process (Linux /proc; empty elsewhere). */
function cpuOf(pids: Record<string, number[]>): Record<string, number> {
  const out: Record<string, number> = {};
  const tick = 1 / 100;
  for (const [name, list] of Object.entries(pids)) {
    for (const pid of list) {
      try {
        const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        out[name] = (out[name] ?? 0) + (Number(f[11]) + Number(f[12])) * tick;
      } catch {
        // not Linux, or the process is gone
      }
    }
  }
  return out;
}

interface Round {
  rate: number;
  cpu: Record<string, number>;
}

/**
 * Deliveries per second from event to acknowledged, logged receipt: `n` events published to the region's
 * stream are fanned out, queued, signed, POSTed to the receiver (which answers 200) and logged; a delivery
 * counts once its attempt row and its `succeeded` state are in Postgres. The round ends when its last
 * attempt was logged (the row's `created_at`, on this machine's clock like the start), not at the poll that
 * noticed it: the raw loop's time ends at its last response, too.
 */
async function deliveries(js: JetStreamClient, root: string, poller: pg.Client, orgId: string, n: number): Promise<number> {
  // polled every 100 ms while the system is measured, on one open connection: the sequence counts deliveries
  // made, and EXISTS stops at the first pending row of the partial index (a count would walk them all)
  const state = async () =>
    (
      await poller.query<{ made: string; pending: boolean }>(
        `SELECT (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM webhook_delivery.deliveries_seq_seq) AS made,
                EXISTS (SELECT 1 FROM webhook_delivery.deliveries WHERE status = 'pending') AS pending`,
      )
    ).rows[0]!;
  const before = Number((await state()).made);
  const [{ logged }] = (await poller.query<{ logged: string }>(`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS logged FROM webhook_delivery.attempts_seq_seq`)).rows as [
    { logged: string },
  ];
  const t0 = Date.now();
  for (let i = 0; i < n; i += 250) {
    await Promise.all(
      Array.from({ length: Math.min(250, n - i) }, () => {
        const e = sessionEvent(orgId, 'test');
        return js.publish(eventSubject(root, e.type), encodeJson(e), { msgID: e.id });
      }),
    );
  }
  await waitFor(
    async () => {
      const s = await state();
      return Number(s.made) >= before + n && !s.pending;
    },
    300_000,
    100,
  );
  const [{ last }] = (
    await poller.query<{ last: number }>(`SELECT extract(epoch FROM max(created_at)) * 1000 AS last FROM webhook_delivery.attempts WHERE seq > $1`, [logged])
  ).rows as [{ last: number }];
  return n / ((Number(last) - t0) / 1000);
}

/** The baseline: POSTs of a body of the same size to the same receiver, `CONCURRENCY` at a time, with undici. */
async function rawPosts(agent: Agent, url: string, body: string, n: number): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < n) {
        const res = await request(`${url}/raw`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`receiver answered ${res.statusCode}`);
      }
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * `benchWebhooks`: webhook deliveries per second (event → fan-out → queue → signed HTTPS POST → 2xx → logged)
 * next to a raw undici POST loop at the same concurrency against the same local HTTPS receiver, in rounds
 * that alternate the two (medians reported; the ratio is the median of each delivery round's to the raw round
 * before it), on a database of its own that is dropped afterwards. Also
 * prints the CPU each process spent per delivery (or per raw request).
 */
export async function benchWebhooks(): Promise<void> {
  const tls = makeCert();
  const prefix = 'benchwh_';
  const root = subjectRoot('us', prefix);
  const dbName = `verity_bench_webhooks_${randomBytes(3).toString('hex')}`;
  const adminUrl = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbUrl = Object.assign(new URL(adminUrl), { pathname: `/${dbName}` }).toString();
  const stack = new Stack({
    regions: ['us'],
    ports: { us: await freePort(), eu: 0 },
    databaseUrl: () => dbUrl,
    isolationPrefix: prefix,
    env: { LOG_LEVEL: 'warn', PG_POOL_MAX: '10' },
    serviceEnv: {
      'webhook-delivery': { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_CONCURRENCY: String(CONCURRENCY), NODE_EXTRA_CA_CERTS: tls.cert },
    },
    output: (r, s, line) => process.stderr.write(`[${r}/${s}] ${line}\n`),
  });
  const receiver = await startReceiver(tls);
  const agent = new Agent({ connect: { ca: readFileSync(tls.cert) } });
  await stack.startNats();
  // the operator sets up; events are published as sessions publishes them
  const nc = await stack.connectNats('us', 'operator', 'bench-webhooks');
  const asSessions = await stack.connectNats('us', 'sessions', 'bench-webhooks-events');
  let poller: pg.Client | undefined;
  try {
    await stack.migrate('us');
    stack.startService('us', 'accounts');
    stack.startService('us', 'webhook-delivery');
    const rpc = new RpcClient(nc, root, 5000);
    for (const subject of [SUBJECTS.accountsHealth, SUBJECTS.webhooksHealth] as const) {
      await waitFor(async () => (await rpc.call(subject, {}, op).catch(() => null))?.status === 'ok', 30_000, 100);
    }
    const org = await rpc.call(SUBJECTS.accountsOrgCreate, { name: 'bench webhooks' }, op);
    const sub = await rpc.call(
      SUBJECTS.webhookSubscriptionCreate,
      { org_id: org.id, mode: 'test', url: `${receiver.url}/hook`, event_types: ['kyc.session.completed'] },
      op,
    );
    const js = jetstream(asSessions);
    const body = JSON.stringify({ type: 'kyc.session.completed', timestamp: new Date().toISOString(), data: sessionEvent(org.id, 'test').data });

    poller = new pg.Client({ connectionString: dbUrl });
    await poller.connect();
    await deliveries(js, root, poller, org.id, WARMUP);
    // steady state: statistics and visibility maps as autovacuum would keep them
    await query(dbUrl, 'VACUUM ANALYZE webhook_delivery.deliveries, webhook_delivery.attempts');
    // the raw loop warms up last, just before its first round, so that round starts at its steady pace too
    await rawPosts(agent, receiver.url, body, WARMUP);

    const pgrep = (name: string) => {
      try {
        return execFileSync('pgrep', ['-x', name]).toString().trim().split('\n').map(Number);
      } catch {
        return [];
      }
    };
    const fixed = {
      'webhook-delivery': [stack.process('us', 'webhook-delivery')!.pid!],
      'redis-server': pgrep('redis-server'),
      'nats-server': pgrep('nats-server'),
      receiver: [receiver.child.pid!],
      'bench (publisher / raw client)': [process.pid],
    };
    // the service's Postgres backends, as they are now (the pool may have replaced some)
    const pidsNow = async () => ({
      ...fixed,
      'postgres (its backends)': (await query<{ pid: number }>(dbUrl, `SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'webhook-delivery%'`)).map(
        (r) => r.pid,
      ),
    });
    const pids = await pidsNow();
    const raw: Round[] = [];
    const hooks: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      let c0 = cpuOf(pids);
      const rawRate = await rawPosts(agent, receiver.url, body, PER_ROUND);
      let c1 = cpuOf(pids);
      raw.push({ rate: rawRate, cpu: Object.fromEntries(Object.keys(c1).map((k) => [k, (c1[k]! - (c0[k] ?? 0)) / PER_ROUND])) });
      const during = await pidsNow();
      c0 = cpuOf(during);
      const rate = await deliveries(js, root, poller, org.id, PER_ROUND);
      c1 = cpuOf(during);
      hooks.push({ rate, cpu: Object.fromEntries(Object.keys(c1).map((k) => [k, (c1[k]! - (c0[k] ?? 0)) / PER_ROUND])) });
    }
    const [outcome] = await query<{ succeeded: number; other: number }>(
      dbUrl,
      `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded, count(*) FILTER (WHERE status <> 'succeeded')::int AS other
         FROM webhook_delivery.deliveries WHERE subscription_id = $1`,
      [sub.id],
    );
    if (outcome!.other > 0) throw new Error(`${outcome!.other} deliveries did not succeed`);
    const rawRate = median(raw.map((x) => x.rate));
    const hookRate = median(hooks.map((x) => x.rate));
    const pairs = hooks.map((h, i) => h.rate / raw[i]!.rate);
    const w = [54, 12, 34, 8, 8];
    const rates = (rs: Round[]) => rs.map((x) => x.rate.toFixed(0)).join(' / ');
    const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
    process.stdout.write(
      `\nWebhooks: event → fan-out → queue → signed HTTPS POST → 2xx → logged, vs a raw undici POST loop (${CONCURRENCY} in flight, ${ROUNDS} alternating rounds of ${PER_ROUND}, medians)\n`,
    );
    process.stdout.write(`${formatRow(['path', 'per second', 'rounds', 'ratio', 'target'], w)}\n`);
    process.stdout.write(`${formatRow(['raw undici POST loop (same receiver, same body size)', rawRate.toFixed(0), rates(raw), '', ''], w)}\n`);
    process.stdout.write(
      `${formatRow(['webhook deliveries, published to logged receipt', hookRate.toFixed(0), rates(hooks), pct(median(pairs)), `≥${TARGET_PERCENT}%`], w)}\n`,
    );
    process.stdout.write(`  ratio of each delivery round to the raw round before it: ${pairs.map(pct).join(' / ')} (median above)\n`);
    const cpuLine = (rs: Round[]) =>
      Object.keys(pids)
        .map((k) => [k, median(rs.map((x) => x.cpu[k] ?? 0)) * 1e6] as const)
        .filter(([, us]) => us >= 1)
        .map(([k, us]) => `${k} ${us.toFixed(0)}`)
        .join(', ');
    process.stdout.write(`  CPU µs per raw request: ${cpuLine(raw)}\n`);
    process.stdout.write(`  CPU µs per delivery:    ${cpuLine(hooks)}\n`);
  } finally {
    await poller?.end().catch(() => undefined);
    // the stream goes with the stack's own NATS server
    await nc.close();
    await asSessions.close();
    await stack.stop();
    await agent.close();
    receiver.child.kill('SIGTERM');
    await once(receiver.child, 'exit');
    rmSync(tls.dir, { recursive: true, force: true });
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  }
}
