import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NatsConnection } from '@nats-io/transport-node';
import { subjectRoot, type NatsIdentity } from '@verity/contracts';
import { connectNats } from '@verity/platform/nats';
import { migrateRoleEnv, serviceDatabaseUrl } from './database-roles.js';
import { devCaptureSecretKey, devConsoleTotpKey, devErasureSigningKey, devPrincipalKeys, devWebhookSecretKey, type PrincipalKeys } from './dev-keys.js';
import { stopChild } from './infra/process.js';
import { NatsServer } from './nats.js';
import { RoundRobinProxy } from './proxy.js';

export type Region = 'us' | 'eu';

/** Every NATS service of a region, in start order. The gateway starts last. */
export const SERVICES = ['accounts', 'applicants', 'screening', 'sessions', 'webhook-delivery', 'evidence', 'id-scan'] as const;
export type ServiceName = (typeof SERVICES)[number] | 'gateway' | 'console';

/** How many processes run each app: one number for every app (gateway included), or some apps' own (others 1). */
export type Replicas = number | Partial<Record<ServiceName, number>>;

/**
 * `--replicas` of `npm start`: `3` (every app) or `sessions=3,webhook-delivery=2` (those apps; the others 1).
 * Throws on anything else.
 */
export function parseReplicas(text: string): Replicas {
  const whole = /^\s*(\d+)\s*$/.exec(text);
  if (whole) return replicaCount(whole[1]!, 'every app');
  const out: Partial<Record<ServiceName, number>> = {};
  for (const part of text.split(',')) {
    const m = /^\s*([a-z-]+)\s*=\s*(\d+)\s*$/.exec(part);
    const name = m?.[1] as ServiceName | undefined;
    if (!m || !name || !([...SERVICES, 'gateway'] as string[]).includes(name)) {
      throw new Error(`--replicas: "${part.trim()}" is not <app>=<n> with an app of ${[...SERVICES, 'gateway'].join(', ')}`);
    }
    out[name] = replicaCount(m[2]!, name);
  }
  return out;
}

function replicaCount(n: string, what: string): number {
  const v = Number(n);
  if (!Number.isInteger(v) || v < 1 || v > 32) throw new Error(`--replicas: ${what} needs 1 to 32 replicas, not ${n}`);
  return v;
}

/** Services that also take or serve byte streams over internal HTTP, and the gateway variable naming their URL. */
export const INTERNAL_HTTP_SERVICES: Record<string, string> = { 'id-scan': 'ID_SCAN_URL', evidence: 'EVIDENCE_URL' };

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** Where the checkout's processes keep Node's compile cache (`NODE_COMPILE_CACHE`): faster starts after the first. */
export const COMPILE_CACHE = path.join(REPO_ROOT, '.verity', 'compile-cache');

export interface StackOptions {
  regions: Region[];
  /** Gateway port of each region. */
  ports: Record<Region, number>;
  /** The console's port of each region (docs/console.md); absent: no console is started. */
  consolePorts?: Record<Region, number>;
  /** Database URL of each region. */
  databaseUrl: (region: Region) => string;
  /**
   * Each region runs its own nats-server, configured from NATS_GRANTS (docs/security.md, "NATS"): on this port
   * (a free one when absent), with its configuration and JetStream store in this directory (a temporary one,
   * removed on stop, when absent) and these passwords (random ones when absent).
   */
  nats?: {
    port?: (region: Region) => number | undefined;
    dir?: (region: Region) => string | undefined;
    password?: (region: Region, identity: NatsIdentity) => string;
  };
  redisUrl?: string;
  /** Prefix of the NATS subject roots and Redis keys, to isolate a run (tests). */
  isolationPrefix?: string;
  /** Extra environment for every process. */
  env?: Record<string, string>;
  /** Extra environment per service. */
  serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /** Extra environment of one region's processes of a service (after `serviceEnv`). */
  regionEnv?: (region: Region, service: ServiceName) => Record<string, string>;
  /** Where process output goes: a line sink (with the replica's index), or null to drop it. */
  output?: ((region: Region, service: ServiceName | 'nats', line: string, replica: number) => void) | null;
  /** Restart a service that exits on its own (npm start), with backoff. */
  restartOnCrash?: boolean;
  readyTimeoutMs?: number;
  /**
   * Migrate each region's database before starting (default). Tests turn it off: their databases are clones of a
   * template migrated once per run.
   */
  migrate?: boolean;
  /**
   * Processes per app (default 1 each). An app of several replicas reached over HTTP (the gateway on the region's
   * port, evidence and id-scan on their internal port) is reached through a round-robin proxy on that port, each
   * replica listening on a port of its own (see RoundRobinProxy); NATS spreads requests over the replicas itself.
   * `0` starts no process of that app: a test's own stack leaves out what it never calls (the gateway still
   * answers ready; a call to the missing app is refused as if it were down).
   */
  replicas?: Replicas;
}

