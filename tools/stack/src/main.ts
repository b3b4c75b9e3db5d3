import path from 'node:path';
import { LOCAL_NATS_PORTS } from '@verity/contracts';
import { defaultDatabaseUrl } from '@verity/platform';
import { devNatsPassword } from './dev-keys.js';
import { checkInfrastructure } from './infra.js';
import { REPO_ROOT, Stack, type Region } from './stack.js';

/** `npm start`: both regional stacks on local infrastructure, in the foreground until Ctrl-C. */
const started = Date.now();
const regions: Region[] = ['us', 'eu'];
const databaseUrl = (r: Region) => process.env[`DATABASE_URL_${r.toUpperCase()}`] ?? defaultDatabaseUrl(r);

const problems = await checkInfrastructure({
  postgresUrl: databaseUrl('us'),
  redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
});
if (problems.length > 0) {
  for (const p of problems) process.stderr.write(`verity: ${p}\n`);
  process.exit(1);
}

const stack = new Stack({
  regions,
  ports: { us: Number(process.env.PORT_US ?? 8080), eu: Number(process.env.PORT_EU ?? 8081) },
  databaseUrl,
  // each region's own nats-server: its port, its JetStream store and its identities' passwords under .verity/
  nats: {
    port: (r) => Number(process.env[`NATS_PORT_${r.toUpperCase()}`] ?? LOCAL_NATS_PORTS[r]),
    dir: (r) => path.join(REPO_ROOT, '.verity', `nats-${r}`),
    password: (r, identity) => devNatsPassword(REPO_ROOT, r, identity),
  },
  restartOnCrash: true,
  output: (region, service, line) => process.stdout.write(`[${region}/${service}] ${line}\n`),
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`verity: ${signal}, stopping both regions…\n`);
  await stack.stop();
  process.stdout.write('verity: stopped\n');
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

try {
  await stack.start();
} catch (e) {
  process.stderr.write(`verity: ${(e as Error).message}\n`);
  await stack.stop();
  process.exit(1);
}
const secs = ((Date.now() - started) / 1000).toFixed(1);
process.stdout.write(`verity: ready in ${secs}s — us ${stack.baseUrl('us')}  eu ${stack.baseUrl('eu')}  (Ctrl-C stops)\n`);
process.stdout.write(`verity: NATS us ${stack.nats('us').url}  eu ${stack.nats('eu').url}; npm run admin logs in as the operator from .verity/\n`);
