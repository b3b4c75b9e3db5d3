import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ServerProcess } from './infra/process.js';
import {
  NATS_GRANTS,
  NATS_IDENTITIES,
  NATS_PASSWORD_FORMAT,
  NATS_ROUTE_USER,
  NATS_ROUTES_VARIABLE,
  NATS_SYSTEM_USER,
  natsPasswordVariable,
  natsRoutesValue,
  natsServerConfig,
  newNatsPassword,
  type NatsIdentity,
} from '@verity/contracts';

/** The nats-server binary: NATS_SERVER_BIN, else `nats-server` on the PATH. */
export const NATS_SERVER_BIN = process.env.NATS_SERVER_BIN ?? 'nats-server';

export interface NatsServerOptions {
  /** The region's subject root. */
  root: string;
  port: number;
  /** Directory of the configuration and the JetStream store; a temporary one (removed on stop) when absent. */
  dir?: string;
  /** Password of each identity; random ones when absent. */
  password?: (identity: NatsIdentity) => string;
  /** Grant the test-only identities too (local stack and tests). */
  includeTestIdentities?: boolean;
  /**
   * The configuration to run instead of the generated one (tests of the shipped file): `listen`, the store and the
   * TLS files (`tls`) are replaced; the cluster block is dropped, or kept on loopback with `cluster`.
   */
  config?: string;
  /** With `config`: the certificate (of 127.0.0.1), key and CA that replace the shipped files; clients connect with the CA. */
  tls?: { certFile: string; keyFile: string; caFile: string };
  /**
   * With `config`: keep its cluster block, this server named `name` with its route port on `port` of loopback, and
   * these route URLs (`nats://127.0.0.1:<port>`), to which the route credentials are added.
   */
  cluster?: { name: string; port: number; routes: string[] };
  /** The route port's password (`routePassword` by default) and the system user's; random ones when absent. */
  routePassword?: string;
  systemPassword?: string;
  output?: ((line: string) => void) | null;
}

/** A region's own nats-server, configured from NATS_GRANTS, with one password per identity. */
export class NatsServer {
  private server: ServerProcess | undefined;
  private readonly temporary: boolean;
  readonly dir: string;
  readonly passwords = new Map<NatsIdentity, string>();
  /** The passwords of the route user and of the system account's user (used by configurations that have them). */
  readonly routePassword: string;
  readonly systemPassword: string;

  constructor(readonly opts: NatsServerOptions) {
    this.temporary = !opts.dir;
    this.dir = opts.dir ?? mkdtempSync(path.join(os.tmpdir(), 'verity-nats-'));
    for (const id of NATS_IDENTITIES) {
      if (NATS_GRANTS[id].testOnly && !opts.includeTestIdentities) continue;
      const password = opts.password?.(id) ?? newNatsPassword();
      if (!NATS_PASSWORD_FORMAT.test(password)) throw new Error(`the NATS password of ${id} is not letters and digits starting with a letter`);
      this.passwords.set(id, password);
    }
    this.routePassword = opts.routePassword ?? newNatsPassword();
    this.systemPassword = opts.systemPassword ?? newNatsPassword();
  }

  get url(): string {
    return `nats://127.0.0.1:${this.opts.port}`;
  }

  /** The environment a process of `identity` connects with (NATS_URL, NATS_USER, NATS_PASSWORD, and NATS_TLS_CA over TLS). */
  envFor(identity: NatsIdentity): Record<string, string> {
    const password = this.passwords.get(identity);
    if (password === undefined) throw new Error(`no NATS identity ${identity} on this server`);
    return { NATS_URL: this.url, NATS_USER: identity, NATS_PASSWORD: password, ...(this.opts.tls ? { NATS_TLS_CA: this.opts.tls.caFile } : {}) };
  }

  /** Connection credentials of `identity`, for `connectNats` of @verity/platform. */
  credentials(identity: NatsIdentity): { identity: NatsIdentity; password: string; tlsCa?: string } {
    return { identity, password: this.envFor(identity).NATS_PASSWORD!, ...(this.opts.tls ? { tlsCa: this.opts.tls.caFile } : {}) };
  }

  /** The system account's user (`nats server …`), for `connect` of nats.js. */
  systemLogin(): { user: string; pass: string; tls?: { caFile: string } } {
    return { user: NATS_SYSTEM_USER, pass: this.systemPassword, ...(this.opts.tls ? { tls: { caFile: this.opts.tls.caFile } } : {}) };
  }