function entry(service: ServiceName, file: 'main' | 'migrate'): string {
  return path.join(REPO_ROOT, 'apps', service, 'dist', 'src', `${file}.js`);
}

/** Apps reached over HTTP, whose replicas sit behind a round-robin proxy when there are several. */
const HTTP_APPS: ServiceName[] = ['gateway', ...(Object.keys(INTERNAL_HTTP_SERVICES) as ServiceName[])];

/**
 * Runs whole regional stacks as separate processes (one per replica of each service and region, as they are
 * deployed): migrates each region's database, starts every service and the gateway, waits for readiness, and can
 * stop and start single replicas, single services (fault tests) or everything (Ctrl-C).
 *
 * Processes are named `region/service/replica`; the methods that take an app without a replica index act on
 * every replica of it (`stopService`, `startService`) or on the first (`process`, `healthUrl`).
 */
export class Stack {
  private readonly procs = new Map<string, ChildProcess>();
  private readonly stopped = new Set<string>();
  private closing = false;
  /**
   * Internal HTTP ports of evidence and id-scan: `region/service` is the one the gateway is given (the proxy's
   * with several replicas), `region/service/i` each replica's own.
   */
  private readonly internalPorts = new Map<string, number>();
  /** Each process's internal port (`HEALTH_PORT`: /health/live, /health/ready, /metrics), by `region/service/i`. */
  private readonly healthPorts = new Map<string, number>();
  /** Each gateway replica's own public port (the region's port itself when there is one replica), by `region/gateway/i`. */
  private readonly gatewayPorts = new Map<string, number>();
  /** The round-robin proxies in front of HTTP apps of several replicas, by `region/service`. */
  private readonly proxies = new Map<string, RoundRobinProxy>();
  /**
   * INTERNAL_AUTH_SECRET of each region: shared by the region's gateway, evidence and id-scan, and by nothing of
   * the other region. Random per start (it protects requests in flight only, nothing stored), kept for the
   * stack's life so that a service restarted alone still verifies its gateway.
   */
  private readonly internalSecrets: Record<Region, string> = { us: randomBytes(32).toString('base64url'), eu: randomBytes(32).toString('base64url') };
  /**
   * Each region's principal keys: its gateway and console sign the principals they attach, every service verifies
   * them (docs/security.md, "The bus's trust boundary"). New per start, like the internal secret, and kept for the stack's life.
   */
  private readonly principalKeys: Record<Region, PrincipalKeys> = { us: devPrincipalKeys('us'), eu: devPrincipalKeys('eu') };
  private readonly natsServers = new Map<Region, NatsServer>();

  constructor(readonly opts: StackOptions) {}

  /** The region's public address (its round-robin proxy when the gateway has several replicas). */
  baseUrl(region: Region): string {
    return `http://127.0.0.1:${this.opts.ports[region]}`;
  }

  /** How many processes run `service` in each region. */
  replicas(service: ServiceName): number {
    // one console per region: it keeps nothing in memory, but nothing here needs more
    if (service === 'console') return this.opts.consolePorts ? 1 : 0;
    const r = this.opts.replicas;
    if (r === undefined) return 1;
    return typeof r === 'number' ? r : (r[service] ?? 1);
  }

