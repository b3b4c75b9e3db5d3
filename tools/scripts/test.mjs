#!/usr/bin/env node
// `npm test` after the build: unit tests, then integration tests against real Postgres/Redis/NATS, then
// end-to-end tests over HTTP against both regional stacks. Prints one closing line "tests: N passed, N failed"
// and exits non-zero on any failure.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { checkInfrastructure, freePort, SERVICES, Stack } from '../stack/dist/src/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = randomBytes(3).toString('hex');
const ADMIN_URL = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TEMPLATE = `verity_tpl_${run}`;
const only = process.argv[2]; // optional: unit | int | e2e | replicas
const match = process.argv[3]; // optional, with a layer: only test files whose path contains this

function find(dir, suffix, out = []) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const e of entries) {
    if (e === 'node_modules') continue;
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) find(p, suffix, out);
    else if (p.endsWith(suffix)) out.push(p);
  }
  return out;
}

function distFiles(sub, suffix) {
  const files = [];
  for (const top of ['libs', 'apps', 'tools', 'e2e']) {
    const base = path.join(root, top);
    const projects = top === 'e2e' ? [base] : readdirSync(base).map((p) => path.join(base, p));
    for (const p of projects) files.push(...find(path.join(p, 'dist', sub), suffix));
  }
  return selected(files);
}

/**
 * The replicas test (three processes of every app of a region, 24 of its own) runs alone, after every other
 * end-to-end test of `npm test`, never beside them; `npm run test:replicas` runs it by itself.
 */
const REPLICAS_SPEC = path.join(root, 'e2e', 'dist', 'src', 'replicas.e2e-spec.js');

/** The files to run, in a stable order: all, or those whose path contains the optional filter. */
function selected(files) {
  return files.filter((f) => !match || f.includes(match)).sort();
}

const totals = { pass: 0, fail: 0 };

function nodeTest(label, files, env, concurrency) {
  if (files.length === 0) return Promise.resolve();
  process.stdout.write(`\n== ${label}: ${files.length} files\n`);
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--enable-source-maps', '--test', `--test-concurrency=${concurrency}`, '--test-timeout=300000', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${path.join(root, `.test-${label}.tap`)}`, ...files],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    child.on('exit', async (code) => {
      const { readFileSync } = await import('node:fs');
      const tap = readFileSync(path.join(root, `.test-${label}.tap`), 'utf8');
      const pass = Number(/^# pass (\d+)/m.exec(tap)?.[1] ?? 0);
      const fail = Number(/^# fail (\d+)/m.exec(tap)?.[1] ?? 0) + Number(/^# cancelled (\d+)/m.exec(tap)?.[1] ?? 0);
      totals.pass += pass;
      totals.fail += fail + (code !== 0 && fail === 0 ? 1 : 0);
      process.stdout.write(`== ${label}: ${pass} passed, ${fail} failed\n`);
      resolve();
    });
  });
}

async function pgAdmin(sql) {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

function dbUrl(name) {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

function migrateInto(dbName) {
  return Promise.all(
    SERVICES.map(
      (s) =>
        new Promise((resolve, reject) => {
          const c = spawn(process.execPath, [path.join(root, 'apps', s, 'dist', 'src', 'migrate.js')], {
            env: { ...process.env, REGION: 'us', DATABASE_URL: dbUrl(dbName) },
            stdio: ['ignore', 'ignore', 'inherit'],
          });
          c.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`migrating ${s} failed`))));
        }),
    ),
  );
}

/**
 * A self-signed certificate for 127.0.0.1, ::1 and localhost: the HTTPS webhook receivers of the tests serve
 * it and the services under test trust it through NODE_EXTRA_CA_CERTS.
 */
function makeTestCert() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'verity-tls-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=verity test receiver', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
    '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' });
  return { dir, cert, key };
}


// the integration tests use the open NATS on 4222; the e2e stacks run nats-servers of their own
const problems = await checkInfrastructure({
  postgresUrl: ADMIN_URL,
  redisUrl: 'redis://127.0.0.1:6379',
  natsUrl: !only || only === 'int' ? 'nats://127.0.0.1:4222' : undefined,
});
if (problems.length) {
  for (const p of problems) console.error(p);
  process.exit(1);
}

