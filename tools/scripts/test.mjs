#!/usr/bin/env node
// `npm test`: build, then lint and the tests — unit (pure), integration (one service against real
// Postgres/Redis/NATS), end-to-end (both regional stacks over HTTP, as a client would), replicas — on servers of its
// own under .verity/test (or those DATABASE_URL, REDIS_URL and NATS_URL name). Prints the time of each layer and
// the slowest files, one closing line "tests: N passed, N failed", and exits non-zero on any failure.
//
//   npm test                          everything
//   npm test -- unit|int|e2e|replicas only that layer (build first, no lint)
//   npm test -- e2e capture idem      only the layer's files whose path contains "capture" or "idem"
//   npm test -- --project sessions    every layer of one project (apps/<name>, libs/<kind>/<name> or tools/<name>)
//
// How the layers share two cores (docs/architecture.md, "Tests"): each test file runs in a process of its own, but
// a project's unit files share one.
// Files that work the CPU (lint, unit, integration, and the end-to-end files on the shared two-region stack) run
// two at a time; end-to-end files with a stack of their own (crashes, outages, faults), which spend most of their
// time waiting for a lease to end or a process to come back, run two at a time beside them, and once those are
// done their two places take CPU files too. The servers, the
// migrated template database and the shared stack start while the unit tests run. The replicas test (24
// processes) runs alone at the end.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LAYERS = ['unit', 'int', 'e2e', 'replicas'];
/** Files run at once: those that work the CPU, and end-to-end files with a stack of their own (mostly waiting). */
const CONCURRENCY = { cpu: 2, waits: 2 };
const { values: flags, positionals } = parseArgs({ allowPositionals: true, options: { project: { type: 'string' } } });
const only = positionals[0];
if (only && !LAYERS.includes(only)) {
  console.error(`unknown layer "${only}": one of ${LAYERS.join(', ')}`);
  process.exit(2);
}
const project = flags.project;
const matches = positionals.slice(1);
const matching = (f) => matches.length === 0 || matches.some((m) => f.includes(m));
const wanted = (layer) => !only || only === layer;

const started = Date.now();
// every process of the run (test files, stacks, migrations) shares Node's on-disk compile cache: a module compiled
// once is not compiled again by the next process that loads it
process.env.NODE_COMPILE_CACHE ??= path.join(root, '.verity', 'compile-cache');
const secondsSince = (t) => (Date.now() - t) / 1000;

/**
 * CPU seconds this runner and its finished children used so far (Linux: /proc/self/stat's utime, stime, cutime and
 * cstime): what the run cost the machine, whatever else it ran meanwhile.
 */
function cpuSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return NaN;
  }
}

// ---- the end of a run, whatever ends it: cleanups, the times, the verdict
const steps = []; // [label, seconds]
const layers = new Map(); // label → { first, last, files, seconds, pass, fail }
const fileTimes = []; // [seconds, label, file, cpu seconds]
/**
 * The CPU seconds of a task that just ended: the runner's children's CPU counted since the last child ended (the
 * kernel adds a child's CPU, and that of the children it waited for, when it is reaped). A task's own stack is in it.
 */
let reapedCpu = 0;
function cpuOfEnded() {
  const now = cpuSeconds();
  const used = now - reapedCpu;
  reapedCpu = now;
  return used;
}
const totals = { pass: 0, fail: 0 };
const cleanups = [];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'verity-test-'));
cleanups.push(async () => rmSync(tmp, { recursive: true, force: true }));
let finishing = false;
/** Test files running now: stopped if the run ends early. */
const running = new Set();
cleanups.push(async () => {
  for (const child of running) child.kill('SIGTERM');
});

