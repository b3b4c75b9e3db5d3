import { collectDefaultMetrics, Counter, Gauge, Histogram, register, type Registry } from 'prom-client';
import { answersWithin } from './readiness.js';

/**
 * The Prometheus metrics of every process (docs/observability.md): one registry, the process's own
 * (prom-client's default), whose series all carry `service`. The platform's choke points (RPC server and
 * client, the SQL boundary, internal HTTP, the gateway's hooks) record them, so a service gets them without
 * doing anything; the few gauges that need a look at the world (queue depths, outbox and stream lag, pools)
 * are sampled when Prometheus scrapes, through `addScrapeSampler`.
 *
 * Label values are bounded: route templates and subjects, never raw paths or ids.
 */

/** Every metric name this code registers (besides prom-client's process and Node.js defaults): the dashboard and alerts may use these and no others. */
export const METRIC_NAMES = [
  'verity_http_requests_total',
  'verity_http_request_duration_seconds',
  'verity_http_requests_in_flight',
  'verity_rpc_requests_total',
  'verity_rpc_duration_seconds',
  'verity_rpc_in_flight',
  'verity_rpc_client_duration_seconds',
  'verity_db_query_duration_seconds',
  'verity_db_pool_waiting',
  'verity_outbox_pending',
  'verity_outbox_lag_seconds',
  'verity_stream_consumer_pending',
  'verity_webhook_deliveries_total',
  'verity_webhook_delivery_duration_seconds',
  'verity_queue_depth',
  'verity_reading_pool_busy',
  'verity_reading_pool_threads',
  'verity_reading_pool_queue',
  'verity_evidence_retention_deleted_total',
] as const;

/** prom-client's `collectDefaultMetrics` names that the dashboard and alerts use. */
export const DEFAULT_METRIC_NAMES = [
  'process_cpu_seconds_total',
  'process_resident_memory_bytes',
  'process_start_time_seconds',
  'nodejs_eventloop_lag_seconds',
  'nodejs_eventloop_lag_p99_seconds',
  'nodejs_heap_size_used_bytes',
  'nodejs_active_handles_total',
] as const;

/**
 * What the data services' exporters serve that the dashboard and alerts read (deploy/base/nats.yaml and
 * deploy/components/in-cluster-data: prometheus-nats-exporter, postgres_exporter, redis_exporter; their region is
 * the namespace's, deploy/examples/podmonitor.yaml).
 */
export const EXPORTER_METRIC_NAMES = [
  'gnatsd_varz_connections',
  'gnatsd_varz_slow_consumers',
  'pg_up',
  'pg_stat_database_numbackends',
  'pg_settings_max_connections',
  'redis_up',
  'redis_memory_used_bytes',
  'redis_connected_clients',
] as const;

export type MetricName = (typeof METRIC_NAMES)[number];

/** Latency buckets (seconds) from 1 ms to 30 s: an RPC answers in milliseconds, a document read in seconds. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const DB_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

export const metrics = {
  httpRequests: new Counter({ name: 'verity_http_requests_total', help: 'HTTP requests answered, by route template and status', labelNames: ['method', 'route', 'status'] }),
  httpDuration: new Histogram({ name: 'verity_http_request_duration_seconds', help: 'HTTP request duration, by route template', labelNames: ['method', 'route'], buckets: LATENCY_BUCKETS }),
  httpInFlight: new Gauge({ name: 'verity_http_requests_in_flight', help: 'HTTP requests being served' }),
  rpcRequests: new Counter({ name: 'verity_rpc_requests_total', help: 'NATS requests handled, by subject and outcome (ok, error, timeout)', labelNames: ['subject', 'outcome'] }),
  rpcDuration: new Histogram({ name: 'verity_rpc_duration_seconds', help: 'NATS request handling duration, by subject', labelNames: ['subject'], buckets: LATENCY_BUCKETS }),
  rpcInFlight: new Gauge({ name: 'verity_rpc_in_flight', help: 'NATS requests being handled' }),
  rpcClientDuration: new Histogram({
    name: 'verity_rpc_client_duration_seconds',
    help: 'NATS calls this process made, by subject and outcome (ok, error, timeout)',
    labelNames: ['subject', 'outcome'],
    buckets: LATENCY_BUCKETS,
  }),
  dbQueryDuration: new Histogram({ name: 'verity_db_query_duration_seconds', help: 'Postgres statement duration (pool wait included)', buckets: DB_BUCKETS }),
  dbPoolWaiting: new Gauge({ name: 'verity_db_pool_waiting', help: 'Statements waiting for a free connection of the pool', collect: sampled }),
  outboxPending: new Gauge({ name: 'verity_outbox_pending', help: 'Events written to the outbox and not yet relayed to the stream', collect: sampled }),
  outboxLag: new Gauge({ name: 'verity_outbox_lag_seconds', help: 'Age of the oldest unrelayed outbox event (0 when none)', collect: sampled }),
  streamPending: new Gauge({
    name: 'verity_stream_consumer_pending',
    help: 'Messages of the event stream not yet delivered to the consumer, plus those delivered and not yet acknowledged',
    labelNames: ['consumer'],
    collect: sampled,
  }),
  webhookDeliveries: new Counter({
    name: 'verity_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome (delivered, retry_scheduled, failed)',
    labelNames: ['outcome'],
  }),
  webhookDuration: new Histogram({ name: 'verity_webhook_delivery_duration_seconds', help: "Duration of one webhook attempt (the receiver's answer)", buckets: LATENCY_BUCKETS }),
  queueDepth: new Gauge({ name: 'verity_queue_depth', help: 'Jobs due and not yet taken, by queue', labelNames: ['queue'], collect: sampled }),
  readingBusy: new Gauge({ name: 'verity_reading_pool_busy', help: 'Reader threads at work', collect: sampled }),
  readingThreads: new Gauge({ name: 'verity_reading_pool_threads', help: 'Reader threads', collect: sampled }),
  readingQueue: new Gauge({ name: 'verity_reading_pool_queue', help: 'Reads waiting for a reader thread', collect: sampled }),
  retentionDeleted: new Counter({
    name: 'verity_evidence_retention_deleted_total',
    help: 'Stored images deleted by evidence retention, by kind (artifacts, uploads, blobs)',
    labelNames: ['kind'],
  }),
};

/** A sampler sets gauges from a look at the world (a count in Postgres, a consumer's info); it may fail (the gauge keeps its last value). */
export type ScrapeSampler = () => void | Promise<void>;