  async start(): Promise<void> {
    mkdirSync(path.join(this.dir, 'jetstream'), { recursive: true, mode: 0o700 });
    const conf = path.join(this.dir, 'nats-server.conf');
    const listen = `127.0.0.1:${this.opts.port}`;
    const storeDir = path.join(this.dir, 'jetstream');
    const { tls, cluster } = this.opts;
    let text =
      this.opts.config
        ?.replace(/^listen: .*$/m, `listen: ${JSON.stringify(listen)}`)
        .replace(/^jetstream \{ store_dir: .* \}$/m, `jetstream { store_dir: ${JSON.stringify(storeDir)} }`)
        .replace(/^http_port: .*\n/m, '') ??
      natsServerConfig({ root: this.opts.root, listen, storeDir, includeTestIdentities: this.opts.includeTestIdentities });
    if (this.opts.config && tls) {
      text = text
        .replace(/^( *cert_file: ).*$/gm, `$1${JSON.stringify(tls.certFile)}`)
        .replace(/^( *key_file: ).*$/gm, `$1${JSON.stringify(tls.keyFile)}`)
        .replace(/^( *ca_file: ).*$/gm, `$1${JSON.stringify(tls.caFile)}`);
    }
    if (this.opts.config && cluster) {
      text = text.replace(/^(cluster \{\n[\s\S]*?\n {2}listen: ).*$/m, `$1${JSON.stringify(`127.0.0.1:${cluster.port}`)}`);
    } else if (this.opts.config) {
      // one local server stands for the cluster: without its peers clustered JetStream would never have a leader
      text = text.replace(/^server_name: .*\n/m, '').replace(/^cluster \{\n[\s\S]*?\n\}\n/m, '');
    }
    writeFileSync(conf, text, { mode: 0o600 });
    // the passwords reach the server through its environment only, as in deploy/
    const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
    for (const [id, pw] of this.passwords) env[natsPasswordVariable(id)] = pw;
    env[natsPasswordVariable(NATS_SYSTEM_USER)] = this.systemPassword;
    env[natsPasswordVariable(NATS_ROUTE_USER)] = this.routePassword;
    if (cluster) {
      env[DEPLOY_SERVER_NAME_VARIABLE] = cluster.name;
      env[DEPLOY_ADVERTISE_VARIABLE] = `127.0.0.1:${cluster.port}`;
      env[NATS_ROUTES_VARIABLE] = natsRoutesValue(cluster.routes, this.routePassword);
    }
    this.server = await ServerProcess.start({
      name: `the nats-server of ${this.opts.root}`,
      command: NATS_SERVER_BIN,
      args: ['-c', conf],
      port: this.opts.port,
      env,
      output: this.opts.output,
      // warnings and errors (a refused login, a permissions violation); not the informational lines, nor the
      // warning that passwords are plain text: the server reads them from its environment by design (docs/decisions.md)
      shows: (line) => !/\[(INF|DBG|TRC)\]|Plaintext passwords detected/.test(line),
    });
  }

  async stop(): Promise<void> {
    await this.server?.stop();
    this.server = undefined;
    if (this.temporary) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Servers of a region's NATS StatefulSet (deploy/base/nats.yaml, replicas): three, so that the event stream keeps 3 replicas. */
export const DEPLOY_NATS_SERVERS = 3;

/** Every server's route URL in deploy/ (the StatefulSet's pods through the headless Service), without credentials. */
export const DEPLOY_NATS_ROUTES = Array.from({ length: DEPLOY_NATS_SERVERS }, (_, i) => `nats://nats-${i}.nats-headless:6222`);

/**
 * Where the nats pods mount the Secret `verity-nats-tls` (cert-manager's keys: `tls.crt`, `tls.key`, `ca.crt`):
 * the servers' certificate, for clients and routes alike, and the CA that signs it.
 */
export const DEPLOY_NATS_TLS_DIR = '/etc/nats-tls';

/** Variables of the nats pods' environment the shipped configuration reads besides the passwords (deploy/base/nats.yaml). */
export const DEPLOY_SERVER_NAME_VARIABLE = 'POD_NAME';
export const DEPLOY_ADVERTISE_VARIABLE = 'NATS_CLUSTER_ADVERTISE';

/**
 * Writes `natsServerConfig` for deploy/: the region's root, listening on all interfaces, store in /data, clustered
 * over the StatefulSet's pods (`nats-0.nats-headless`, … through the headless Service), each named after its pod;
 * clients over TLS, routes over TLS with verification both ways and a password, and the system account.
 */
export function deployNatsConfig(region: 'us' | 'eu'): string {
  const dir = DEPLOY_NATS_TLS_DIR;
  const cert = { certFile: `${dir}/tls.crt`, keyFile: `${dir}/tls.key` };
  return natsServerConfig({
    root: region,
    listen: '0.0.0.0:4222',
    storeDir: '/data/jetstream',
    httpPort: 8222,
    tls: cert,
    cluster: {
      serverName: `$${DEPLOY_SERVER_NAME_VARIABLE}`,
      name: `verity-${region}`,
      listen: '0.0.0.0:6222',
      routes: DEPLOY_NATS_ROUTES,
      advertise: `$${DEPLOY_ADVERTISE_VARIABLE}`,
      tls: { ...cert, caFile: `${dir}/ca.crt` },
      authorization: true,
    },
    systemAccount: true,
  });
}

/** The file of a region's shipped configuration, relative to the repository root. */
export function deployNatsConfigPath(region: 'us' | 'eu'): string {
  return path.join('deploy', 'overlays', region, 'nats-server.conf');
}

export function writeDeployNatsConfigs(repoRoot: string): string[] {
  return (['us', 'eu'] as const).map((r) => {
    const file = path.join(repoRoot, deployNatsConfigPath(r));
    writeFileSync(file, deployNatsConfig(r));
    return file;
  });
}
