/**
 * Observability (docs/observability.md), on a us stack of this file's own whose processes export
 * traces to an OTLP/HTTP (JSON) receiver in this test: a small workload (applicant, test-mode session, a
 * webhook delivered to a local HTTPS receiver), then every process's `/metrics` on its internal port holds the
 * agreed series and their counts moved; and one `POST /v1/sessions` is one trace, from the gateway through
 * sessions to screening, each span the child of another of the same trace.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SUBJECTS } from '@verity/contracts';
import { SERVICES, type ServiceName } from '@verity/stack';
import { api, startWebhookReceiver, testTls, waitFor, type WebhookReceiver } from '@verity/testing';
import { startOwnStack, type OwnStack } from './own-stack.js';

/** One sample of the Prometheus text format: name, labels, value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped; label values unescaped). */
function parseProm(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The sum of the samples named `name` whose labels include `where`. */
function total(samples: Sample[], name: string, where: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);
}

function has(samples: Sample[], name: string, where: Record<string, string> = {}): boolean {
  return samples.some((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v));
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  service: string;
}

/** An OTLP/HTTP receiver of JSON trace exports (`POST /v1/traces`), keeping every span with its service's name. */
async function startOtlpReceiver(): Promise<{ url: string; spans: OtlpSpan[]; close(): Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        type Kv = { key: string; value: { stringValue?: string } };
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans?: Array<{ resource?: { attributes?: Kv[] }; scopeSpans?: Array<{ spans?: Array<Omit<OtlpSpan, 'service'>> }> }>;
        };
        for (const rs of body.resourceSpans ?? []) {
          const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) spans.push({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name, service });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function scrape(own: OwnStack, service: ServiceName): Promise<Sample[]> {
  const res = await fetch(`${own.stack.healthUrl('us', service)}/metrics`);
  assert.equal(res.status, 200, `${service} /metrics`);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  return parseProm(await res.text());
}

