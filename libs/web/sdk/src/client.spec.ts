/**
 * The client's HTTP behaviour against a real HTTP server on loopback that answers as the gateway would in each
 * case (503 then 201, 429 with reset_at, pages with next_cursor, a lost connection …) and records what it got.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Verity, VerityConnectionError, VerityError, type VerityOptions } from './index.js';

const SECRET = 'Zq9'.repeat(14) + 'k';
const US_KEY = `idv_sk_us_test_${SECRET}`;
const EU_KEY = `idv_sk_eu_live_${SECRET}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Received {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  at: number;
}
type Answer = { status: number; headers?: Record<string, string>; json?: unknown; bytes?: Buffer; delayMs?: number } | 'drop';

interface Server {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

const servers: Server[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

/** A server answering the n-th request (from 1) with `answer(req, n)`; `drop` destroys the connection unanswered. */
async function serve(answer: (req: Received, n: number) => Answer): Promise<Server> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://x');
      const got: Received = { method: req.method ?? '', path: u.pathname, query: u.searchParams, headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      received.push(got);
      const a = answer(got, received.length);
      if (a === 'drop') {
        req.socket.destroy();
        return;
      }
      const send = () => {
        const body = a.bytes ?? (a.json === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(a.json)));
        if (res.destroyed) return;
        res.writeHead(a.status, {
          'content-type': a.bytes ? 'image/jpeg' : 'application/json; charset=utf-8',
          'content-length': String(body.length),
          'x-request-id': `req_${received.length}`,
          ...a.headers,
        });
        res.end(body);
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const s: Server = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  servers.push(s);
  return s;
}

function envelope(code: string, type: string, n: number, extra: Record<string, unknown> = {}) {
  return { error: { code, type, message: `${code} happened`, doc_url: `https://docs.example/errors#${code}`, request_id: `req_${n}`, ...extra } };
}

const applicant = { id: 'app_1', object: 'applicant', family_name: 'Lovelace' };
const fast: Partial<VerityOptions> = { backoff: { baseMs: 20, capMs: 50 } };

function client(s: Server, opts: Partial<VerityOptions> = {}, key = US_KEY): Verity {
  return new Verity({ apiKey: key, baseUrls: { us: s.url, eu: s.url }, ...fast, ...opts });
}

describe('endpoint and authentication', () => {
  it("calls the gateway of the key's region with the key as a Bearer token", async () => {
    const me = (req: Received) => ({ status: 200, json: { data: { id: 'key_1', object: 'api_key', org_id: 'org_1', mode: 'live', region: 'eu', scopes: [], path: req.path } } });
    const us = await serve(me);
    const eu = await serve(me);
    const c = new Verity({ apiKey: EU_KEY, baseUrls: { us: us.url, eu: `${eu.url}/` } });
    assert.deepEqual([c.region, c.mode], ['eu', 'live']);
    const got = await c.me.get();
    assert.equal(got.org_id, 'org_1');
    assert.equal(us.received.length, 0);
    assert.equal(eu.received.length, 1);
    assert.equal(eu.received[0]!.path, '/v1/me');
    assert.equal(eu.received[0]!.headers.authorization, `Bearer ${EU_KEY}`);
    assert.equal(eu.received[0]!.headers['idempotency-key'], undefined, 'a GET carries no Idempotency-Key');
  });
});

