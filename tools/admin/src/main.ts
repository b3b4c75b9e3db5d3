import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOCAL_NATS_PORTS, subjectRoot } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { newId } from '@verity/keys';
// the NATS client alone: the CLI starts without loading Nest or TypeORM
import { connectNats, natsCredentialsOf, RpcClient } from '@verity/platform/nats';
import { parseArgs, UsageError } from './args.js';
import { runCommand, USAGE } from './commands.js';

function fail(code: string, message: string, exit: number): never {
  process.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
  process.exit(exit);
}

const PREFIX = process.env.NATS_SUBJECT_PREFIX ?? '';

let args;
try {
  args = parseArgs(process.argv.slice(2));
  if (args.words.length === 0 || args.flags.help !== undefined) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const region = args.flags.region;
  if (region !== 'us' && region !== 'eu') throw new UsageError('--region must be us or eu');
} catch (e) {
  fail('usage', `${(e as Error).message}\n${USAGE}`, 2);
}

const region = args.flags.region as 'us' | 'eu';
// without NATS_URL: the local stack of this checkout (npm start), whose operator password is in .verity/
const local = process.env.NATS_URL === undefined;
const NATS_URL = process.env.NATS_URL ?? `nats://127.0.0.1:${process.env[`NATS_PORT_${region.toUpperCase()}`] ?? LOCAL_NATS_PORTS[region]}`;
const credentials = natsCredentialsOf(process.env, 'operator');
if (local && !credentials.password && !credentials.nkeySeed) credentials.password = localOperatorPassword(region);

/** The operator password `npm start` generated for a region of this checkout, if it ran here. */
function localOperatorPassword(r: string): string | undefined {
  const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
  try {
    return readFileSync(path.join(repoRoot, '.verity', `nats-${r}-operator.key`), 'utf8').trim();
  } catch {
    return undefined;
  }
}

let nc;
try {
  // the operator identity: the only one the region's NATS lets call the admin subjects (docs/security.md, "NATS")
  nc = await connectNats(NATS_URL, 'admin-cli', credentials);
} catch (e) {
  if (/authorization violation|authentication/i.test((e as Error).message)) {
    fail('authentication_required', `NATS at ${NATS_URL} refused the operator credentials: check NATS_USER and NATS_PASSWORD (or NATS_NKEY_SEED)`, 1);
  }
  fail('service_unavailable', `NATS is not reachable at ${NATS_URL}`, 1);
}
const rpc = new RpcClient(nc, subjectRoot(region, PREFIX), Number(process.env.RPC_TIMEOUT_MS ?? 5000));
try {
  const out = await runCommand(args, rpc, newId('request'));
  process.stdout.write(`${JSON.stringify(out)}\n`);
  await nc.close();
} catch (e) {
  await nc.close();
  if (e instanceof UsageError) fail('usage', `${e.message}\n${USAGE}`, 2);
  if (e instanceof DomainError) {
    const msg = e.code === 'service_unavailable' ? `the ${args.flags.region} services did not answer; is the stack running?` : e.message;
    fail(e.code, msg, 1);
  }
  fail('internal_error', (e as Error).message, 1);
}