describe('observability: metrics on every internal port, one trace per request', () => {
  let own: OwnStack;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let rx: WebhookReceiver;
  let base: string;
  let key: string;
  let sessionRequestId: string;
  let orgId: string;
  let imageRequestId: string;
  /** The gateway's log lines (it alone logs at info, which the access log is). */
  const gatewayLines: string[] = [];

  before(async () => {
    otlp = await startOtlpReceiver();
    rx = await startWebhookReceiver({ tls: testTls() });
    own = await startOwnStack('observability', {
      env: { LOG_LEVEL: 'error', OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '100' },
      serviceEnv: {
        'webhook-delivery': { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? '' },
        gateway: { LOG_LEVEL: 'info' },
      },
      output: (_region, service, line) => {
        if (service === 'gateway') gatewayLines.push(line);
      },
    });
    base = own.stack.baseUrl('us');
    const op = { principal: null, requestId: 'req_e2e_observability' };
    const org = await own.ops.call(SUBJECTS.accountsOrgCreate, { name: 'observability' }, op);
    orgId = org.id;
    const scopes = ['applicants:read', 'applicants:write', 'sessions:read', 'sessions:write', 'sessions:read_report', 'workflows:read', 'workflows:write'];
    key = (await own.ops.call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'test', type: 'sk', scopes }, op)).key;
    await own.ops.call(SUBJECTS.webhookSubscriptionCreate, { org_id: org.id, mode: 'test', url: `${rx.url}/hook`, event_types: ['kyc.session.completed'] }, op);

    const c = <T = Record<string, unknown>>(method: string, p: string, body?: unknown) => api<T>(base, method, p, { key, body });
    const applicant = await c<{ data: { id: string } }>('POST', '/v1/applicants', { family_name: 'Doe', given_names: ['Jane'] });
    assert.equal(applicant.status, 201, applicant.text);
    const template = await c<{ data: { id: string } }>('POST', '/v1/workflow-templates', { name: 'Watchlist', checks: ['watchlist'] });
    assert.equal(template.status, 201, template.text);
    const session = await c<{ data: { id: string } }>('POST', '/v1/sessions', { applicant_id: applicant.body.data.id, workflow_template_id: template.body.data.id });
    assert.equal(session.status, 201, session.text);
    sessionRequestId = session.headers.get('x-request-id')!;
    // the test run completes the session; its event reaches the receiver
    await waitFor(async () => rx.received.length > 0, 20_000, 100);
    // a test run with a document stores synthetic images, which the gateway streams from evidence over internal HTTP
    const identity = await c<{ data: { id: string } }>('POST', '/v1/workflow-templates', { name: 'Identity', checks: ['document'] });
    const withImages = await c<{ data: { id: string } }>('POST', '/v1/sessions', { applicant_id: applicant.body.data.id, workflow_template_id: identity.body.data.id });
    assert.equal(withImages.status, 201, withImages.text);
    await waitFor(async () => ['completed', 'manual_review'].includes((await c<{ data: { status: string } }>('GET', `/v1/sessions/${withImages.body.data.id}`)).body.data?.status), 20_000, 100);
    const image = await c('GET', `/v1/sessions/${withImages.body.data.id}/idv-image/front`);
    assert.equal(image.status, 200);
    imageRequestId = image.headers.get('x-request-id')!;
    assert.equal((await c('GET', '/v1/sessions/ses_doesnotexist')).status, 404);
    assert.equal((await c('GET', '/v1/sessions?limit=5&applicant_id=' + applicant.body.data.id)).status, 200);
  });

  after(async () => {
    await own?.close();
    await rx?.close();
    await otlp?.close();
  });

  it('every process serves its own metrics, labelled with its name, on its internal port', async () => {
    for (const service of ['gateway', ...SERVICES] as const) {
      const samples = await scrape(own, service);
      assert.ok(has(samples, 'process_cpu_seconds_total', { service }), `${service}: process metrics`);
      assert.ok(has(samples, 'nodejs_eventloop_lag_seconds', { service }), `${service}: event loop lag`);
      assert.ok(samples.every((s) => s.labels.service === service), `${service}: every series says service="${service}"`);
      assert.ok(samples.every((s) => s.labels.region === 'us'), `${service}: every series says region="us"`);
    }
    // never on the public port
    assert.equal((await fetch(`${base}/metrics`)).status, 404);
  });

  it('the gateway counts and times each request by route template, never by raw path', async () => {
    const g = await scrape(own, 'gateway');
    assert.ok(total(g, 'verity_http_requests_total', { method: 'POST', route: '/v1/sessions', status: '201' }) >= 1);
    assert.ok(total(g, 'verity_http_requests_total', { method: 'GET', route: '/v1/sessions/:id', status: '404' }) >= 1);
    assert.ok(total(g, 'verity_http_request_duration_seconds_count', { method: 'POST', route: '/v1/applicants' }) >= 1);
    assert.ok(!g.some((s) => s.labels.route?.includes('ses_doesnotexist')), 'no id in a route label');
    assert.ok(has(g, 'verity_http_requests_in_flight'));
    assert.ok(total(g, 'verity_rpc_client_duration_seconds_count', { subject: SUBJECTS.sessionsCreate, outcome: 'ok' }) >= 1);
  });

  it('the gateway logs one access line per request: route template, status, duration, request id, organization, key prefix; nothing personal', async () => {
    const access = gatewayLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
    const create = access.filter((l) => l.request_id === sessionRequestId);
    assert.equal(create.length, 1, 'one line for the request');
    const line = create[0]!;
    assert.equal(line.method, 'POST');
    assert.equal(line.route, '/v1/sessions');
    assert.equal(line.status, 201);
    assert.equal(typeof line.duration_ms, 'number');
    assert.equal(line.org_id, orgId);
    assert.match(String(line.key_prefix), /^.{1,12}$/);
    assert.ok(!key.includes(String(line.key_prefix)), 'not a piece of the key itself');
    const list = access.find((l) => l.route === '/v1/sessions' && l.method === 'GET');
    assert.ok(list, 'the list request is logged by its template');
    const all = gatewayLines.join('\n');
    assert.ok(!all.includes('Doe') && !all.includes('Jane'), 'no personal data');
    assert.ok(!all.includes('applicant_id='), 'no query string');
    assert.ok(!all.includes(key), 'no key');
    assert.ok(access.every((l) => !('ip' in l) && !('url' in l) && !('body' in l)));
  });

  it('each service counts its NATS requests and times its statements', async () => {
    for (const service of ['accounts', 'applicants', 'sessions', 'screening', 'webhook-delivery'] as const) {
      const s = await scrape(own, service);
      assert.ok(total(s, 'verity_rpc_requests_total', { outcome: 'ok' }) >= 1, `${service}: rpc requests`);
      assert.ok(total(s, 'verity_rpc_duration_seconds_count') >= 1, `${service}: rpc duration`);
      assert.ok(has(s, 'verity_rpc_in_flight'), `${service}: rpc in flight`);
      assert.ok(total(s, 'verity_db_query_duration_seconds_count') >= 1, `${service}: statements timed`);
      assert.ok(has(s, 'verity_db_pool_waiting'), `${service}: pool waiting`);
    }
    const sessions = await scrape(own, 'sessions');
    assert.ok(total(sessions, 'verity_rpc_requests_total', { subject: SUBJECTS.sessionsCreate, outcome: 'ok' }) >= 1);
    assert.ok(total(sessions, 'verity_rpc_client_duration_seconds_count', { subject: SUBJECTS.screeningEvaluate }) >= 1, 'the test run called screening');
  });

  it('the outbox, the event stream, the queues and the webhook outcomes are measured', async () => {
    const sessions = await scrape(own, 'sessions');
    assert.ok(has(sessions, 'verity_outbox_pending'));
    assert.ok(has(sessions, 'verity_outbox_lag_seconds'));
    assert.ok(has(sessions, 'verity_queue_depth', { queue: 'sessions_test_run' }));
    assert.ok(has(sessions, 'verity_queue_depth', { queue: 'sessions_live_run' }));
    assert.ok(has(sessions, 'verity_queue_depth', { queue: 'sessions_invite_email' }));
    const wh = await scrape(own, 'webhook-delivery');
    assert.ok(total(wh, 'verity_webhook_deliveries_total', { outcome: 'delivered' }) >= 1);
    assert.ok(total(wh, 'verity_webhook_delivery_duration_seconds_count') >= 1);
    assert.ok(has(wh, 'verity_stream_consumer_pending'));
    assert.ok(has(wh, 'verity_queue_depth', { queue: 'webhook_attempts' }));
    assert.ok(has(await scrape(own, 'applicants'), 'verity_queue_depth', { queue: 'applicants_dsar_overdue' }));
    const evidence = await scrape(own, 'evidence');
    assert.ok(total(evidence, 'verity_http_requests_total', { method: 'GET', route: '/sessions/:param/images/:param', status: '200' }) >= 1, 'internal HTTP by route');
    assert.ok(!evidence.some((s) => s.labels.route?.includes('ses_')), 'no id in an internal route label');
    for (const service of ['evidence', 'id-scan'] as const) {
      const s = await scrape(own, service);
      assert.ok(total(s, 'verity_reading_pool_threads') >= 1, `${service}: reader threads`);
      assert.ok(has(s, 'verity_reading_pool_busy') && has(s, 'verity_reading_pool_queue'), `${service}: reader load`);
    }
  });

  it('one POST /v1/sessions is one trace: gateway, sessions and screening spans, each the child of another', async () => {
    assert.ok(sessionRequestId);
    let root: OtlpSpan | undefined;
    let trace: OtlpSpan[] = [];
    await waitFor(
      async () => {
        root = otlp.spans.find((s) => s.service === 'gateway' && s.name === 'HTTP POST /v1/sessions');
        trace = root ? otlp.spans.filter((s) => s.traceId === root!.traceId) : [];
        return trace.some((s) => s.service === 'screening');
      },
      20_000,
      100,
    );
    assert.ok(root, 'the gateway span of the request');
    assert.equal(root.parentSpanId, undefined, "the gateway's span is the trace's root");
    const services = new Set(trace.map((s) => s.service));
    for (const s of ['gateway', 'sessions', 'screening']) assert.ok(services.has(s), `a span of ${s} in the trace`);
    const ids = new Set(trace.map((s) => s.spanId));
    for (const s of trace) if (s !== root) assert.ok(s.parentSpanId && ids.has(s.parentSpanId), `${s.service} ${s.name}: its parent is in the trace`);
    assert.ok(trace.some((s) => s.service === 'gateway' && s.name === `rpc.client ${SUBJECTS.sessionsCreate}`));
    assert.ok(trace.some((s) => s.service === 'sessions' && s.name === `rpc.server ${SUBJECTS.sessionsCreate}`));
    assert.ok(trace.some((s) => s.service === 'screening' && s.name === `rpc.server ${SUBJECTS.screeningEvaluate}`));
    assert.ok(trace.some((s) => s.service === 'sessions' && s.name.startsWith('db ')), 'statements in the trace');
  });

  it('the webhook path joins the trace: outbox, event stream, fan-out; the delivery span is the child of the run that made the event', async () => {
    let root: OtlpSpan | undefined;
    let deliver: OtlpSpan | undefined;
    await waitFor(
      async () => {
        root = otlp.spans.find((s) => s.service === 'gateway' && s.name === 'HTTP POST /v1/sessions');
        deliver = root && otlp.spans.find((s) => s.service === 'webhook-delivery' && s.name === 'webhook.deliver' && s.traceId === root!.traceId);
        return deliver !== undefined;
      },
      20_000,
      100,
    );
    assert.ok(deliver, "a delivery span in the session request's trace");
    const parent = otlp.spans.find((s) => s.spanId === deliver!.parentSpanId);
    assert.ok(parent, 'its parent was exported');
    assert.equal(parent.service, 'sessions');
    assert.equal(parent.name, 'job test_run', 'the run whose completion is the delivered event');
  });

  it('an internal HTTP hop joins the trace: the evidence span is the child of the gateway request', async () => {
    assert.ok(imageRequestId);
    let hop: OtlpSpan | undefined;
    await waitFor(
      async () => {
        hop = otlp.spans.find((s) => s.service === 'evidence' && s.name === 'HTTP GET /sessions/:param/images/:param');
        return hop !== undefined;
      },
      20_000,
      100,
    );
    const parent = otlp.spans.find((s) => s.spanId === hop!.parentSpanId);
    assert.ok(parent, 'its parent was exported');
    assert.equal(parent.service, 'gateway');
    assert.equal(parent.name, 'HTTP GET /v1/sessions/:id/idv-image/:artifact');
    assert.equal(parent.traceId, hop!.traceId);
  });
});
