import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ServerProcess } from './infra/process.js';
import { NATS_GRANTS, NATS_IDENTITIES, NATS_PASSWORD_FORMAT, natsPasswordVariable, natsServerConfig, newNatsPassword, type NatsIdentity } from '@verity/contracts';

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
  /** The configuration to run instead of the generated one (tests of the shipped file); `listen` and the store are replaced, the cluster block dropped. */
  config?: string;
  output?: ((line: string) => void) | null;
}

/** A region's own nats-server, configured from NATS_GRANTS, with one password per identity. */
export class NatsServer {
  private server: ServerProcess | undefined;
  private readonly temporary: boolean;
  readonly dir: string;
  readonly passwords = new Map<NatsIdentity, string>();

  constructor(readonly opts: NatsServerOptions) {
    this.temporary = !opts.dir;
    this.dir = opts.dir ?? mkdtempSync(path.join(os.tmpdir(), 'verity-nats-'));
    for (const id of NATS_IDENTITIES) {
      if (NATS_GRANTS[id].testOnly && !opts.includeTestIdentities) continue;
      const password = opts.password?.(id) ?? newNatsPassword();
      if (!NATS_PASSWORD_FORMAT.test(password)) throw new Error(`the NATS password of ${id} is not letters and digits starting with a letter`);
      this.passwords.set(id, password);
    }
  }

  get url(): string {
    return `nats://127.0.0.1:${this.opts.port}`;
  }

  /** The environment a process of `identity` connects with (NATS_URL, NATS_USER, NATS_PASSWORD). */
  envFor(identity: NatsIdentity): Record<string, string> {
    const password = this.passwords.get(identity);
    if (password === undefined) throw new Error(`no NATS identity ${identity} on this server`);
    return { NATS_URL: this.url, NATS_USER: identity, NATS_PASSWORD: password };
  }

  /** Connection credentials of `identity`, for `connectNats` of @verity/platform. */
  credentials(identity: NatsIdentity): { identity: NatsIdentity; password: string } {
    return { identity, password: this.envFor(identity).NATS_PASSWORD! };
  }

  async start(): Promise<void> {
    mkdirSync(path.join(this.dir, 'jetstream'), { recursive: true, mode: 0o700 });
    const conf = path.join(this.dir, 'nats-server.conf');
    const listen = `127.0.0.1:${this.opts.port}`;
    const storeDir = path.join(this.dir, 'jetstream');
    const text =
      this.opts.config
        ?.replace(/^listen: .*$/m, `listen: ${JSON.stringify(listen)}`)
        .replace(/^jetstream \{ store_dir: .* \}$/m, `jetstream { store_dir: ${JSON.stringify(storeDir)} }`)
        .replace(/^http_port: .*\n/m, '')
        // one local server stands for the cluster: without its peers clustered JetStream would never have a leader
        .replace(/^server_name: .*\n/m, '')
        .replace(/^cluster \{\n[\s\S]*?\n\}\n/m, '') ??
      natsServerConfig({ root: this.opts.root, listen, storeDir, includeTestIdentities: this.opts.includeTestIdentities });
    writeFileSync(conf, text, { mode: 0o600 });
    // the passwords reach the server through its environment only, as in deploy/
    const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
    for (const [id, pw] of this.passwords) env[natsPasswordVariable(id)] = pw;
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

/**
 * Writes `natsServerConfig` for deploy/: the region's root, listening on all interfaces, store in /data, clustered
 * over the StatefulSet's pods (`nats-0.nats-headless`, … through the headless Service), each named after its pod.
 */
export function deployNatsConfig(region: 'us' | 'eu'): string {
  const routes = Array.from({ length: DEPLOY_NATS_SERVERS }, (_, i) => `nats://nats-${i}.nats-headless:6222`);
  return natsServerConfig({
    root: region,
    listen: '0.0.0.0:4222',
    storeDir: '/data/jetstream',
    httpPort: 8222,
    cluster: { serverName: '$POD_NAME', name: `verity-${region}`, listen: '0.0.0.0:6222', routes },
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
