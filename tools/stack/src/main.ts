import path from 'node:path';
import { parseArgs } from 'node:util';
import { LOCAL_NATS_PORTS } from '@verity/contracts';
import { devNatsPassword, devObjectKey } from './dev-keys.js';
import { checkGivenServers } from './infra/check.js';
import { claimCheckout, LocalInfra } from './infra/local.js';
import { OBJECT_STORE_CREDENTIALS, ObjectStoreServer } from './infra/object-store.js';
import { freePort, parseReplicas, REPO_ROOT, SERVICES, Stack, type Region, type Replicas, type ServiceName } from './stack.js';

/**
 * `npm start`: both regional stacks on local infrastructure, in the foreground until Ctrl-C.
 * `npm start -- --replicas 3` runs three processes of every app, `--replicas sessions=3,webhook-delivery=2` those
 * apps' (docs/scaling.md). `npm start -- --object-store` keeps evidence images in a local S3-compatible object store
 * (a bucket per region) instead of Postgres (docs/evidence.md, "Where the bytes are").
 */
const started = Date.now();
let replicas: Replicas | undefined;
let withObjectStore = false;
try {
  const { values } = parseArgs({ options: { replicas: { type: 'string' }, 'object-store': { type: 'boolean' } } });
  replicas = values.replicas === undefined ? undefined : parseReplicas(values.replicas);
  withObjectStore = values['object-store'] === true;
} catch (e) {
  process.stderr.write(`verity: ${(e as Error).message}\nusage: npm start [-- --replicas <n> | --replicas <app>=<n>,…] [--object-store]\n`);
  process.exit(2);
}
const regions: Region[] = ['us', 'eu'];
const say = (line: string) => process.stdout.write(`verity: ${line}\n`);
const fail = async (message: string): Promise<never> => {
  process.stderr.write(`verity: ${message}\n`);
  await infra?.stop();
  process.exit(1);
};

// Postgres and Redis: the servers DATABASE_URL and REDIS_URL name, or servers of the checkout's own under .verity/
// (docs/operations.md, "Local infrastructure"). DATABASE_URL names a server: each region's database on it is
// verity_<region>, unless DATABASE_URL_US / DATABASE_URL_EU name a region's own.
const given = { postgresUrl: process.env.DATABASE_URL, redisUrl: process.env.REDIS_URL };
const problems = await checkGivenServers(given);
if (problems.length > 0) {
  for (const p of problems) process.stderr.write(`verity: ${p}\n`);
  process.exit(1);
}
let infra: LocalInfra | undefined;
try {
  claimCheckout(path.join(REPO_ROOT, '.verity'));
  infra = await LocalInfra.start({ dir: path.join(REPO_ROOT, '.verity'), keep: true, nats: false, freePort, say, given });
} catch (e) {
  await fail((e as Error).message);
}
const local = infra!;
say(`infrastructure: ${local.summary.join(', ')}`);
// the object store (--object-store): one server, a bucket per region, its objects under .verity/objects
const bucketOf = (r: Region) => `verity-evidence-${r}`;
let objects: ObjectStoreServer | undefined;
if (withObjectStore) {
  try {
    objects = await ObjectStoreServer.start(
      regions.map((r) => bucketOf(r)),
      { port: Number(process.env.OBJECT_STORE_PORT ?? 9100), directory: path.join(REPO_ROOT, '.verity', 'objects') },
    );
  } catch (e) {
    await fail((e as Error).message);
  }
  say(`object store ${objects!.endpoint} (buckets ${regions.map((r) => bucketOf(r)).join(', ')})`);
}
const databaseUrl = (r: Region) => process.env[`DATABASE_URL_${r.toUpperCase()}`] ?? local.databaseUrl(`verity_${r}`);

const stack = new Stack({
  regions,
  ports: { us: Number(process.env.PORT_US ?? 8080), eu: Number(process.env.PORT_EU ?? 8081) },
  consolePorts: { us: Number(process.env.CONSOLE_PORT_US ?? 8090), eu: Number(process.env.CONSOLE_PORT_EU ?? 8091) },
  databaseUrl,
  // each region's own nats-server: its port, its JetStream store and its identities' passwords under .verity/
  nats: {
    port: (r) => Number(process.env[`NATS_PORT_${r.toUpperCase()}`] ?? LOCAL_NATS_PORTS[r]),
    dir: (r) => path.join(REPO_ROOT, '.verity', `nats-${r}`),
    password: (r, identity) => devNatsPassword(REPO_ROOT, r, identity),
  },
  redisUrl: local.redisUrl,
  regionEnv: (r, service): Record<string, string> =>
    objects && service === 'evidence'
      ? {
          EVIDENCE_STORE: 's3',
          EVIDENCE_S3_ENDPOINT: objects.endpoint,
          EVIDENCE_S3_BUCKET: bucketOf(r),
          EVIDENCE_S3_ACCESS_KEY_ID: OBJECT_STORE_CREDENTIALS.accessKeyId,
          EVIDENCE_S3_SECRET_ACCESS_KEY: OBJECT_STORE_CREDENTIALS.secretAccessKey,
          EVIDENCE_OBJECT_KEY: process.env.EVIDENCE_OBJECT_KEY ?? devObjectKey(REPO_ROOT, r),
        }
      : {},
  restartOnCrash: true,
  replicas,
  // three minutes for a region's eight processes (a busy or small machine loads them slowly), as long again for
  // every eight more (replicas start side by side)
  readyTimeoutMs: 180_000 * Math.ceil((['gateway', ...SERVICES] as ServiceName[]).reduce((n, a) => n + replicaCount(replicas, a), 0) / 8),
  output: (region, service, line, replica) =>
    process.stdout.write(`[${region}/${service}${service !== 'nats' && stack.replicas(service) > 1 ? `#${replica}` : ''}] ${line}\n`),
});

function replicaCount(r: Replicas | undefined, app: ServiceName): number {
  return r === undefined ? 1 : typeof r === 'number' ? r : (r[app] ?? 1);
}

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`verity: ${signal}, stopping both regions…\n`);
  await stack.stop();
  await objects?.close();
  await local.stop();
  process.stdout.write('verity: stopped\n');
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

try {
  await stack.start();
} catch (e) {
  await stack.stop();
  await objects?.close();
  await fail((e as Error).message);
}
const secs = ((Date.now() - started) / 1000).toFixed(1);
process.stdout.write(`verity: ready in ${secs}s — us ${stack.baseUrl('us')}  eu ${stack.baseUrl('eu')}  (Ctrl-C stops)\n`);
process.stdout.write(`verity: consoles — us ${stack.consoleUrl('us')}  eu ${stack.consoleUrl('eu')} (npm run admin -- user create … makes a sign-in)\n`);
if (replicas !== undefined) {
  const apps = ['gateway', ...SERVICES] as const;
  process.stdout.write(`verity: replicas per region: ${apps.map((a) => `${a} ${stack.replicas(a)}`).join(', ')} (docs/scaling.md)\n`);
}
process.stdout.write(`verity: NATS us ${stack.nats('us').url}  eu ${stack.nats('eu').url}; npm run admin logs in as the operator from .verity/\n`);
