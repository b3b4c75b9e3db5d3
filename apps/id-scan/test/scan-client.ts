import http from 'node:http';
import type { Principal } from '@verity/contracts';
import { newId } from '@verity/keys';
import { createHash } from 'node:crypto';
import { bodyTrailer, INTERNAL_HEADERS, signInternalRequest, STREAMED_BODY } from '@verity/platform';
import { multipart, testSigner, type Part } from '@verity/testing';

export interface Answer {
  status: number;
  body: { ok: boolean; data?: Record<string, unknown>; error?: { code: string; message: string; details?: Record<string, unknown> } };
}

/** The gateway's side of the service's internal `POST /scan`: signed headers and a multipart body. */
export class ScanClient {
  constructor(
    private readonly port: number,
    private readonly secret: string,
    readonly boundary = 'intBoundary7',
  ) {}

  form(parts: Part[]): Buffer {
    return multipart(parts, { boundary: this.boundary }).body;
  }

  /** Signed headers of a `POST /scan` whose body streams, as the gateway sends it (the body's signature follows it). */
  signed(p: Principal, requestId = newId('request'), deadline = Date.now() + 30_000): Record<string, string> {
    return signInternalRequest(this.secret, { method: 'POST', path: '/scan' }, { principal: p, requestId, deadline, seal: testSigner().seal(p, requestId, deadline) }, STREAMED_BODY);
  }

  /**
   * POST /scan; `body` is a buffer, or a function writing the request slowly with `write` and `end`. A streamed
   * body is closed by its trailer, as the gateway does, signed with `trailerSecret` (the client's own by default).
   */
  scan(headers: Record<string, string>, body: Buffer | ((write: (b: Buffer) => void, end: (b?: Buffer) => void) => void), trailerSecret = this.secret): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const streamed = headers[INTERNAL_HEADERS.contentSha256] === STREAMED_BODY;
      const hash = createHash('sha256');
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.port,
          path: '/scan',
          method: 'POST',
          headers: { 'content-type': `multipart/form-data; boundary=${this.boundary}`, ...(streamed ? { trailer: INTERNAL_HEADERS.bodySignature } : {}), ...headers },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Answer['body'] }));
        },
      );
      req.on('error', reject);
      const write = (b: Buffer) => {
        hash.update(b);
        req.write(b);
      };
      const end = (b?: Buffer) => {
        if (b) write(b);
        if (streamed) req.addTrailers(bodyTrailer(trailerSecret, headers[INTERNAL_HEADERS.signature] ?? '', hash.digest('hex')));
        req.end();
      };
      if (typeof body === 'function') body(write, end);
      else end(body);
    });
  }
}
