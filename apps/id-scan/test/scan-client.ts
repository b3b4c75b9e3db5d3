import http from 'node:http';
import type { Principal } from '@verity/contracts';
import { newId } from '@verity/keys';
import { signInternalRequest } from '@verity/platform';
import { multipart, type Part } from '@verity/testing';

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

  signed(p: Principal, requestId = newId('request'), deadline = Date.now() + 10_000): Record<string, string> {
    return signInternalRequest(this.secret, p, requestId, deadline);
  }

  /** POST /scan; `body` may be a buffer or a function writing the request slowly. */
  scan(headers: Record<string, string>, body: Buffer | ((req: http.ClientRequest) => void)): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: this.port, path: '/scan', method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${this.boundary}`, ...headers } },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as Answer['body'] }));
        },
      );
      req.on('error', reject);
      if (typeof body === 'function') body(req);
      else req.end(body);
    });
  }
}