describe('retries and idempotency', () => {
  it('503 then 201: retried once with the same Idempotency-Key and body; the next call has a key of its own', async () => {
    const s = await serve((_, n) => (n === 1 ? { status: 503, json: envelope('service_unavailable', 'api_error', n) } : { status: 201, json: { data: applicant } }));
    const c = client(s);
    const created = await c.applicants.create({ family_name: 'Lovelace', given_names: ['Ada'] });
    assert.deepEqual(created, applicant);
    assert.equal(s.received.length, 2);
    const [a, b] = s.received;
    assert.match(String(a!.headers['idempotency-key']), UUID);
    assert.equal(b!.headers['idempotency-key'], a!.headers['idempotency-key']);
    assert.deepEqual(JSON.parse(b!.body.toString()), { family_name: 'Lovelace', given_names: ['Ada'] });
    assert.ok(b!.body.equals(a!.body));
    assert.equal(a!.headers['content-type'], 'application/json');

    await c.applicants.create({ family_name: 'Hopper' });
    assert.equal(s.received.length, 3);
    assert.match(String(s.received[2]!.headers['idempotency-key']), UUID);
    assert.notEqual(s.received[2]!.headers['idempotency-key'], a!.headers['idempotency-key']);
  });

  it("sends the caller's Idempotency-Key as given, on every try of every POST route", async () => {
    const s = await serve((req, n) => (n % 2 === 1 ? { status: 503, json: envelope('service_unavailable', 'api_error', n) } : { status: 200, json: { data: { id: req.path } } }));
    const c = client(s);
    await c.sessions.cancel('ses_1', { reason: 'duplicate' }, { idempotencyKey: 'order-42-cancel' });
    await c.sessions.decide('ses_1', { outcome: 'approved' }, { idempotencyKey: 'order-42-decide' });
    assert.deepEqual(
      s.received.map((r) => [r.method, r.path, r.headers['idempotency-key']]),
      [
        ['POST', '/v1/sessions/ses_1/cancel', 'order-42-cancel'],
        ['POST', '/v1/sessions/ses_1/cancel', 'order-42-cancel'],
        ['POST', '/v1/sessions/ses_1/decision', 'order-42-decide'],
        ['POST', '/v1/sessions/ses_1/decision', 'order-42-decide'],
      ],
    );
  });

  it('a lost connection and a try that times out are retried with the same Idempotency-Key', async () => {
    const s = await serve((_, n) => (n === 1 ? 'drop' : n === 2 ? { status: 201, json: { data: applicant }, delayMs: 1000 } : { status: 201, json: { data: applicant } }));
    const c = client(s, { timeoutMs: 300 });
    assert.deepEqual(await c.applicants.create({ family_name: 'Lovelace' }), applicant);
    assert.equal(s.received.length, 3);
    assert.equal(new Set(s.received.map((r) => r.headers['idempotency-key'])).size, 1);
  });

  it('409 idempotency_key_in_use (the first try still running) is retried until the answer comes', async () => {
    const s = await serve((_, n) => (n === 1 ? { status: 409, json: envelope('idempotency_key_in_use', 'invalid_request_error', n) } : { status: 201, json: { data: applicant } }));
    assert.deepEqual(await client(s).applicants.create({ family_name: 'Lovelace' }), applicant);
    assert.equal(s.received.length, 2);
  });

  it('no answer at all: VerityConnectionError after maxRetries retries', async () => {
    const s = await serve(() => 'drop');
    await assert.rejects(client(s, { maxRetries: 2 }).me.get(), (e: Error) => e instanceof VerityConnectionError && /3 tries/.test(e.message) && e.cause !== undefined);
    assert.equal(s.received.length, 3);
  });

  it('429 waits until details.reset_at, then X-RateLimit-Reset, before each retry', async () => {
    const reset1 = Math.floor(Date.now() / 1000) + 1;
    let reset2 = 0;
    const s = await serve((_, n) => {
      if (n === 1) return { status: 429, json: envelope('rate_limit_exceeded', 'rate_limit_error', n, { details: { reset_at: reset1, route_class: 'reads' } }), headers: { 'x-ratelimit-reset': String(reset1 + 100) } };
      if (n === 2) {
        reset2 = Math.floor(Date.now() / 1000) + 1;
        return { status: 429, headers: { 'x-ratelimit-reset': String(reset2) }, json: { error: 'no envelope' } };
      }
      return { status: 200, json: { data: { id: 'key_1' } } };
    });
    const me = await client(s, { maxRateLimitWaitMs: 5000 }).me.get();
    assert.equal(me.id, 'key_1');
    assert.equal(s.received.length, 3);
    assert.ok(s.received[1]!.at >= reset1 * 1000, `retried ${reset1 * 1000 - s.received[1]!.at} ms before reset_at`);
    assert.ok(s.received[1]!.at < reset1 * 1000 + 1000, 'not much later either');
    assert.ok(s.received[2]!.at >= reset2 * 1000, `retried ${reset2 * 1000 - s.received[2]!.at} ms before X-RateLimit-Reset`);
  });

  it('a 429 whose reset_at is further than maxRateLimitWaitMs (a 24-hour window) is thrown at once', async () => {
    const resetAt = Math.floor(Date.now() / 1000) + 86_400;
    const s = await serve((_, n) => ({ status: 429, json: envelope('rate_limit_exceeded', 'rate_limit_error', n, { details: { reset_at: resetAt, route_class: 'dsar:create' } }) }));
    await assert.rejects(client(s).dataSubjectRequests.create({ type: 'access', applicant_id: 'app_1' }), (e: VerityError) => {
      assert.ok(e instanceof VerityError);
      assert.deepEqual([e.status, e.code, e.type, e.details?.['reset_at']], [429, 'rate_limit_exceeded', 'rate_limit_error', resetAt]);
      return true;
    });
    assert.equal(s.received.length, 1);
  });

  it('503 every time: maxRetries retries with backoff, then the 503 is thrown', async () => {
    const s = await serve((_, n) => ({ status: 503, json: envelope('service_unavailable', 'api_error', n) }));
    const started = Date.now();
    await assert.rejects(client(s, { maxRetries: 2 }).sessions.get('ses_1'), (e: VerityError) => e.status === 503 && e.code === 'service_unavailable' && e.request_id === 'req_3');
    assert.equal(s.received.length, 3);
    assert.ok(Date.now() - started < 1000);
    // the default: 3 retries
    const d = await serve((_, n) => ({ status: 503, json: envelope('service_unavailable', 'api_error', n) }));
    await assert.rejects(client(d).me.get(), VerityError);
    assert.equal(d.received.length, 4);
  });

  it('other refusals are final, with the whole envelope and the headers', async () => {
    const issues = [{ code: 'too_small', message: 'family_name is required', path: ['family_name'] }];
    const s = await serve((req, n): Answer => {
      if (req.path === '/v1/applicants') return { status: 422, json: envelope('validation_error', 'invalid_request_error', n, { param: 'family_name', details: { issues } }), headers: { 'x-ratelimit-remaining': '59' } };
      if (req.path === '/v1/sessions/ses_1/decision') return { status: 409, json: envelope('invalid_state_transition', 'invalid_request_error', n) };
      if (req.path === '/v1/sessions/ses_1') return { status: 500, json: envelope('internal_error', 'api_error', n) };
      return { status: 502, bytes: Buffer.from('<html>bad gateway</html>'), headers: { 'content-type': 'text/html' } };
    });
    const c = client(s);
    await assert.rejects(c.applicants.create({ family_name: '' }), (e: VerityError) => {
      assert.ok(e instanceof VerityError && e instanceof Error);
      assert.deepEqual(
        { status: e.status, code: e.code, type: e.type, message: e.message, param: e.param, details: e.details, request_id: e.request_id, doc_url: e.doc_url },
        { status: 422, code: 'validation_error', type: 'invalid_request_error', message: 'validation_error happened', param: 'family_name', details: { issues }, request_id: 'req_1', doc_url: 'https://docs.example/errors#validation_error' },
      );
      assert.equal(e.headers.get('x-ratelimit-remaining'), '59');
      return true;
    });
    await assert.rejects(c.sessions.decide('ses_1', { outcome: 'declined' }), { status: 409, code: 'invalid_state_transition' });
    await assert.rejects(c.sessions.get('ses_1'), { status: 500, code: 'internal_error', type: 'api_error' });
    await assert.rejects(c.workflowTemplates.get('wft_1'), { status: 502, code: 'unknown_error', type: 'api_error', request_id: 'req_4', doc_url: null });
    assert.equal(s.received.length, 4, 'none retried');
  });

  it('a caller abort stops the retries', async () => {
    const s = await serve((_, n) => ({ status: 503, json: envelope('service_unavailable', 'api_error', n) }));
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('caller gave up')), 150);
    const started = Date.now();
    await assert.rejects(client(s, { backoff: { baseMs: 10_000, capMs: 10_000 }, maxRetries: 10 }).me.get({ signal: ac.signal }), /caller gave up/);
    assert.ok(Date.now() - started < 2000);
  });
});

