import http from 'node:http';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Principal, PrincipalSeal } from '@verity/contracts';
import { bodyTrailer, INTERNAL_HEADERS, SIGNATURE_WINDOW_MS, signInternalRequest, STREAMED_BODY } from '../src/internal-http.js';
import { InternalHttpServer, sendData } from '../src/internal-server.js';
import { createLogger } from '../src/logger.js';
import { newPrincipalKeyPair, PrincipalSigner, PrincipalVerifier } from '../src/principal-seal.js';

/**
 * The internal HTTP server on loopback, as evidence and id-scan run it: what a request must carry to reach a
 * handler, and that headers captured from one request are worth nothing anywhere else. The handler reads its
 * body whole and then "commits" it (records it): nothing unverified may ever be committed.
 */
const SECRET = 'a-region-secret-of-at-least-32-characters';
const principal = { org_id: 'org_1', key_id: 'key_1', key_type: 'sk', mode: 'test', region: 'us', scopes: [] } as unknown as Principal;
const gatewayKeys = newPrincipalKeyPair('gateway', 'k1');
const signer = new PrincipalSigner('gateway', gatewayKeys.signing);
const committed: string[] = [];
let server: InternalHttpServer;
let port: number;

before(async () => {
  server = new InternalHttpServer({ name: 'test', region: 'us', port: 0, host: '127.0.0.1', secret: SECRET, principals: new PrincipalVerifier(gatewayKeys.verify), log: createLogger('test', 'us', 'silent') });
  const commit = async (req: { body: AsyncIterable<Buffer> }, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req.body) chunks.push(c);
    const sha = createHash('sha256').update(Buffer.concat(chunks)).digest('hex');
    committed.push(sha);
    sendData(res, { sha });
  };
  server.route('PUT', /^\/things\/([^/]*)$/, (req, res) => commit(req, res));
  server.route('POST', /^\/things\/([^/]*)\/copies$/, (req, res) => commit(req, res));
  server.route('GET', /^\/things\/([^/]*)\/meta$/, async (_req, res, _c, [id]) => sendData(res, { id }));
  port = await server.listen();
});

after(() => server.close(100));

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Sent after a chunked body. */
  trailers?: Record<string, string>;
}

function send(r: Sent): Promise<{ status: number; code?: string; data?: { sha?: string; id?: string } }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...r.headers };
    if (r.trailers) headers.trailer = Object.keys(r.trailers).join(', ');
    else if (r.body) headers['content-length'] = String(r.body.length);
    const req = http.request({ host: '127.0.0.1', port, method: r.method, path: r.path, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => {
        const b = JSON.parse(text) as { ok: boolean; data?: { sha?: string }; error?: { code: string } };
        resolve({ status: res.statusCode!, code: b.error?.code, data: b.data });
      });
    });
    req.on('error', reject);
    if (r.body && r.trailers) {
      // in pieces, as a stream arrives
      for (let i = 0; i < r.body.length; i += 64 * 1024) req.write(r.body.subarray(i, i + 64 * 1024));
      req.addTrailers(r.trailers);
      req.end();
    } else req.end(r.body);
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const caller = (p = principal, requestId = 'req_1') => {
  const deadline = Date.now() + 10_000;
  return { principal: p, requestId, deadline, seal: signer.seal(p, requestId, deadline) };
};

/** A streamed upload exactly as the gateway sends it: signed headers, the body, its signature as the trailer. */
function streamed(method: string, path: string, body: Buffer, now = Date.now()): Sent {
  const headers = signInternalRequest(SECRET, { method, path }, caller(), STREAMED_BODY, now);
  return { method, path, headers, body, trailers: bodyTrailer(SECRET, headers[INTERNAL_HEADERS.signature]!, sha(body)) };
}

describe('internal HTTP: a signed request reaches its handler', () => {
  it('a streamed body with its trailer, and a body whose digest is in the headers, are committed', async () => {
    const body = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    const a = await send(streamed('PUT', '/things/a', body));
    assert.deepEqual([a.status, a.data?.sha], [200, sha(body)]);
    const small = Buffer.from('small');
    const b = await send({ method: 'PUT', path: '/things/b', headers: signInternalRequest(SECRET, { method: 'PUT', path: '/things/b' }, caller(), small), body: small });
    assert.deepEqual([b.status, b.data?.sha], [200, sha(small)]);
    const g = await send({ method: 'GET', path: '/things/c/meta', headers: signInternalRequest(SECRET, { method: 'GET', path: '/things/c/meta' }, caller()) });
    assert.deepEqual([g.status, g.data?.id], [200, 'c']);
  });
});

