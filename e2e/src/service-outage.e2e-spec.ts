/**
 * One service down at a time, on a us stack of this file's own: that service's routes answer 503
 * `service_unavailable` in the envelope within the RPC timeout, every other route answers as usual, and the
 * gateway stays ready (it can serve) while saying what is down. Only the gateway's own NATS going away makes
 * it unready.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SUBJECTS } from '@verity/contracts';
import { SERVICES, type ServiceName } from '@verity/stack';
import { api, multipart, sampleImage, waitFor, type ApiResponse } from '@verity/testing';
import { startOwnStack, type OwnStack } from './own-stack.js';
import { errorOf } from './support.js';

const RPC_TIMEOUT_MS = 1500;
/** What "within the timeout" allows beyond the RPC timeout itself: the rest of one request's path. */
const SLACK_MS = 1000;
/** The gateway trusts a verified key this long without asking accounts again. */
const KEY_CACHE_TTL_MS = 300;

type Ready = { status: string; nats: string; redis: string; services: Record<string, string> };

/** A route as a client calls it, the services it needs besides accounts (every key is verified there), and its usual status. */
interface Probe {
  name: string;
  needs: ServiceName[];
  status: number;
  call: () => Promise<ApiResponse>;
}

describe('one service down: only its own routes fail, fast and in the envelope', () => {
  let own: OwnStack;
  let base: string;
  let key: string;
  let probes: Probe[];

  before(async () => {
    own = await startOwnStack('outage', {
      env: { LOG_LEVEL: 'error', RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS), KEY_CACHE_TTL_MS: String(KEY_CACHE_TTL_MS) },
      output: null,
    });
    base = own.stack.baseUrl('us');
    const op = { principal: null, requestId: 'req_e2e_outage' };
    const org = await own.ops.call(SUBJECTS.accountsOrgCreate, { name: 'outage' }, op);
    const scopes = ['applicants:read', 'applicants:write', 'sessions:read', 'sessions:write', 'sessions:read_report', 'workflows:read', 'workflows:write', 'webhooks:read', 'idv:scan'];
    key = (await own.ops.call(SUBJECTS.accountsKeyCreate, { org_id: org.id, mode: 'test', type: 'sk', scopes }, op)).key;

    const c = <T = Record<string, unknown>>(method: string, p: string, body?: unknown) => api<T>(base, method, p, { key, body });
    const applicant = await c<{ data: { id: string } }>('POST', '/v1/applicants', { family_name: 'Doe', given_names: ['Jane'] });
    const identity = await c<{ data: { id: string } }>('POST', '/v1/workflow-templates', { name: 'Identity', checks: ['document', 'face_match', 'liveness'] });
    const watchlist = await c<{ data: { id: string } }>('POST', '/v1/workflow-templates', { name: 'Watchlist', checks: ['watchlist'] });
    const session = await c<{ data: { id: string } }>('POST', '/v1/sessions', { applicant_id: applicant.body.data.id, workflow_template_id: identity.body.data.id });
    assert.equal(session.status, 201, session.text);
    const sessionId = session.body.data.id;
    // the test run stores its synthetic images; the front is served once it rests
    await waitFor(async () => ['completed', 'manual_review'].includes((await c<{ data: { status: string } }>('GET', `/v1/sessions/${sessionId}`)).body.data?.status), 10_000, 100);
    const scan = multipart([{ name: 'front', file: await sampleImage('jpeg') }]);

    probes = [
      { name: 'GET /v1/me', needs: [], status: 200, call: () => c('GET', '/v1/me') },
      { name: 'GET /v1/applicants', needs: ['applicants'], status: 200, call: () => c('GET', '/v1/applicants') },
      { name: 'POST /v1/applicants', needs: ['applicants'], status: 201, call: () => c('POST', '/v1/applicants', { family_name: 'Roe' }) },
      { name: 'GET /v1/workflow-templates', needs: ['screening'], status: 200, call: () => c('GET', '/v1/workflow-templates') },
      { name: 'GET /v1/sessions', needs: ['sessions'], status: 200, call: () => c('GET', '/v1/sessions') },
      { name: 'GET /v1/sessions/{id}', needs: ['sessions'], status: 200, call: () => c('GET', `/v1/sessions/${sessionId}`) },
      {
        name: 'POST /v1/sessions',
        // sessions keeps the template versions it has read: screening down does not stop a create of a known template
        needs: ['sessions', 'applicants'],
        status: 201,
        call: () => c('POST', '/v1/sessions', { applicant_id: applicant.body.data.id, workflow_template_id: watchlist.body.data.id }),
      },
      { name: 'GET /v1/webhook-events', needs: ['webhook-delivery'], status: 200, call: () => c('GET', '/v1/webhook-events') },
      { name: 'GET /v1/sessions/{id}/idv-image/front', needs: ['evidence'], status: 200, call: () => c('GET', `/v1/sessions/${sessionId}/idv-image/front`) },
      {
        name: 'POST /v1/id-verification',
        needs: ['id-scan'],
        status: 200,
        call: () => api(base, 'POST', '/v1/id-verification', { key, rawBody: scan.body, headers: { 'content-type': scan.contentType } }),
      },
    ];
    // everything answers as usual with every service up
    for (const p of probes) assert.equal((await p.call()).status, p.status, p.name);
  });

  after(async () => {
    await own?.close();
  });

  const ready = () => api<Ready>(base, 'GET', '/health/ready');

  for (const stopped of SERVICES) {
    it(`${stopped} stopped: its routes answer 503 service_unavailable within the timeout, every other route answers, the gateway stays ready`, async () => {
      await own.stack.stopService('us', stopped);
      try {
        // the gateway asks accounts again once a key's cache entry is older than KEY_CACHE_TTL_MS
        if (stopped === 'accounts') await new Promise((r) => setTimeout(r, KEY_CACHE_TTL_MS + 50));
        for (const p of probes) {
          const affected = stopped === 'accounts' || p.needs.includes(stopped);
          const t0 = Date.now();
          const res = await p.call();
          const ms = Date.now() - t0;
          if (!affected) {
            assert.equal(res.status, p.status, `${p.name} with ${stopped} down: ${res.text.slice(0, 200)}`);
            continue;
          }
          assert.equal(res.status, 503, `${p.name} with ${stopped} down: ${res.text.slice(0, 200)}`);
          const e = errorOf(res);
          assert.equal(e.code, 'service_unavailable', p.name);
          assert.equal(e.type, 'api_error', p.name);
          assert.ok(ms <= RPC_TIMEOUT_MS + SLACK_MS, `${p.name} answered in ${ms} ms`);
        }
        // the capture page's static assets and liveness need no service at all
        assert.equal((await api(base, 'GET', '/verify/assets/capture.js')).status, 200);
        assert.equal((await api(base, 'GET', '/health/live')).status, 200);

        const r = await waitFor(async () => {
          const x = await ready();
          return x.body.services?.[stopped] === 'down' ? x : undefined;
        }, 5000, 100);
        assert.equal(r.status, 200, 'the gateway can still serve: it stays in its load balancer');
        assert.deepEqual([r.body.status, r.body.nats, r.body.redis], ['degraded', 'ok', 'ok']);
        assert.deepEqual(
          Object.entries(r.body.services).filter(([, s]) => s === 'down').map(([n]) => n),
          [stopped],
        );
      } finally {
        own.stack.startService('us', stopped);
        await own.stack.waitReady('us', 60_000);
      }
      for (const p of probes) assert.equal((await p.call()).status, p.status, `${p.name} once ${stopped} is back`);
    });
  }

  it("the gateway's own NATS gone: readiness is 503 unavailable (public and internal port), liveness still 200", async () => {
    await own.stack.nats('us').stop();
    const r = await waitFor(async () => {
      const x = await ready();
      return x.status === 503 ? x : undefined;
    }, 10_000, 100);
    assert.equal(r.body.status, 'unavailable');
    assert.equal(r.body.nats, 'down');
    // the probe Kubernetes reads, on the gateway's internal port, says the same
    const probe = await api<{ status: string; checks: Record<string, string> }>(own.stack.healthUrl('us', 'gateway'), 'GET', '/health/ready');
    assert.equal(probe.status, 503, probe.text);
    assert.equal(probe.body.checks.nats, 'down');
    assert.equal((await api(base, 'GET', '/health/live')).status, 200);
  });
});