describe('lists', () => {
  const PAGES: Record<string, { data: { id: string }[]; next_cursor: string | null }> = {
    '': { data: [{ id: 'ses_5' }, { id: 'ses_4' }], next_cursor: 'c2' },
    c2: { data: [{ id: 'ses_3' }, { id: 'ses_2' }], next_cursor: 'c3' },
    c3: { data: [{ id: 'ses_1' }], next_cursor: null },
  };
  const pages = (req: Received) => ({ status: 200, json: PAGES[req.query.get('cursor') ?? ''] });

  it('awaited, list() is one page: data and next_cursor, with the filters as query parameters', async () => {
    const s = await serve(pages);
    const page = await client(s).sessions.list({ limit: 2, status: 'completed', applicant_id: 'app_1' });
    assert.deepEqual(page, PAGES['']);
    assert.equal(s.received.length, 1);
    assert.deepEqual(Object.fromEntries(s.received[0]!.query), { limit: '2', status: 'completed', applicant_id: 'app_1' });
  });

  it('for await over list(), and listAll(), follow next_cursor through every page, keeping the filters', async () => {
    const s = await serve(pages);
    const c = client(s);
    const ids: string[] = [];
    for await (const session of c.sessions.list({ limit: 2, status: 'completed' })) ids.push(session.id);
    assert.deepEqual(ids, ['ses_5', 'ses_4', 'ses_3', 'ses_2', 'ses_1']);
    assert.deepEqual(
      s.received.map((r) => Object.fromEntries(r.query)),
      [{ limit: '2', status: 'completed' }, { limit: '2', status: 'completed', cursor: 'c2' }, { limit: '2', status: 'completed', cursor: 'c3' }],
    );
    const again: string[] = [];
    for await (const a of c.webhookEvents.listAll({ cursor: 'c2', session_id: 'ses_9' })) again.push(a.id);
    assert.deepEqual(again, ['ses_3', 'ses_2', 'ses_1']);
    assert.equal(s.received[3]!.path, '/v1/webhook-events');
    assert.deepEqual(Object.fromEntries(s.received[4]!.query), { cursor: 'c3', session_id: 'ses_9' });
  });

  it('a page awaited and then iterated is fetched once; iteration stops early without fetching more', async () => {
    const s = await serve(pages);
    const list = client(s).applicants.list();
    const first = await list;
    assert.equal(first.next_cursor, 'c2');
    for await (const a of list) {
      assert.equal(a.id, 'ses_5');
      break;
    }
    assert.equal(s.received.length, 1);
    const pageSizes: number[] = [];
    for await (const page of client(s).workflowTemplates.list().pages()) pageSizes.push(page.data.length);
    assert.deepEqual(pageSizes, [2, 2, 1]);
  });
});

