import { benchScreeningEngine } from './engine-bench.js';
import { benchApplicants, startBenchStack } from './gateway-bench.js';
import { benchSessions } from './sessions-bench.js';
import { benchEvidence, benchIdScan } from './evidence-bench.js';
import { benchWebhooks } from './webhooks-bench.js';
import { benchReading } from './reading-bench.js';
import { benchLive } from './live-bench.js';
import { benchFootprint } from './footprint-bench.js';
import { benchScale } from './scale-bench.js';
import { benchWatchlist } from './watchlist-bench.js';

/**
 * `npm run bench`: each figure next to a baseline measured in the same run on the same machine.
 * `npm run bench -- applicants` runs one section.
 */
const only = new Set(process.argv.slice(2));
const want = (s: string) => only.size === 0 || only.has(s);
// `scale` seeds millions of rows: only when named (`npm run bench -- scale [--reseed]`)
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
for (const f of flags) only.delete(f);

process.stdout.write(`Verity benchmarks — ${new Date().toISOString()} — node ${process.version}, ${(await import('node:os')).cpus().length} cores\n`);
// pure CPU first, before any stack process competes for the cores
if (want('engine')) await benchScreeningEngine();
if (want('reading')) await benchReading();
// the bench stack only when a section that runs against it is wanted
if (['applicants', 'sessions', 'evidence', 'id-scan', 'live', 'footprint'].some((s) => want(s))) {
  const env = await startBenchStack();
  try {
    if (want('applicants')) await benchApplicants(env);
    if (want('sessions')) await benchSessions(env);
    if (want('evidence')) await benchEvidence(env);
    if (want('id-scan')) await benchIdScan(env);
    // live runs through the whole stack, submit to resting status
    if (want('live')) await benchLive(env);
    // not part of a whole run (it repeats the sections above): `npm run bench -- footprint`
    if (only.has('footprint')) await benchFootprint(env);
  } finally {
    await env.close();
  }
}
// its own stack: deliveries from event to acknowledged receipt
if (want('webhooks')) await benchWebhooks();
if (only.has('scale')) await benchScale(flags);
// loads a million-person list: only when named (`npm run bench -- watchlist [--entities=N]`)
if (only.has('watchlist')) await benchWatchlist(flags);
