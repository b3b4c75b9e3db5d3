import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NatsConnection } from '@nats-io/transport-node';
import { subjectRoot, type NatsIdentity } from '@verity/contracts';
import { connectNats } from '@verity/platform/nats';
import { devCaptureSecretKey, devWebhookSecretKey } from './dev-keys.js';
import { NatsServer } from './nats.js';

export type Region = 'us' | 'eu';

/** Every NATS service of a region, in start order. The gateway starts last. */
export const SERVICES = ['accounts', 'applicants', 'screening', 'sessions', 'webhook-delivery', 'evidence', 'id-scan'] as const;
export type ServiceName = (typeof SERVICES)[number] | 'gateway';

/** Services that also take or serve byte streams over internal HTTP, and the gateway variable naming their URL. */
export const INTERNAL_HTTP_SERVICES: Record<string, string> = { 'id-scan': 'ID_SCAN_URL', evidence: 'EVIDENCE_URL' };

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

export interface StackOptions {
  regions: Region[];
  /** Gateway port of each region. */
  ports: Record<Region, number>;
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
  /** Where process output goes: a line sink, or null to drop it. */
  output?: ((region: Region, service: ServiceName | 'nats', line: string) => void) | null;
  /** Restart a service that exits on its own (npm start), with backoff. */
  restartOnCrash?: boolean;
  readyTimeoutMs?: number;
}

function entry(service: ServiceName, file: 'main' | 'migrate'): string {
  return path.join(REPO_ROOT, 'apps', service, 'dist', 'src', `${file}.js`);
}

/**
 * Runs whole regional stacks as separate processes (one per service and region, as they are deployed):
 * migrates each region's database, starts every service and the gateway, waits for readiness, and can stop
 * and start single services (fault tests) or everything (Ctrl-C).
 */
export class Stack {
  private readonly procs = new Map<string, ChildProcess>();
  private readonly stopped = new Set<string>();
  private closing = false;
  private readonly internalPorts = new Map<string, number>();
  /** Each process's internal port (`HEALTH_PORT`: /health/live, /health/ready, /metrics), by `region/service`. */
  private readonly healthPorts = new Map<string, number>();
  /**
   * INTERNAL_AUTH_SECRET of each region: shared by the region's gateway, evidence and id-scan, and by nothing of
   * the other region. Random per start (it protects requests in flight only, nothing stored), kept for the
   * stack's life so that a service restarted alone still verifies its gateway.
   */
  private readonly internalSecrets: Record<Region, string> = { us: randomBytes(32).toString('base64url'), eu: randomBytes(32).toString('base64url') };
  private readonly natsServers = new Map<Region, NatsServer>();

  constructor(readonly opts: StackOptions) {}

  baseUrl(region: Region): string {
    return `http://127.0.0.1:${this.opts.ports[region]}`;
  }

  /** The region's nats-server (once `start` or `startNats` ran). */
  nats(region: Region): NatsServer {
    const n = this.natsServers.get(region);
    if (!n) throw new Error(`the ${region} NATS server is not started`);
    return n;
  }

  /** The internal port of a process (`HEALTH_PORT`): its own /health/live, /health/ready and /metrics. */
  healthUrl(region: Region, service: ServiceName): string {
    const port = this.healthPorts.get(`${region}/${service}`);
    if (port === undefined) throw new Error(`no internal port for ${region}/${service}: start or startNats first`);
    return `http://127.0.0.1:${port}`;
  }

  /** A connection to the region's NATS as `identity` (tests play an operator, a reader, or a service). */
  connectNats(region: Region, identity: NatsIdentity, name = `${identity}-${region}-test`): Promise<NatsConnection> {
    const n = this.nats(region);
    return connectNats(n.url, name, n.credentials(identity));
  }

  /**
   * Starts each region's nats-server and picks every process's ports (part of `start`; alone when a test starts
   * services one by one).
   */
  async startNats(): Promise<void> {
    await this.allocatePorts();
    for (const r of this.opts.regions) {
      if (this.natsServers.has(r)) continue;
      const server = new NatsServer({
        root: subjectRoot(r, this.opts.isolationPrefix ?? ''),
        port: this.opts.nats?.port?.(r) ?? (await freePort()),
        dir: this.opts.nats?.dir?.(r),
        password: this.opts.nats?.password ? (id) => this.opts.nats!.password!(r, id) : undefined,
        includeTestIdentities: true,
        output: this.opts.output ? (line) => this.opts.output!(r, 'nats', line) : null,
      });
      this.natsServers.set(r, server);
      await server.start();
    }
  }

