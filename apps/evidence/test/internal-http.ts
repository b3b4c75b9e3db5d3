import http from 'node:http';
import type { Principal } from '@verity/contracts';
import { newId } from '@verity/keys';
import { signInternalRequest } from '@verity/platform';
import { testSigner } from '@verity/testing';

export interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** Signs one request as the gateway does: over its method, path and body (none for a GET). */
export type Signer = (method: string, path: string, body?: Buffer) => Record<string, string>;

/** A client of the service's internal HTTP side on `port`, signing with `secret` (and the principal with the test keys) as the gateway does. */
export function internalClient(port: () => number, secret: string) {
  const signed =
    (p: Principal, requestId = newId('request'), deadline = Date.now() + 5000): Signer =>
    (method, path, body) =>
      signInternalRequest(secret, { method, path }, { principal: p, requestId, deadline, seal: testSigner().seal(p, requestId, deadline) }, body);

  function send(method: 'GET' | 'PUT', path: string, sign: Signer | Record<string, string>, body?: Buffer): Promise<Got> {
    const headers = typeof sign === 'function' ? sign(method, path, body) : sign;
    const extra = body ? { 'content-type': 'image/jpeg', 'content-length': body.length } : {};
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: port(), path, method, headers: { ...headers, ...extra } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  return {
    signed,
    get: (path: string, sign: Signer | Record<string, string>) => send('GET', path, sign),
    put: (path: string, sign: Signer, body: Buffer) => send('PUT', path, sign, body),
    /** The public image endpoint's path. */
    image: (p: Principal, session: string, artifact: string) => send('GET', `/sessions/${session}/images/${artifact}`, signed(p)),
    /** The export's path to any stored image. */
    stored: (p: Principal, session: string, source: string, artifact: string) => send('GET', `/sessions/${session}/stored-images/${source}/${artifact}`, signed(p)),
    upload: (p: Principal, session: string, artifact: string, body: Buffer) => send('PUT', `/captures/${session}/images/${artifact}`, signed(p), body),
  };
}

export const errorCode = (g: Got): string | undefined => (JSON.parse(g.body.toString()) as { error?: { code: string } }).error?.code;