const samplers: ScrapeSampler[] = [];
/** How long one sampling pass answers every gauge (and every scrape): one cheap look per second at most. */
const SAMPLE_CACHE_MS = 1000;
/** A sampler that does not answer within this is left behind (its gauges keep their last value). */
const SAMPLE_TIMEOUT_MS = 2000;
let lastPass: { at: number; done: Promise<void> } | null = null;

/** Registers a sampler run (at most once a second) when the metrics are read. */
export function addScrapeSampler(sampler: ScrapeSampler): void {
  samplers.push(sampler);
}

function sampled(): Promise<void> {
  const now = Date.now();
  if (lastPass && now - lastPass.at < SAMPLE_CACHE_MS) return lastPass.done;
  // a sampler that fails or hangs leaves its gauges at their last value; the dependency's own health says why
  const done = Promise.all(samplers.map((s) => answersWithin(async () => s(), SAMPLE_TIMEOUT_MS))).then(() => undefined);
  lastPass = { at: now, done };
  return done;
}

let initialised: string | null = null;

/**
 * Labels every series with `service` and `region` and starts prom-client's process and Node.js metrics; once per
 * process (a second call, as in tests running services in one process, changes nothing). The region label lets one
 * Prometheus, one dashboard and one set of alerts serve both regions' namespaces apart.
 */
export function initMetrics(service: string, region: string): Registry {
  if (initialised === null) {
    initialised = service;
    register.setDefaultLabels({ service, region });
    // the event-loop lag histogram samples every 100 ms, not prom-client's default 10 ms: a timer every 10 ms woke
    // each idle process a hundred times a second (about 1 % of a core per process, on every replica); lag worth an
    // alert lasts far longer than a sample
    collectDefaultMetrics({ eventLoopMonitoringPrecision: 100 });
  }
  return register;
}

/** The Prometheus text exposition of every metric, and its content type. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: register.contentType, body: await register.metrics() };
}

/** Seconds elapsed since `start` (a `process.hrtime.bigint()`). */
export function secondsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/**
 * The label of an internal HTTP route from its pattern: anchors dropped, each capture group a `:param`
 * (`^\/sessions\/([^/]*)\/images\/([^/]*)$` → `/sessions/:param/images/:param`), so that no id reaches a label.
 */
export function routeLabelOf(pattern: RegExp): string {
  let s = pattern.source.replace(/^\^/, '').replace(/\$$/, '');
  // innermost groups first, until none is left
  for (let prev = ''; prev !== s; ) {
    prev = s;
    s = s.replace(/\((?:[^()\\]|\\.)*\)/g, ':param');
  }
  return s.replace(/\\(.)/g, '$1');
}

/** The label of a gateway request's route: its template, or `unmatched` when no route took it (never the raw path). */
export function routeLabel(template: string | undefined): string {
  return template && template.length > 0 ? template : 'unmatched';
}

/** Samples a reader pool's load (`@verity/reading`'s `ReadingPool.load()`) into `verity_reading_pool_*` on scrape. */
export function observeReadingPool(pool: { load(): { busy: number; threads: number; queued: number } }): void {
  addScrapeSampler(() => {
    const l = pool.load();
    metrics.readingBusy.set(l.busy);
    metrics.readingThreads.set(l.threads);
    metrics.readingQueue.set(l.queued);
  });
}