describe('images and uploads', () => {
  const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(200_000, 7), Buffer.from([0xff, 0xd9])]);

  it('streams an evidence image with its content type; buffer() and nodeStream() read it', async () => {
    const s = await serve((req, n) => (n === 1 ? { status: 503, json: envelope('service_unavailable', 'api_error', n) } : { status: 200, bytes: JPEG, headers: { 'x-path': req.path } }));
    const c = client(s);
    const img = await c.sessions.image('ses_1', 'front');
    assert.equal(img.contentType, 'image/jpeg');
    assert.equal(img.contentLength, JPEG.length);
    assert.ok((await img.buffer()).equals(JPEG));
    assert.deepEqual(s.received.map((r) => r.path), ['/v1/sessions/ses_1/idv-image/front', '/v1/sessions/ses_1/idv-image/front']);

    const chunks: Buffer[] = [];
    for await (const chunk of (await c.sessions.image('ses_1', 'selfie')).nodeStream()) chunks.push(chunk as Buffer);
    assert.ok(Buffer.concat(chunks).equals(JPEG));
    let bytes = 0;
    const reader = (await c.sessions.image('ses_1', 'portrait')).body.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) bytes += r.value.length;
    assert.equal(bytes, JPEG.length);
  });

  it('an image that is not there is a VerityError, not a stream', async () => {
    const s = await serve((_, n) => ({ status: 404, json: envelope('artifact_not_available', 'invalid_request_error', n) }));
    await assert.rejects(client(s).sessions.image('ses_1', 'selfie'), { status: 404, code: 'artifact_not_available' });
  });

  it('an ID scan is one multipart body (front, back, expected_outcome), sent byte for byte again on a retry', async () => {
    const s = await serve((_, n) => (n === 1 ? { status: 503, json: envelope('service_unavailable', 'api_error', n) } : { status: 200, json: { data: { object: 'id_scan', outcome: 'pass' } } }));
    const back = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const result = await client(s).idVerification.scan({ front: JPEG, back, expected_outcome: 'pass' });
    assert.equal(result.outcome, 'pass');
    const [a, b] = s.received;
    assert.equal(a!.path, '/v1/id-verification');
    assert.ok(a!.body.equals(b!.body), 'the same bytes');
    assert.equal(a!.headers['content-type'], b!.headers['content-type']);
    assert.equal(a!.headers['idempotency-key'], b!.headers['idempotency-key']);
    // read back with a real multipart parser (undici's)
    const form = await new Response(new Uint8Array(b!.body), { headers: { 'content-type': String(b!.headers['content-type']) } }).formData();
    assert.deepEqual([...form.keys()], ['front', 'back', 'expected_outcome']);
    const front = form.get('front') as File;
    assert.equal(front.type, 'image/jpeg');
    assert.ok(Buffer.from(await front.arrayBuffer()).equals(JPEG));
    assert.ok(Buffer.from(await (form.get('back') as File).arrayBuffer()).equals(back));
    assert.equal(form.get('expected_outcome'), 'pass');
  });
});

