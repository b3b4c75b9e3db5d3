/**
 * `npm run bench -- footprint`: each service's resident memory and CPU, idle and under load (the applicants,
 * sessions and live sections against the bench stack), the figures the requests and limits of deploy/ come from
 * (docs/operations.md, "Resources"). Read from /proc (Linux): RSS, and CPU as the share of one core used over the
 * window (utime + stime).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT } from '@verity/stack';
import { benchApplicants, type BenchEnv } from './gateway-bench.js';
import { benchLive } from './live-bench.js';
import { benchSessions } from './sessions-bench.js';

const SERVICES = ['gateway', 'accounts', 'applicants', 'screening', 'sessions', 'webhook-delivery', 'evidence', 'id-scan'];
const TICKS = 100; // USER_HZ on Linux

/** The pid of each service process of this checkout's stack. */
function servicePids(): Map<string, number> {
  const out = new Map<string, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    for (const s of SERVICES) if (cmd.includes(`${REPO_ROOT}/apps/${s}/dist/src/main.js`)) out.set(s, Number(d));
  }
  return out;
}

function sample(pid: number): { ticks: number; rssMiB: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { ticks: Number(fields[11]) + Number(fields[12]), rssMiB: Number(rss?.[1] ?? 0) / 1024 };
}

interface Figures {
  cpu: number;
  peakCpu: number;
  rssMiB: number;
  peakRssMiB: number;
}

/**
 * CPU (cores) over the window and its busiest 5 s, and RSS at its end and at its peak (sampled every second), of
 * each service.
 */
async function observe(pids: Map<string, number>, during: Promise<unknown> | number): Promise<Map<string, Figures>> {
  const start = new Map([...pids].map(([s, p]) => [s, sample(p)]));
  const peak = new Map([...pids].map(([s]) => [s, start.get(s)!.rssMiB]));
  const peakCpu = new Map([...pids].map(([s]) => [s, 0]));
  const history = new Map([...pids].map(([s]) => [s, [{ at: Date.now(), ticks: start.get(s)!.ticks }]]));
  const t0 = Date.now();
  let done = false;
  const work = typeof during === 'number' ? sleep(during) : during;
  void work.finally(() => (done = true));
  while (!done) {
    await Promise.race([work, sleep(1000)]);
    for (const [s, p] of pids) {
      const now = sample(p);
      peak.set(s, Math.max(peak.get(s)!, now.rssMiB));
      const h = history.get(s)!;
      h.push({ at: Date.now(), ticks: now.ticks });
      while (h.length > 6) h.shift();
      const first = h[0]!;
      const last = h[h.length - 1]!;
      if (last.at - first.at >= 4500) peakCpu.set(s, Math.max(peakCpu.get(s)!, (last.ticks - first.ticks) / TICKS / ((last.at - first.at) / 1000)));
    }
  }
  await work;
  const secs = (Date.now() - t0) / 1000;
  return new Map(
    [...pids].map(([s, p]) => {
      const end = sample(p);
      return [
        s,
        { cpu: (end.ticks - start.get(s)!.ticks) / TICKS / secs, peakCpu: peakCpu.get(s)!, rssMiB: end.rssMiB, peakRssMiB: Math.max(peak.get(s)!, end.rssMiB) },
      ];
    }),
  );
}

export async function benchFootprint(env: BenchEnv): Promise<void> {
  const pids = servicePids();
  const missing = SERVICES.filter((s) => !pids.has(s));
  if (missing.length) throw new Error(`footprint: no process found for ${missing.join(', ')}`);
  await sleep(5000); // start-up work (connections, caches, reader threads) settles
  const idle = await observe(pids, 15_000);
  const load = await observe(
    pids,
    (async () => {
      await benchApplicants(env);
      await benchSessions(env);
      await benchLive(env);
    })(),
  );
  process.stdout.write('\nFootprint per service (one us stack; CPU in cores: mean over the window and its busiest 5 s; RSS in MiB)\n');
  const head = ['idle CPU', 'idle RSS', 'load CPU', 'peak CPU', 'load RSS', 'peak RSS'];
  process.stdout.write(`${'service'.padEnd(18)}${head.map((h) => h.padStart(10)).join('')}\n`);
  for (const s of SERVICES) {
    const i = idle.get(s)!;
    const l = load.get(s)!;
    const cells = [i.cpu.toFixed(3), i.rssMiB.toFixed(0), l.cpu.toFixed(3), l.peakCpu.toFixed(3), l.rssMiB.toFixed(0), l.peakRssMiB.toFixed(0)];
    process.stdout.write(`${s.padEnd(18)}${cells.map((c) => c.padStart(10)).join('')}\n`);
  }
}
