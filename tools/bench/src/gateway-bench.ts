import { availableParallelism } from 'node:os';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { subjectRoot, SUBJECTS } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import { freePort, REPO_ROOT, Stack } from '@verity/stack';
import { formatRow, measure, type LoadResult } from './load.js';

export interface BenchEnv {
  stack: Stack;
  rpc: RpcClient;
  key: string;
  orgId: string;
  dbUrl: string;
  close: () => Promise<void>;
}

/** A us stack of its own for benchmarks, and an org on a `custom` tier so the limiter counts but never refuses. */
export async function startBenchStack(): Promise<BenchEnv> {
  const prefix = 'bench_';
  const dbUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/verity_bench_us';
  const stack = new Stack({
    regions: ['us'],
    ports: { us: await freePort(), eu: 0 },
    databaseUrl: () => dbUrl,
    isolationPrefix: prefix,
    // the readers with a thread per core, as deployed (the local stack's default is one)
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_IP_PER_MINUTE: '1000000000', PG_POOL_MAX: '10', READING_THREADS: process.env.READING_THREADS ?? String(availableParallelism()) },
    output: (r, s, line) => process.stderr.write(`[${r}/${s}] ${line}\n`),
  });
  await stack.start();
  const nc = await stack.connectNats('us', 'operator', 'bench');
  const rpc = new RpcClient(nc, subjectRoot('us', prefix), 5000);
  const op = { principal: null, requestId: 'req_bench' };
  const org = await rpc.call(SUBJECTS.accountsOrgCreate, { name: 'bench' }, op);
  const huge = 1_000_000_000;
  await rpc.call(
    SUBJECTS.accountsOrgSetTier,
    { org_id: org.id, tier: 'custom', limits: { reads: huge, 'applicants:create': huge, 'sessions:create': huge, global: huge } },
    op,
  );
  // live creates are billed (docs/sessions.md, "Billing"): a wallet that never runs out
  await rpc.call(SUBJECTS.accountsBillingSet, { org_id: org.id, wallet_balance: huge * 1000 }, op);
  const key = await rpc.call(
    SUBJECTS.accountsKeyCreate,
    { org_id: org.id, mode: 'test', type: 'sk', scopes: ['applicants:read', 'applicants:write', 'sessions:read', 'sessions:write', 'workflows:read', 'workflows:write', 'sessions:read_report', 'idv:scan', 'webhooks:read'] },
    op,
  );
  return {
    stack,
    rpc,
    key: key.key,
    orgId: org.id,
    dbUrl,
    close: async () => {
      await nc.close();
      await stack.stop();
    },
  };
}

/** A baseline process (`bare-server.js` unless another script of this folder is named), ready when it returns. */
export async function startBareServer(dbUrl: string, script = 'bare-server.js'): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'tools/bench/dist/src', script)], {
    env: { ...process.env, DATABASE_URL: dbUrl, PORT: String(port), PG_POOL_MAX: '10' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export function printComparison(title: string, pairs: Array<[LoadResult, LoadResult, number]>): void {
  const w = [34, 10, 9, 9, 8, 8];
  process.stdout.write(`\n${title}\n`);
  process.stdout.write(`${formatRow(['path (50 connections)', 'req/s', 'p50 ms', 'p99 ms', 'ratio', 'target'], w)}\n`);
  for (const [base, sut, target] of pairs) {
    for (const r of [base, sut]) {
      const ratio = r === sut ? `${((sut.rps / base.rps) * 100).toFixed(0)}%` : '';
      const t = r === sut ? `≥${target}%` : '';
      process.stdout.write(`${formatRow([r.label, r.rps.toFixed(0), r.p50.toFixed(1), r.p99.toFixed(1), ratio, t], w)}\n`);
      if (r.non2xx || r.errors) process.stdout.write(`  ! ${r.label}: ${r.non2xx} non-2xx, ${r.errors} errors\n`);
    }
  }
}

/** GET and POST /v1/applicants through the gateway, each next to a bare Fastify + Postgres handler. */
export async function benchApplicants(env: BenchEnv): Promise<void> {
  const bare = await startBareServer(env.dbUrl);
  const gw = env.stack.baseUrl('us');
  const auth = { authorization: `Bearer ${env.key}`, 'content-type': 'application/json' };
  const created = await fetch(`${gw}/v1/applicants`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ family_name: 'Lovelace', given_names: ['Ada'] }),
  });
  const id = ((await created.json()) as { data: { id: string } }).data.id;
  const body = JSON.stringify({ family_name: 'Hopper', given_names: ['Grace', 'Brewster'], email: 'grace@example.com' });
  try {
    const bareGet = await measure({ label: 'bare GET /applicants/:id', url: `${bare.url}/applicants/${id}`, method: 'GET', headers: { 'x-org': env.orgId } });
    const gwGet = await measure({ label: 'gateway GET /v1/applicants/:id', url: `${gw}/v1/applicants/${id}`, method: 'GET', headers: auth });
    const barePost = await measure({ label: 'bare POST /applicants', url: `${bare.url}/applicants`, method: 'POST', headers: { 'x-org': env.orgId, 'content-type': 'application/json' }, body });
    const gwPost = await measure({ label: 'gateway POST /v1/applicants', url: `${gw}/v1/applicants`, method: 'POST', headers: auth, body });
    printComparison('Applicants: gateway → NATS → service → Postgres vs bare Fastify → Postgres', [
      [bareGet, gwGet, 40],
      [barePost, gwPost, 60],
    ]);
  } finally {
    await bare.stop();
  }
}