describe('every route', () => {
  it('method, path and body of each resource call', async () => {
    const s = await serve((req) => ({ status: req.method === 'POST' && !req.path.includes('/ses_1/') ? 201 : 200, json: { data: { id: 'x' }, next_cursor: null } }));
    const c = client(s);
    await c.me.get();
    await c.applicants.create({ family_name: 'L' });
    await c.applicants.get('app_1');
    await c.applicants.list({ limit: 5 });
    await c.workflowTemplates.create({ name: 'KYC', checks: ['document'] });
    await c.workflowTemplates.get('wft_1');
    await c.workflowTemplates.list();
    await c.workflowTemplates.update('wft_1', { review_threshold: 0.7, signing_document: null });
    await c.sessions.create({ applicant_id: 'app_1', workflow_template_id: 'wft_1', expected_outcome: 'review' });
    await c.sessions.get('ses_1');
    await c.sessions.list();
    await c.sessions.addNote('ses_1', 'called the applicant');
    await c.sessions.cancel('ses_1');
    await c.sessions.review('ses_1', { reason: 'odd' });
    await c.sessions.decide('ses_1', { outcome: 'declined', reason: 'fraud' });
    await c.webhookEvents.list();
    await c.dataSubjectRequests.create({ type: 'erasure', applicant_id: 'app_1' });
    await c.dataSubjectRequests.get('dsr_1');
    await (await c.dataSubjectRequests.image('dsr_1', 3)).buffer();
    await c.applicants.get('app_/../x?y');
    assert.deepEqual(
      s.received.map((r) => [r.method, r.path + (r.query.size ? `?${r.query}` : ''), r.body.length ? JSON.parse(r.body.toString()) : null, r.method === 'POST' ? UUID.test(String(r.headers['idempotency-key'])) : r.headers['idempotency-key']]),
      [
        ['GET', '/v1/me', null, undefined],
        ['POST', '/v1/applicants', { family_name: 'L' }, true],
        ['GET', '/v1/applicants/app_1', null, undefined],
        ['GET', '/v1/applicants?limit=5', null, undefined],
        ['POST', '/v1/workflow-templates', { name: 'KYC', checks: ['document'] }, true],
        ['GET', '/v1/workflow-templates/wft_1', null, undefined],
        ['GET', '/v1/workflow-templates', null, undefined],
        ['PATCH', '/v1/workflow-templates/wft_1', { review_threshold: 0.7, signing_document: null }, undefined],
        ['POST', '/v1/sessions', { applicant_id: 'app_1', workflow_template_id: 'wft_1', expected_outcome: 'review' }, true],
        ['GET', '/v1/sessions/ses_1', null, undefined],
        ['GET', '/v1/sessions', null, undefined],
        ['POST', '/v1/sessions/ses_1/notes', { note: 'called the applicant' }, true],
        ['POST', '/v1/sessions/ses_1/cancel', {}, true],
        ['POST', '/v1/sessions/ses_1/review', { reason: 'odd' }, true],
        ['POST', '/v1/sessions/ses_1/decision', { outcome: 'declined', reason: 'fraud' }, true],
        ['GET', '/v1/webhook-events', null, undefined],
        ['POST', '/v1/data_subject_requests', { type: 'erasure', applicant_id: 'app_1' }, true],
        ['GET', '/v1/data_subject_requests/dsr_1', null, undefined],
        ['GET', '/v1/data_subject_requests/dsr_1/images/3', null, undefined],
        ['GET', '/v1/applicants/app_%2F..%2Fx%3Fy', null, undefined],
      ],
    );
  });
});