  /** The region's nats-server (once `start` or `startNats` ran). */
  nats(region: Region): NatsServer {
    const n = this.natsServers.get(region);
    if (!n) throw new Error(`the ${region} NATS server is not started`);
    return n;
  }

  /** The internal port of a process (`HEALTH_PORT`): its own /health/live, /health/ready and /metrics. */
  healthUrl(region: Region, service: ServiceName, replica = 0): string {
    const port = this.healthPorts.get(procId(region, service, replica));
    if (port === undefined) throw new Error(`no internal port for ${procId(region, service, replica)}: start or startNats first`);
    return `http://127.0.0.1:${port}`;
  }

  /** The region's console (when the stack runs one). */
  consoleUrl(region: Region): string {
    const port = this.opts.consolePorts?.[region];
    if (port === undefined) throw new Error('this stack runs no console: give consolePorts');
    return `http://127.0.0.1:${port}`;
  }

  /** A gateway replica's own public address, past the proxy. */
  gatewayUrl(region: Region, replica = 0): string {
    const port = this.gatewayPorts.get(procId(region, 'gateway', replica));
    if (port === undefined) throw new Error(`no port for ${procId(region, 'gateway', replica)}: start or startNats first`);
    return `http://127.0.0.1:${port}`;
  }

  /**
   * Connections the round-robin proxy of an HTTP app (gateway, evidence, id-scan) of several replicas handed to
   * each replica so far, by replica index; null when the app runs one replica (no proxy).
   */
  connectionsServed(region: Region, service: ServiceName): number[] | null {
    const proxy = this.proxies.get(`${region}/${service}`);
    if (!proxy) return null;
    return this.replicaPorts(region, service).map((p) => proxy.served.get(p) ?? 0);
  }

  /** A connection to the region's NATS as `identity` (tests play an operator, a reader, or a service). */
  connectNats(region: Region, identity: NatsIdentity, name = `${identity}-${region}-test`): Promise<NatsConnection> {
    const n = this.nats(region);
    return connectNats(n.url, name, n.credentials(identity));
  }

  /**
   * Starts each region's nats-server, picks every process's ports and opens the proxies of HTTP apps of several
   * replicas (part of `start`; alone when a test starts services one by one).
   */
  async startNats(): Promise<void> {
    await this.allocatePorts();
    await this.openProxies();
    for (const r of this.opts.regions) {
      if (this.natsServers.has(r)) continue;
      const server = new NatsServer({
        root: subjectRoot(r, this.opts.isolationPrefix ?? ''),
        port: this.opts.nats?.port?.(r) ?? (await freePort()),
        dir: this.opts.nats?.dir?.(r),
        password: this.opts.nats?.password ? (id) => this.opts.nats!.password!(r, id) : undefined,
        includeTestIdentities: true,
        output: this.opts.output ? (line) => this.opts.output!(r, 'nats', line, 0) : null,
      });
      this.natsServers.set(r, server);
      await server.start();
    }
  }