describe('internal HTTP: captured headers replayed elsewhere are refused with the envelope, nothing committed', () => {
  const refused = async (r: Sent, why: string) => {
    const before = committed.length;
    const res = await send(r);
    assert.deepEqual([res.status, res.code], [401, 'authentication_required'], why);
    assert.equal(committed.length, before, `${why}: nothing committed`);
  };

  it('to another route', async () => {
    const body = Buffer.from('image bytes');
    const captured = streamed('PUT', '/things/a', body);
    await refused({ ...captured, path: '/things/b' }, 'another path');
    await refused({ ...captured, path: '/things/a?replace=1' }, 'another query');
    const get = signInternalRequest(SECRET, { method: 'GET', path: '/things/a/meta' }, caller());
    await refused({ method: 'GET', path: '/things/b/meta', headers: get }, 'a GET to another path');
  });

  it('with another method', async () => {
    const body = Buffer.from('image bytes');
    const captured = streamed('PUT', '/things/a', body);
    await refused({ ...captured, method: 'POST', path: '/things/a/copies' }, 'POST with the PUT headers (and path changed)');
    const copies = streamed('POST', '/things/a/copies', body);
    await refused({ ...copies, method: 'PUT' }, 'PUT with the POST headers');
  });

  it('with another body', async () => {
    const body = Buffer.from('the genuine image');
    const captured = streamed('PUT', '/things/a', body);
    const other = Buffer.alloc(200_000, 1);
    await refused({ ...captured, body: other }, 'another streamed body, captured trailer');
    await refused({ ...captured, body: other, trailers: bodyTrailer('another-secret-of-at-least-32-characters', captured.headers[INTERNAL_HEADERS.signature]!, sha(other)) }, 'a trailer forged without the secret');
    await refused({ ...captured, trailers: undefined }, 'the streamed body without its trailer');
    await refused({ ...captured, body: Buffer.from('the genuine imagE') }, 'one byte changed in the last chunk');
    const known = signInternalRequest(SECRET, { method: 'PUT', path: '/things/b' }, caller(), body);
    await refused({ method: 'PUT', path: '/things/b', headers: known, body: other }, 'a body other than the digest in the headers');
    const get = signInternalRequest(SECRET, { method: 'GET', path: '/things/c/meta' }, caller());
    await refused({ method: 'GET', path: '/things/c/meta', headers: get, body: other }, 'a body added to a signed GET');
  });

  it('after the window', async () => {
    const body = Buffer.from('image bytes');
    await refused(streamed('PUT', '/things/a', body, Date.now() - SIGNATURE_WINDOW_MS - 1000), 'signed too long ago');
    await refused(streamed('PUT', '/things/a', body, Date.now() + SIGNATURE_WINDOW_MS + 1000), 'signed in the future');
    const get = signInternalRequest(SECRET, { method: 'GET', path: '/things/c/meta' }, caller(), undefined, Date.now() - SIGNATURE_WINDOW_MS - 1000);
    await refused({ method: 'GET', path: '/things/c/meta', headers: get }, 'a GET signed too long ago');
  });

  it('signed with another region\'s secret, or not at all', async () => {
    const body = Buffer.from('image bytes');
    const headers = signInternalRequest('the-other-regions-secret-of-32-characters', { method: 'PUT', path: '/things/a' }, caller(), body);
    await refused({ method: 'PUT', path: '/things/a', headers, body }, 'another secret');
    await refused({ method: 'PUT', path: '/things/a', headers: {}, body }, 'no signature');
  });
});

describe('internal HTTP: the principal must carry the signature of the edge that authenticated the request', () => {
  const refused = async (r: Sent, why: string) => {
    const before = committed.length;
    const res = await send(r);
    assert.deepEqual([res.status, res.code], [401, 'authentication_required'], why);
    assert.equal(committed.length, before, `${why}: nothing committed`);
  };
  const get = (c: Omit<ReturnType<typeof caller>, 'seal'> & { seal?: PrincipalSeal }) => ({ method: 'GET', path: '/things/c/meta', headers: signInternalRequest(SECRET, { method: 'GET', path: '/things/c/meta' }, c) });

  it('a holder of the internal secret cannot act for another organization: no signature, a changed one, or another key', async () => {
    const genuine = caller();
    await refused(get({ ...genuine, seal: undefined }), 'no principal signature');
    await refused(get({ ...genuine, principal: { ...principal, org_id: 'org_2' } }), 'the organization changed under the signature');
    await refused(get({ ...genuine, requestId: 'req_2' }), 'the signature of another request');
    const other = new PrincipalSigner('gateway', newPrincipalKeyPair('gateway', 'k1').signing);
    await refused(get({ ...genuine, seal: other.seal(principal, 'req_1', genuine.deadline) }), 'signed with a key the server does not hold');
    const ok = await send(get(genuine));
    assert.equal(ok.status, 200);
  });
});
