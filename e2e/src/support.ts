import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import type { NatsConnection } from '@nats-io/transport-node';
import { subjectRoot, SUBJECTS, type CreatedApiKey, type NatsIdentity, type Organization } from '@verity/contracts';
import { connectNats, RpcClient } from '@verity/platform';
import { REPO_ROOT } from '@verity/stack';
import { api, query, type ApiResponse } from '@verity/testing';
export { freshWindow } from '@verity/testing';

export type Region = 'us' | 'eu';

function need(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run end-to-end tests with npm test`);
  return v;
}

/**
 * The shared two-region stack (tools/scripts/test.mjs), read when first used: files with a stack of their own import
 * these helpers too, and run without it.
 */
export const E2E = {
  get url(): Record<Region, string> {
    return { us: need('E2E_US_URL'), eu: need('E2E_EU_URL') };
  },
  get prefix(): string {
    return need('E2E_PREFIX');
  },
  get db(): Record<Region, string> {
    return { us: need('E2E_DB_US'), eu: need('E2E_DB_EU') };
  },
  /** Each region's own NATS and the passwords of the identities the tests may use there. */
  get nats(): Record<Region, { url: string; passwords: Partial<Record<NatsIdentity, string>> }> {
    return JSON.parse(need('E2E_NATS')) as Record<Region, { url: string; passwords: Partial<Record<NatsIdentity, string>> }>;
  },
};

/** A connection to a region's NATS as `identity`: the operator, the test-only stream reader, or sessions. */
export function connectAs(region: Region, identity: NatsIdentity, name = `e2e-${identity}-${region}`): Promise<NatsConnection> {
  const n = E2E.nats[region];
  const password = n.passwords[identity];
  if (password === undefined) throw new Error(`the e2e stack gives no NATS password for ${identity}`);
  return connectNats(n.url, name, { identity, password });
}

/** The environment of a process that connects to a region's NATS as `identity`. */
export function natsEnvOf(region: Region, identity: NatsIdentity): Record<string, string> {
  return { NATS_URL: E2E.nats[region].url, NATS_USER: identity, NATS_PASSWORD: E2E.nats[region].passwords[identity] ?? '' };
}

/** A client address of its own for each test, so the per-IP limit of one test never touches another. */
export function clientIp(): string {
  const b = randomBytes(3);
  return `10.${b[0]}.${b[1]}.${b[2]! | 1}`;
}

/** Calls a region's gateway as a client would, from a client address of its own. */
export function client(region: Region, key?: string, ip = clientIp()) {
  return <T = Record<string, unknown>>(
    method: string,
    p: string,
    opts: { body?: unknown; rawBody?: string | Uint8Array; headers?: Record<string, string>; key?: string } = {},
  ): Promise<ApiResponse<T>> =>
    api<T>(E2E.url[region], method, p, { key: opts.key ?? key, ...opts, headers: { 'x-forwarded-for': ip, ...(opts.headers ?? {}) } });
}

const execFileP = promisify(execFile);

/**
 * Runs the admin CLI exactly as an operator would, logged in as the operator to the NATS of the region in `args`
 * (`env` adds to or replaces its environment); returns its exit code, parsed output and raw output.
 */
export async function adminCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: unknown; err: unknown; stdout: string; stderr: string }> {
  const region: Region = args[args.indexOf('--region') + 1] === 'eu' ? 'eu' : 'us';
  try {
    const { stdout, stderr } = await execFileP(process.execPath, [path.join(REPO_ROOT, 'tools/admin/dist/src/main.js'), ...args], {
      env: { ...process.env, NATS_SUBJECT_PREFIX: E2E.prefix, ...natsEnvOf(region, 'operator'), ...env },
    });
    return { code: 0, out: JSON.parse(stdout), err: null, stdout, stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    let err: unknown = x.stderr;
    try {
      err = JSON.parse(x.stderr);
    } catch {
      /* not JSON */
    }
    return { code: x.code, out: x.stdout, err, stdout: x.stdout, stderr: x.stderr };
  }
}

const clients = new Map<string, Promise<RpcClient>>();
/** Operator calls over NATS, as the operator identity (fast set-up for tests; the CLI itself is tested separately). */
export function operator(region: Region): Promise<RpcClient> {
  return clientAs(region, 'operator');
}

/** Calls as a service would make them, with its identity (a test playing sessions asks evidence). */
export function clientAs(region: Region, identity: NatsIdentity): Promise<RpcClient> {
  const id = `${region}/${identity}`;
  let c = clients.get(id);
  if (!c) {
    c = connectAs(region, identity).then((nc) => new RpcClient(nc, subjectRoot(region, E2E.prefix), 5000));
    clients.set(id, c);
  }
  return c;
}

export async function closeOperators(): Promise<void> {
  for (const c of clients.values()) await (await c).connection.close();
  clients.clear();
}

const op = { principal: null, requestId: 'req_e2e' };

export async function createOrg(region: Region, tier?: Organization['tier']): Promise<Organization> {
  return (await operator(region)).call(SUBJECTS.accountsOrgCreate, { name: `e2e ${randomBytes(3).toString('hex')}`, tier }, op);
}

export async function createKey(
  region: Region,
  orgId: string,
  opts: { mode?: 'test' | 'live'; type?: 'sk' | 'pk'; scopes?: string[] } = {},
): Promise<CreatedApiKey> {
  return (await operator(region)).call(
    SUBJECTS.accountsKeyCreate,
    {
      org_id: orgId,
      mode: opts.mode ?? 'test',
      type: opts.type ?? 'sk',
      scopes: opts.scopes ?? ['applicants:read', 'applicants:write', 'sessions:read', 'sessions:write', 'sessions:read_report', 'workflows:read', 'workflows:write', 'webhooks:read', 'idv:scan', 'dsar:write'],
    },
    op,
  );
}

/** A fresh organization with one key: the usual start of a test. */
export async function orgWithKey(region: Region, opts: Parameters<typeof createKey>[2] & { tier?: Organization['tier'] } = {}) {
  const org = await createOrg(region, opts.tier);
  const key = await createKey(region, org.id, opts);
  return { org, key: key.key, keyId: key.id };
}

/** Asserts the error envelope: code, HTTP status, type, doc_url and request id matching the header. */
export function errorOf(res: ApiResponse): { code: string; message: string; type: string; param?: string; details?: Record<string, unknown>; request_id: string; doc_url: string } {
  const e = (res.body as { error?: unknown }).error as ReturnType<typeof errorOf> | undefined;
  if (!e) throw new Error(`expected an error envelope, got ${res.status} ${res.text}`);
  if (e.request_id !== res.headers.get('x-request-id')) throw new Error('error.request_id differs from X-Request-Id');
  if (!e.doc_url.endsWith(`/errors#${e.code}`)) throw new Error(`doc_url ${e.doc_url} does not point at ${e.code}`);
  return e;
}