  /**
   * The environment of one process. Replicas of a service differ only in their own ports (`HEALTH_PORT`, the
   * gateway's `PORT`, evidence's and id-scan's `INTERNAL_PORT`): nothing in a service is named after its replica
   * (queue groups, the fan-out's durable consumer, locks and Redis keys are the service's, shared by all).
   */
  envFor(region: Region, service: ServiceName, replica = 0): Record<string, string> {
    const prefix = this.opts.isolationPrefix ?? '';
    const keys = this.principalKeys[region];
    const internal: Record<string, string> = {
      INTERNAL_AUTH_SECRET: this.internalSecrets[region],
      PRINCIPAL_VERIFY_KEYS: keys.verify,
      ...(service === 'gateway' || service === 'console' ? { PRINCIPAL_SIGNING_KEY: keys[service] } : {}),
    };
    for (const [s, urlVar] of Object.entries(INTERNAL_HTTP_SERVICES)) {
      const port = this.internalPorts.get(`${region}/${s}`);
      if (port === undefined) continue;
      if (service === 'gateway' || service === 'console') internal[urlVar] = `http://127.0.0.1:${port}`;
      if (service === s) internal.INTERNAL_PORT = String(this.internalPorts.get(procId(region, s, replica)) ?? port);
    }
    const healthPort = this.healthPorts.get(procId(region, service, replica));
    if (healthPort !== undefined) internal.HEALTH_PORT = String(healthPort);
    const port = (service === 'gateway' && this.gatewayPorts.get(procId(region, service, replica))) || this.opts.ports[region];
    return {
      ...(process.env as Record<string, string>),
      REGION: region,
      // each service as its own role, with rights on its own schema only; the gateway and the console have no database
      DATABASE_URL: (SERVICES as readonly string[]).includes(service) ? serviceDatabaseUrl(this.opts.databaseUrl(region), service) : this.opts.databaseUrl(region),
      ...(this.natsServers.has(region) ? this.nats(region).envFor(service as NatsIdentity) : {}),
      NATS_SUBJECT_PREFIX: prefix,
      REDIS_URL: this.opts.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: `${prefix}${region}:`,
      PORT: String(port),
      ...internal,
      ...((service as string) === 'applicants' && !process.env.ERASURE_SIGNING_KEY ? { ERASURE_SIGNING_KEY: devErasureSigningKey(REPO_ROOT, region) } : {}),
      ...((service as string) === 'webhook-delivery' && !process.env.WEBHOOK_SECRET_KEY ? { WEBHOOK_SECRET_KEY: devWebhookSecretKey(REPO_ROOT) } : {}),
      ...((service as string) === 'accounts' && !process.env.CONSOLE_TOTP_KEY ? { CONSOLE_TOTP_KEY: devConsoleTotpKey(REPO_ROOT, region) } : {}),
      // a live session's link points at this region's gateway; its client secret is derived with the region's key
      ...((service as string) === 'sessions'
        ? { CAPTURE_BASE_URL: this.baseUrl(region), ...(process.env.CAPTURE_SECRET_KEY ? {} : { CAPTURE_SECRET_KEY: devCaptureSecretKey(REPO_ROOT, region) }) }
        : {}),
      // every doc_url points at this region's own error reference (GET /docs/errors) unless DOCS_BASE_URL is set
      ...(service === 'gateway' && !process.env.DOCS_BASE_URL ? { DOCS_BASE_URL: `${this.baseUrl(region)}/docs` } : {}),
      ...(service === 'console' && this.opts.consolePorts ? { CONSOLE_PORT: String(this.opts.consolePorts[region]) } : {}),
      // one reading thread per reading service unless READING_THREADS says otherwise: a local stack runs every service
      // of two regions on one machine, and each thread loads the reading engines (about 1.5 s of CPU, 300 MB)
      ...((service as string) === 'evidence' || (service as string) === 'id-scan' ? { READING_THREADS: process.env.READING_THREADS ?? '1' } : {}),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      // compiled code is cached on disk between starts of the checkout's processes (Node's module compile cache)
      NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? COMPILE_CACHE,
      ...(this.opts.env ?? {}),
      ...(this.opts.serviceEnv?.[service] ?? {}),
      ...(this.opts.regionEnv?.(region, service) ?? {}),
    };
  }