async function finish(problem) {
  if (finishing) return;
  finishing = true;
  if (problem) {
    console.error(`\n${problem}`);
    totals.fail += 1;
  }
  for (const c of cleanups.reverse()) await c().catch((e) => console.error(`cleanup: ${e.message}`));
  const row = (label, text) => process.stdout.write(`${label.padEnd(12)} ${text}\n`);
  process.stdout.write(`\n== times\n`);
  for (const [label, s] of steps) row(label, `${s.toFixed(1).padStart(7)} s`);
  for (const [label, l] of layers) {
    row(label, `${((l.last - l.first) / 1000).toFixed(1).padStart(7)} s from its first file's start to its last file's end; ${l.files} files, ${l.seconds.toFixed(0)} s in all; ${l.pass} passed, ${l.fail} failed`);
  }
  row('total', `${secondsSince(started).toFixed(1).padStart(7)} s, ${cpuSeconds().toFixed(0)} s of CPU`);
  if (fileTimes.length) {
    process.stdout.write(`\n== slowest files\n`);
    const top = (by) => [...fileTimes].sort((a, b) => b[by] - a[by]).slice(0, 12);
    for (const [s, label, f, cpu] of top(0)) process.stdout.write(`${s.toFixed(1).padStart(7)} s  ${cpu.toFixed(0).padStart(4)} s CPU  ${label.padEnd(8)} ${f}\n`);
    process.stdout.write(`\n== most CPU\n`);
    for (const [s, label, f, cpu] of top(3)) process.stdout.write(`${cpu.toFixed(0).padStart(4)} s CPU  ${s.toFixed(1).padStart(7)} s  ${label.padEnd(8)} ${f}\n`);
  }
  process.stdout.write(`\nfinished in ${secondsSince(started).toFixed(1)}s\n`);
  process.stdout.write(`tests: ${totals.pass} passed, ${totals.fail} failed\n`);
  process.exit(totals.fail > 0 || totals.pass === 0 ? 1 : 0);
}
process.on('SIGINT', () => void finish('interrupted'));
process.on('SIGTERM', () => void finish('interrupted'));

// ---- the build: a failure ends the run
{
  const t = Date.now();
  process.stdout.write(`== build\n`);
  try {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  } catch {
    await finish('build failed');
  }
  steps.push(['build', secondsSince(t)]);
}

const { checkGivenServers, ensureInstalled, freePort, LocalInfra, migrateRoleEnv, onPath, SERVICES, Stack } = await import('../stack/dist/src/index.js');

// ---- which files
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

/** The project folders: apps/<name>, tools/<name>, libs/<kind>/<name> (docs/architecture.md, "Libraries by kind"), e2e. */
const projectDirs = () => [
  ...['apps', 'tools'].flatMap((top) => readdirSync(path.join(root, top)).map((p) => path.join(top, p))),
  ...readdirSync(path.join(root, 'libs')).flatMap((kind) => readdirSync(path.join(root, 'libs', kind)).map((p) => path.join('libs', kind, p))),
];

function projects() {
  const out = [];
  for (const dir of projectDirs()) {
    if (!project || path.basename(dir) === project) out.push(path.join(root, dir));
  }
  if (!project || project === 'e2e') out.push(path.join(root, 'e2e'));
  return out;
}

