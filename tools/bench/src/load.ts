import autocannon from 'autocannon';

export interface LoadResult {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export interface LoadSpec {
  label: string;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  connections?: number;
  seconds?: number;
  warmupSeconds?: number;
}

function once(spec: LoadSpec, seconds: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: spec.url,
        method: spec.method,
        headers: spec.headers,
        body: spec.body,
        connections: spec.connections ?? 50,
        duration: seconds,
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
  });
}

/** Warms up, then measures requests/s and latency percentiles at a fixed number of connections. */
export async function measure(spec: LoadSpec): Promise<LoadResult> {
  await once(spec, spec.warmupSeconds ?? 2);
  // progress on stderr, so that a profiler can be attached to the measured window
  process.stderr.write(`measuring ${spec.label}\n`);
  const r = await once(spec, spec.seconds ?? 10);
  return {
    label: spec.label,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

export function formatRow(cols: (string | number)[], widths: number[]): string {
  return cols.map((c, i) => String(c).padEnd(widths[i] ?? 10)).join('  ');
}

/** The `p`th percentile (0–100) of ascending `sorted` values: the value below which `p` % of them lie. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