/** Rows of a region's database (for assertions on what was stored). */
export function rows<R extends Record<string, unknown> = Record<string, unknown>>(region: Region, sql: string, params: unknown[] = []): Promise<R[]> {
  return query<R>(E2E.db[region], sql, params);
}

/** How many applicants rows an organization has in a region's database. */
export async function applicantRows(region: Region, orgId: string): Promise<number> {
  const [r] = await rows<{ n: number }>(region, 'SELECT count(*)::int AS n FROM applicants.applicants WHERE org_id = $1', [orgId]);
  return r!.n;
}

/** Runs `fn` `n` times with at most `concurrency` calls in flight; results in call order. */
export async function times<T>(n: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array<T>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, concurrency) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

/** The X-RateLimit-* headers of a response, as numbers (NaN when absent). */
export function rateLimitOf(res: ApiResponse): { limit: number; remaining: number; reset: number; window: number } {
  const n = (h: string) => {
    const v = res.headers.get(`x-ratelimit-${h}`);
    return v !== null && /^[0-9]+$/.test(v) ? Number(v) : NaN;
  };
  return { limit: n('limit'), remaining: n('remaining'), reset: n('reset'), window: n('window') };
}

/** A TCP port nobody listens on right now, on loopback. */
export { freePort } from '@verity/stack';

/** The header of a request sent with an Idempotency-Key. */
export const idem = (k: string) => ({ 'idempotency-key': k });

/** Whether an answer is a replay of a request's first answer (`Idempotent-Replayed: true`). */
export function replayed(res: ApiResponse): boolean {
  return res.headers.get('idempotent-replayed') === 'true';
}