const started = Date.now();
let stack;
const cleanups = [];
try {
  if (!only || only === 'unit') await nodeTest('unit', distFiles('src', '.spec.js'), {}, 2);

  const needsDatabase = !only || only === 'int' || only === 'e2e' || only === 'replicas';
  if (needsDatabase) {
    // Nothing may be connected to a template while it is cloned: migrate serially (the services run their
    // migrations one after another), then clone per test file.
    await pgAdmin(`CREATE DATABASE "${TEMPLATE}"`);
    cleanups.push(() => pgAdmin(`DROP DATABASE IF EXISTS "${TEMPLATE}" WITH (FORCE)`));
    await migrateInto(TEMPLATE);
  }
  const testEnv = { TEST_TEMPLATE_DB: TEMPLATE, TEST_PG_ADMIN_URL: ADMIN_URL, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' };
  if (needsDatabase) {
    const tls = makeTestCert();
    cleanups.push(async () => rmSync(tls.dir, { recursive: true, force: true }));
    Object.assign(testEnv, { WEBHOOK_TEST_TLS_CERT: tls.cert, WEBHOOK_TEST_TLS_KEY: tls.key, NODE_EXTRA_CA_CERTS: tls.cert });
  }

  if (!only || only === 'int') await nodeTest('integration', distFiles('test', '.int-spec.js'), testEnv, 2);

  if (!only || only === 'e2e') {
    const dbs = { us: `vt_e2e_us_${run}`, eu: `vt_e2e_eu_${run}` };
    for (const name of Object.values(dbs)) {
      await pgAdmin(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE}"`);
      cleanups.push(() => pgAdmin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    }
    const prefix = `e2e${run}_`;
    const ports = { us: await freePort(), eu: await freePort() };
    stack = new Stack({
      regions: ['us', 'eu'],
      ports,
      consolePorts: { us: await freePort(), eu: await freePort() },
      // two regions of nine processes each, starting together on a small machine
      readyTimeoutMs: 120_000,
      databaseUrl: (r) => dbUrl(dbs[r]),
      isolationPrefix: prefix,
      env: { LOG_LEVEL: 'warn', TRUSTED_PROXIES: '127.0.0.1', RPC_TIMEOUT_MS: '3000' },
      serviceEnv: {
        sessions: { CAPTURE_SECRET_KEY: randomBytes(32).toString('base64') },
        // one reader thread per region: two regions' stacks share two cores
        evidence: { READING_THREADS: '1' },
        // receivers of the tests run on loopback with the test certificate; retries compressed to seconds
        'webhook-delivery': {
          WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
          WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s',
          NODE_EXTRA_CA_CERTS: testEnv.NODE_EXTRA_CA_CERTS,
          WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
        },
      },
      output: (r, s, line) => process.stderr.write(`[e2e ${r}/${s}] ${line}\n`),
    });
    await stack.start();
    process.stdout.write(`e2e stacks ready in ${((Date.now() - started) / 1000).toFixed(1)}s since start\n`);
    // the identities the tests connect to each region's NATS as: the operator, the stream reader, and sessions
    // (tests that ask evidence what a session's run would see)
    const nats = Object.fromEntries(
      ['us', 'eu'].map((r) => [r, { url: stack.nats(r).url, passwords: Object.fromEntries(['operator', 'test-reader', 'sessions'].map((id) => [id, stack.nats(r).passwords.get(id)])) }]),
    );
    await nodeTest('e2e', selected(find(path.join(root, 'e2e', 'dist'), '.e2e-spec.js')).filter((f) => f !== REPLICAS_SPEC), {
      ...testEnv,
      E2E_US_URL: stack.baseUrl('us'),
      E2E_EU_URL: stack.baseUrl('eu'),
      E2E_CONSOLE_US_URL: stack.consoleUrl('us'),
      E2E_CONSOLE_EU_URL: stack.consoleUrl('eu'),
      E2E_PREFIX: prefix,
      E2E_NATS: JSON.stringify(nats),
      E2E_DB_US: dbUrl(dbs.us),
      E2E_DB_EU: dbUrl(dbs.eu),
    }, 2);
  }

  if (!only || only === 'replicas') await nodeTest('replicas', [REPLICAS_SPEC], testEnv, 1);
} catch (e) {
  console.error(e);
  totals.fail += 1;
} finally {
  if (stack) await stack.stop();
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
}
process.stdout.write(`\nfinished in ${((Date.now() - started) / 1000).toFixed(1)}s\n`);
process.stdout.write(`tests: ${totals.pass} passed, ${totals.fail} failed\n`);
process.exit(totals.fail > 0 || totals.pass === 0 ? 1 : 0);