  async migrate(region: Region): Promise<void> {
    for (const s of SERVICES) {
      // as the database's owner, which gives the service's role its rights
      const owner = this.opts.databaseUrl(region);
      const child = spawn(process.execPath, ['--enable-source-maps', entry(s, 'migrate')], {
        env: { ...this.envFor(region, s), DATABASE_URL: owner, ...migrateRoleEnv(owner, s) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      child.stdout!.on('data', (d: Buffer) => this.emit(region, s, 0, d));
      const [code] = (await once(child, 'exit')) as [number | null];
      if (code !== 0) throw new Error(`migrating ${region}/${s} failed: ${err.trim()}`);
    }
  }

  private emit(region: Region, service: ServiceName, replica: number, data: Buffer): void {
    const out = this.opts.output;
    if (!out) return;
    for (const line of data.toString().split('\n')) if (line.trim()) out(region, service, line, replica);
  }

  /**
   * Starts one replica of a service, or (no index) every replica of it that is not running; returns the
   * processes started.
   */
  startService(region: Region, service: ServiceName, replica?: number): ChildProcess[] {
    const indexes = replica === undefined ? [...Array(this.replicas(service)).keys()] : [replica];
    const started: ChildProcess[] = [];
    for (const i of indexes) {
      const id = procId(region, service, i);
      if (this.procs.has(id)) continue;
      started.push(this.spawnReplica(region, service, i));
    }
    return started;
  }

  private spawnReplica(region: Region, service: ServiceName, replica: number): ChildProcess {
    const id = procId(region, service, replica);
    this.stopped.delete(id);
    // VERITY_NODE_ARGS: extra flags for service processes, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
    const extra = (process.env.VERITY_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const child = spawn(process.execPath, ['--enable-source-maps', ...extra, entry(service, 'main')], {
      env: this.envFor(region, service, replica),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => this.emit(region, service, replica, d));
    child.stderr!.on('data', (d: Buffer) => this.emit(region, service, replica, d));
    child.on('exit', (code, signal) => {
      if (this.procs.get(id) === child) this.procs.delete(id);
      if (this.closing || this.stopped.has(id)) return;
      this.opts.output?.(region, service, `exited (${signal ?? code})`, replica);
      if (this.opts.restartOnCrash) setTimeout(() => !this.closing && !this.stopped.has(id) && this.startService(region, service, replica), 1000);
    });
    this.procs.set(id, child);
    return child;
  }

  /** The running process of one replica (the first by default). */
  process(region: Region, service: ServiceName, replica = 0): ChildProcess | undefined {
    return this.procs.get(procId(region, service, replica));
  }

  /** The running processes of every replica of a service. */
  processes(region: Region, service: ServiceName): ChildProcess[] {
    return [...Array(this.replicas(service)).keys()].flatMap((i) => this.process(region, service, i) ?? []);
  }

  /** Stops one replica of a service, or (no index) every replica of it; `signal` SIGKILL simulates a crash. */
  async stopService(region: Region, service: ServiceName, signal: NodeJS.Signals = 'SIGTERM', replica?: number): Promise<void> {
    const indexes = replica === undefined ? [...Array(this.replicas(service)).keys()] : [replica];
    await Promise.all(
      indexes.map(async (i) => {
        const id = procId(region, service, i);
        this.stopped.add(id);
        const child = this.procs.get(id);
        if (!child || child.exitCode !== null) return;
        const exited = once(child, 'exit');
        child.kill(signal);
        await exited;
      }),
    );
  }

  /** Each replica's own port of an HTTP app: the gateway's public one, evidence's and id-scan's internal one. */
  private replicaPorts(region: Region, service: ServiceName): number[] {
    const ports = service === 'gateway' ? this.gatewayPorts : this.internalPorts;
    return [...Array(this.replicas(service)).keys()].map((i) => ports.get(procId(region, service, i))!);
  }

  /**
   * Every process's `HEALTH_PORT`, the internal HTTP port of evidence and id-scan, and with several replicas of an
   * HTTP app each replica's own port behind the app's address; once per stack.
   */
  private async allocatePorts(): Promise<void> {
    for (const r of this.opts.regions) {
      for (const s of [...SERVICES, 'gateway', 'console'] as const) {
        const n = this.replicas(s);
        if (INTERNAL_HTTP_SERVICES[s] && !this.internalPorts.has(`${r}/${s}`)) this.internalPorts.set(`${r}/${s}`, await freePort());
        for (let i = 0; i < n; i++) {
          const id = procId(r, s, i);
          if (!this.healthPorts.has(id)) this.healthPorts.set(id, await freePort());
          if (s === 'gateway' && !this.gatewayPorts.has(id)) this.gatewayPorts.set(id, n === 1 ? this.opts.ports[r] : await freePort());
          if (INTERNAL_HTTP_SERVICES[s] && !this.internalPorts.has(id)) this.internalPorts.set(id, n === 1 ? this.internalPorts.get(`${r}/${s}`)! : await freePort());
        }
      }
    }
  }

  /** The round-robin proxy on the address of each HTTP app of several replicas (what a Kubernetes Service does). */
  private async openProxies(): Promise<void> {
    for (const r of this.opts.regions) {
      for (const s of HTTP_APPS) {
        const key = `${r}/${s}`;
        if (this.replicas(s) <= 1 || this.proxies.has(key)) continue;
        const port = s === 'gateway' ? this.opts.ports[r] : this.internalPorts.get(key)!;
        const proxy = new RoundRobinProxy(port, () => this.replicaPorts(r, s));
        this.proxies.set(key, proxy);
        await proxy.listen();
      }
    }
  }

  async start(): Promise<void> {
    await this.allocatePorts();
    await Promise.all([...(this.opts.migrate === false ? [] : this.opts.regions.map((r) => this.migrate(r))), this.startNats()]);
    for (const r of this.opts.regions) {
      for (const s of SERVICES) this.startService(r, s);
      this.startService(r, 'gateway');
      this.startService(r, 'console');
    }
    await Promise.all(this.opts.regions.map((r) => this.waitReady(r)));
  }

  /**
   * Until every replica of every service of the region answers its own readiness on its internal port (Postgres
   * and NATS; by then evidence and id-scan also listen on their internal HTTP port), every gateway replica answers
   * ready on its own port, and the region's address does too. Asked of each process, not of the gateway's cached
   * fan-out, so a service just restarted is really serving.
   */
  async waitReady(region: Region, timeoutMs = this.opts.readyTimeoutMs ?? 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const each = (s: ServiceName, url: (i: number) => string) =>
      [...Array(this.replicas(s)).keys()].map((i) => ({ name: this.replicas(s) === 1 ? s : `${s}/${i}`, url: url(i) }));
    const probes = [
      ...SERVICES.flatMap((s) => each(s, (i) => `${this.healthUrl(region, s, i)}/health/ready`)),
      ...(this.replicas('gateway') === 1 ? [] : each('gateway', (i) => `${this.gatewayUrl(region, i)}/health/ready`)),
      { name: 'gateway', url: `${this.baseUrl(region)}/health/ready` },
      ...each('console', (i) => `${this.healthUrl(region, 'console', i)}/health/ready`),
    ];
    let last = '';
    while (Date.now() < deadline) {
      const waiting: string[] = [];
      for (const p of probes) {
        const status = await fetch(p.url, { signal: AbortSignal.timeout(2000) }).then(
          (r) => r.status,
          () => 0,
        );
        if (status !== 200) waiting.push(`${p.name} (${status || 'no answer'})`);
      }
      if (waiting.length === 0) return;
      last = `not ready: ${waiting.join(', ')}`;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`${region} stack not ready after ${timeoutMs} ms: ${last}`);
  }

  async stop(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.procs.values()].map(stopChild));
    this.procs.clear();
    for (const p of this.proxies.values()) await p.close();
    this.proxies.clear();
    for (const n of this.natsServers.values()) await n.stop();
    this.natsServers.clear();
  }
}

function procId(region: Region, service: ServiceName, replica: number): string {
  return `${region}/${service}/${replica}`;
}

/**
 * Ports are picked below the ephemeral range of Linux (32768–60999) and macOS (49152–65535): a port the kernel
 * gives to an outgoing connection (any process's) between the pick and the process's listen would make that
 * process fail with EADDRINUSE, and the more processes a stack runs (replicas), the likelier that is.
 */
const PORT_RANGE = { from: 20_000, to: 32_000 };
/** Ports this process handed out: never twice, since each is only bound later, by whoever asked. */
const handedOut = new Set<number>();

/** A free TCP port on loopback, outside the ephemeral range (see PORT_RANGE). */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port in ${PORT_RANGE.from}–${PORT_RANGE.to} after 200 tries`);
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    // every interface: the processes bind some ports on 0.0.0.0 (HEALTH_PORT), which anything on the port would refuse
    srv.listen(port, () => srv.close(() => resolve(true)));
  });
}