/** A compiled test whose source is gone (moved or deleted since the last build) is left in dist by tsc: skip it. */
const hasSource = (f) => existsSync(f.replace(`${path.sep}dist${path.sep}`, path.sep).replace(/\.js$/, '.ts'));
const selected = (files) => files.filter((f) => matching(f) && hasSource(f)).sort();
const distFiles = (sub, suffix) => selected(projects().flatMap((p) => find(path.join(p, 'dist', sub), suffix)));
const REPLICAS_SPEC = path.join(root, 'e2e', 'dist', 'src', 'replicas.e2e-spec.js');
const E2E_DIR = path.join(root, 'e2e', 'dist', 'src');
const withE2e = !project || project === 'e2e';
/** End-to-end files that start a stack of their own (crashes, outages, faults). */
const ownsStack = (f) => /startOwnStack\(|new Stack\(/.test(readFileSync(f, 'utf8'));
const e2eFiles = wanted('e2e') && withE2e ? selected(find(E2E_DIR, '.e2e-spec.js')).filter((f) => f !== REPLICAS_SPEC) : [];

const files = {
  unit: wanted('unit') ? distFiles('src', '.spec.js') : [],
  int: wanted('int') ? distFiles('test', '.int-spec.js') : [],
  e2e: e2eFiles.filter((f) => !ownsStack(f)),
  'e2e-own': e2eFiles.filter(ownsStack),
  replicas: wanted('replicas') && withE2e && matching(REPLICAS_SPEC) ? [REPLICAS_SPEC] : [],
};

// ---- test files in a process of their own: the output is held and printed whole when it ends
function runFile(file, env) {
  const files = [file].flat();
  const tap = path.join(tmp, `${path.basename(files[0])}-${randomBytes(3).toString('hex')}.tap`);
  const t = Date.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--enable-source-maps', '--test', '--test-isolation=none', '--test-timeout=300000', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${tap}`, ...files],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    running.add(child);
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('exit', (code, signal) => {
      running.delete(child);
      let text = '';
      try {
        text = readFileSync(tap, 'utf8');
      } catch {
        // it died before writing anything
      }
      const count = (what) => Number(new RegExp(`^# ${what} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
      const pass = count('pass');
      let fail = count('fail') + count('cancelled');
      if ((code !== 0 || signal) && fail === 0) fail = 1;
      resolve({ pass, fail, output: Buffer.concat(out).toString(), seconds: secondsSince(t), cpu: cpuOfEnded() });
    });
  });
}

/** The lint as one more task beside the tests: its output whole at its end, a failure counted as one. */
function runLint() {
  const t = Date.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', 'lint'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('exit', (code) => resolve({ pass: code === 0 ? 1 : 0, fail: code === 0 ? 0 : 1, output: `${Buffer.concat(out).toString()}lint: ${code === 0 ? 'clean' : 'FAILED'}\n`, seconds: secondsSince(t), cpu: cpuOfEnded() }));
  });
}

/** Records a finished task in its layer and prints its output. */
function record(label, name, r, startedAt) {
  const l = layers.get(label) ?? { first: startedAt, last: 0, files: 0, seconds: 0, pass: 0, fail: 0 };
  l.first = Math.min(l.first, startedAt);
  l.last = Math.max(l.last, Date.now());
  l.files += 1;
  l.seconds += r.seconds;
  l.pass += r.pass;
  l.fail += r.fail;
  layers.set(label, l);
  totals.pass += r.pass;
  totals.fail += r.fail;
  fileTimes.push([r.seconds, label, name, r.cpu]);
  process.stdout.write(`${r.output}${r.output.endsWith('\n') ? '' : '\n'}-- ${label} ${name}: ${r.pass} passed, ${r.fail} failed, ${r.seconds.toFixed(1)} s, ${r.cpu.toFixed(0)} s CPU\n`);
}

/**
 * Runs tasks from queues, in order; a task's `ready()` is awaited before it runs (its servers, its stack). Each of
 * `workers` takes from the queues it is given, the first first: a worker of the waiting files that has none left
 * takes the next CPU file, so that as many files run at the end of the run as at its start.
 */
async function pool(workers) {
  const worker = async (queues) => {
    const next = () => queues.find((q) => q.length > 0)?.shift();
    for (let task = next(); task; task = next()) {
      const env = await task.ready();
      const t = Date.now();
      record(task.label, task.name, await task.run(env), t);
    }
  };
  await Promise.all(workers.map(worker));
}

const fileTask = (label, ready) => (f) => ({ label, name: path.relative(root, f), ready, run: (env) => runFile(f, env) });
/**
 * A project's unit files in one process: they are pure, and most of a unit file's cost is loading the modules
 * it tests, which the files of one project share.
 */
const projectTasks = (label, fileList) => {
  const byProject = new Map();
  for (const f of fileList) {
    const parts = path.relative(root, f).split(path.sep);
    const p = parts.slice(0, parts[0] === 'libs' ? 3 : 2).join('/');
    byProject.set(p, [...(byProject.get(p) ?? []), f]);
  }
  return [...byProject].map(([p, fs]) => ({ label, name: `${p} (${fs.length} files)`, ready: none, run: (env) => runFile(fs, env) }));
};
const none = () => Promise.resolve({});

// ---- what the tests need: programs, servers, a migrated template, the shared stack
const say = (line) => process.stdout.write(`test: ${line}\n`);
const needsServers = files.int.length + files.e2e.length + files['e2e-own'].length + files.replicas.length > 0;
// a file drives Chromium itself or through the console's test support (whose playwright import is type-only)
const needsBrowser = [...files.unit, ...files.int, ...files.e2e].some((f) => /playwright|launchChromium|console-support/.test(readFileSync(f, 'utf8')));
try {
  // programs the tests drive, beside the servers: Chromium for the pages, the fonts the specimen documents are
  // printed in (OCR-B for machine-readable zones), openssl for the receivers' certificate
  const fonts = () => onPath('fc-list') && ((list) => /OCR B/.test(list) && /DejaVu Sans/.test(list))(execFileSync('fc-list', { encoding: 'utf8' }));
  ensureInstalled(
    [
      ...(needsBrowser ? [{ what: 'chromium', packages: ['chromium'], present: () => onPath('chromium') }] : []),
      { what: 'the OCR-B and DejaVu fonts', packages: ['fonts-ocr-b', 'fonts-dejavu-core', 'fontconfig'], present: fonts },
      { what: 'openssl', packages: ['openssl'], present: () => onPath('openssl') },
    ],
    say,
  );
} catch (e) {
  await finish(e.message);
}

const run = randomBytes(3).toString('hex');
const testEnv = { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' };
let infra;

async function pgAdmin(sql) {
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: infra.postgresUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

function migrateInto(dbName) {
  return Promise.all(
    SERVICES.map(
      (s) =>
        new Promise((resolve, reject) => {
          // the services' roles too (cluster-wide): a stack on a clone of the template connects as them
          const c = spawn(process.execPath, [path.join(root, 'apps', s, 'dist', 'src', 'migrate.js')], {
            env: { ...process.env, REGION: 'us', DATABASE_URL: infra.databaseUrl(dbName), ...migrateRoleEnv(infra.databaseUrl(dbName), s) },
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
  const cert = path.join(tmp, 'cert.pem');
  const key = path.join(tmp, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=verity test receiver', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
    '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' });
  return { cert, key };
}

/** The servers and the template every file of the integration and end-to-end layers clones: the environment they run with. */
async function prepareServers() {
  const given = { postgresUrl: process.env.DATABASE_URL, redisUrl: process.env.REDIS_URL, natsUrl: process.env.NATS_URL };
  const problems = await checkGivenServers(given);
  if (problems.length) throw new Error(problems.join('\n'));
  const t = Date.now();
  const dir = path.join(root, '.verity', 'test', run);
  infra = await LocalInfra.start({ dir, keep: false, nats: files.int.length > 0, freePort, say, given, maxConnections: 600 });
  cleanups.push(async () => {
    await infra.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  say(`servers: ${infra.summary.join(', ')}`);
  // every service's migrations, once, into a template each test file clones; nothing may be connected to a
  // template while it is cloned, so the services migrate it one after another
  const template = `verity_tpl_${run}`;
  await pgAdmin(`CREATE DATABASE "${template}"`);
  await migrateInto(template);
  const tls = makeTestCert();
  steps.push(['servers', secondsSince(t)]);
  return {
    ...testEnv,
    TEST_PG_ADMIN_URL: infra.postgresUrl,
    REDIS_URL: infra.redisUrl,
    ...(infra.natsUrl ? { NATS_URL: infra.natsUrl } : {}),
    TEST_TEMPLATE_DB: template,
    WEBHOOK_TEST_TLS_CERT: tls.cert,
    WEBHOOK_TEST_TLS_KEY: tls.key,
    NODE_EXTRA_CA_CERTS: tls.cert,
  };
}

/** Both regional stacks the end-to-end files share, on clones of the template: the environment those files run with. */
async function startSharedStack(env) {
  const t = Date.now();
  const dbs = { us: `vt_e2e_us_${run}`, eu: `vt_e2e_eu_${run}` };
  for (const name of Object.values(dbs)) await pgAdmin(`CREATE DATABASE "${name}" TEMPLATE "${env.TEST_TEMPLATE_DB}"`);
  const prefix = `e2e${run}_`;
  const stack = new Stack({
    regions: ['us', 'eu'],
    // clones of the migrated template
    migrate: false,
    ports: { us: await freePort(), eu: await freePort() },
    consolePorts: { us: await freePort(), eu: await freePort() },
    // two regions of nine processes each, starting together on a small machine
    readyTimeoutMs: 120_000,
    databaseUrl: (r) => infra.databaseUrl(dbs[r]),
    redisUrl: infra.redisUrl,
    isolationPrefix: prefix,
    // PG_CONNECT_TIMEOUT_MS: the stack starts while other tests keep both cores busy, and a service that cannot
    // connect in time at start exits
    env: { LOG_LEVEL: env.LOG_LEVEL, TRUSTED_PROXIES: '127.0.0.1', RPC_TIMEOUT_MS: '3000', PG_CONNECT_TIMEOUT_MS: '10000' },
    serviceEnv: {
      sessions: { CAPTURE_SECRET_KEY: randomBytes(32).toString('base64') },
      accounts: { CONSOLE_TOTP_KEY: randomBytes(32).toString('base64') },
      // one reader thread per region: two regions' stacks share two cores
      evidence: { READING_THREADS: '1' },
      // receivers of the tests run on loopback with the test certificate; retries compressed to seconds
      'webhook-delivery': {
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s',
        NODE_EXTRA_CA_CERTS: env.NODE_EXTRA_CA_CERTS,
        WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
      },
    },
    output: (r, s, line) => process.stderr.write(`[e2e ${r}/${s}] ${line}\n`),
  });
  cleanups.push(() => stack.stop());
  await stack.start();
  steps.push(['e2e stacks', secondsSince(t)]);
  // the identities the tests connect to each region's NATS as: the operator, the stream reader, and sessions
  // (tests that ask evidence what a session's run would see)
  const nats = Object.fromEntries(
    ['us', 'eu'].map((r) => [r, { url: stack.nats(r).url, passwords: Object.fromEntries(['operator', 'test-reader', 'sessions'].map((id) => [id, stack.nats(r).passwords.get(id)])) }]),
  );
  return {
    stack,
    env: {
      ...env,
      E2E_US_URL: stack.baseUrl('us'),
      E2E_EU_URL: stack.baseUrl('eu'),
      E2E_CONSOLE_US_URL: stack.consoleUrl('us'),
      E2E_CONSOLE_EU_URL: stack.consoleUrl('eu'),
      E2E_PREFIX: prefix,
      E2E_NATS: JSON.stringify(nats),
      E2E_DB_US: infra.databaseUrl(dbs.us),
      E2E_DB_EU: infra.databaseUrl(dbs.eu),
    },
  };
}

try {
  // a failure to prepare ends the run; until a task awaits it, it is held here so it is never unhandled
  const guard = (p) => {
    p.catch((e) => finish(e.stack ?? e.message));
    return p;
  };
  const servers = needsServers ? guard(prepareServers()) : Promise.resolve(testEnv);
  const shared = files.e2e.length ? guard(servers.then(startSharedStack)) : null;

  const cpuTasks = [
    ...(!only && !project ? [{ label: 'lint', name: 'eslint', ready: none, run: runLint }] : []),
    ...projectTasks('unit', files.unit),
    ...files.int.map(fileTask('int', () => servers)),
    ...files.e2e.map(fileTask('e2e', () => shared.then((s) => s.env))),
  ];
  const waitTasks = files['e2e-own'].map(fileTask('e2e-own', () => servers));
  await pool([...Array(CONCURRENCY.cpu).fill([cpuTasks]), ...Array(CONCURRENCY.waits).fill([waitTasks, cpuTasks])]);
  if (shared) await (await shared).stack.stop();

  // three processes of every app of a region (24 of its own): alone, after everything else
  if (files.replicas.length) await pool([[files.replicas.map(fileTask('replicas', () => servers))]]);
} catch (e) {
  await finish(e.stack ?? e.message);
}
await finish();