  envFor(region: Region, service: ServiceName): Record<string, string> {
    const prefix = this.opts.isolationPrefix ?? '';
    const internal: Record<string, string> = { INTERNAL_AUTH_SECRET: this.internalSecrets[region] };
    for (const [s, urlVar] of Object.entries(INTERNAL_HTTP_SERVICES)) {
      const port = this.internalPorts.get(`${region}/${s}`);
      if (port === undefined) continue;
      if (service === 'gateway') internal[urlVar] = `http://127.0.0.1:${port}`;
      if (service === s) internal.INTERNAL_PORT = String(port);
    }
    const healthPort = this.healthPorts.get(`${region}/${service}`);
    if (healthPort !== undefined) internal.HEALTH_PORT = String(healthPort);
    return {
      ...(process.env as Record<string, string>),
      REGION: region,
      DATABASE_URL: this.opts.databaseUrl(region),
      ...(this.natsServers.has(region) ? this.nats(region).envFor(service as NatsIdentity) : {}),
      NATS_SUBJECT_PREFIX: prefix,
      REDIS_URL: this.opts.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: `${prefix}${region}:`,
      PORT: String(this.opts.ports[region]),
      ...internal,
      ...((service as string) === 'webhook-delivery' && !process.env.WEBHOOK_SECRET_KEY ? { WEBHOOK_SECRET_KEY: devWebhookSecretKey(REPO_ROOT) } : {}),
      // a live session's link points at this region's gateway; its client secret is derived with the region's key
      ...((service as string) === 'sessions'
        ? { CAPTURE_BASE_URL: this.baseUrl(region), ...(process.env.CAPTURE_SECRET_KEY ? {} : { CAPTURE_SECRET_KEY: devCaptureSecretKey(REPO_ROOT, region) }) }
        : {}),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      ...(this.opts.env ?? {}),
      ...(this.opts.serviceEnv?.[service] ?? {}),
    };
  }

  async migrate(region: Region): Promise<void> {
    for (const s of SERVICES) {
      const child = spawn(process.execPath, ['--enable-source-maps', entry(s, 'migrate')], {
        env: this.envFor(region, s),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      child.stdout!.on('data', (d: Buffer) => this.emit(region, s, d));
      const [code] = (await once(child, 'exit')) as [number | null];
      if (code !== 0) throw new Error(`migrating ${region}/${s} failed: ${err.trim()}`);
    }
  }

  private emit(region: Region, service: ServiceName, data: Buffer): void {
    const out = this.opts.output;
    if (!out) return;
    for (const line of data.toString().split('\n')) if (line.trim()) out(region, service, line);
  }

  startService(region: Region, service: ServiceName): ChildProcess {
    const id = `${region}/${service}`;
    this.stopped.delete(id);
    // VERITY_NODE_ARGS: extra flags for service processes, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
    const extra = (process.env.VERITY_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const child = spawn(process.execPath, ['--enable-source-maps', ...extra, entry(service, 'main')], {
      env: this.envFor(region, service),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => this.emit(region, service, d));
    child.stderr!.on('data', (d: Buffer) => this.emit(region, service, d));
    child.on('exit', (code, signal) => {
      if (this.procs.get(id) === child) this.procs.delete(id);
      if (this.closing || this.stopped.has(id)) return;
      this.opts.output?.(region, service, `exited (${signal ?? code})`);
      if (this.opts.restartOnCrash) setTimeout(() => !this.closing && this.startService(region, service), 1000);
    });
    this.procs.set(id, child);
    return child;
  }

  process(region: Region, service: ServiceName): ChildProcess | undefined {
    return this.procs.get(`${region}/${service}`);
  }

  /** Stops one service; `signal` SIGKILL simulates a crash. */
  async stopService(region: Region, service: ServiceName, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const id = `${region}/${service}`;
    this.stopped.add(id);
    const child = this.procs.get(id);
    if (!child || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  }

  /** The internal HTTP port of evidence and id-scan and every process's `HEALTH_PORT`, once per stack. */
  private async allocatePorts(): Promise<void> {
    for (const r of this.opts.regions) {
      for (const s of [...SERVICES, 'gateway'] as const) {
        const id = `${r}/${s}`;
        if (INTERNAL_HTTP_SERVICES[s] && !this.internalPorts.has(id)) this.internalPorts.set(id, await freePort());
        if (!this.healthPorts.has(id)) this.healthPorts.set(id, await freePort());
      }
    }
  }

  async start(): Promise<void> {
    await this.allocatePorts();
    await Promise.all([...this.opts.regions.map((r) => this.migrate(r)), this.startNats()]);
    for (const r of this.opts.regions) {
      for (const s of SERVICES) this.startService(r, s);
      this.startService(r, 'gateway');
    }
    await Promise.all(this.opts.regions.map((r) => this.waitReady(r)));
  }

  /**
   * Until every service of the region answers its own readiness on its internal port (Postgres and NATS; by then
   * evidence and id-scan also listen on their internal HTTP port) and the region's gateway answers ready. Asked
   * of each process, not of the gateway's cached fan-out, so a service just restarted is really serving.
   */
  async waitReady(region: Region, timeoutMs = this.opts.readyTimeoutMs ?? 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const probes = [
      ...SERVICES.map((s) => ({ name: s, url: `${this.healthUrl(region, s)}/health/ready` })),
      { name: 'gateway', url: `${this.baseUrl(region)}/health/ready` },
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
    const all = [...this.procs.values()];
    await Promise.all(
      all.map(async (c) => {
        if (c.exitCode !== null || c.signalCode !== null) return;
        const exited = once(c, 'exit');
        c.kill('SIGTERM');
        const timer = setTimeout(() => c.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }),
    );
    this.procs.clear();
    for (const n of this.natsServers.values()) await n.stop();
    this.natsServers.clear();
  }
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
