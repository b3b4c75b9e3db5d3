/** Helpers of the ID-scan end-to-end tests: multipart bodies built byte by byte, sent whole, chunked or slowly. */
import http from 'node:http';

export { multipart, type Multipart, type Part } from '@verity/testing';

export interface Sent {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: { data?: Record<string, unknown>; error?: { code: string; message: string; param?: string; details?: Record<string, unknown>; request_id: string; type: string; doc_url: string } };
  /** Body bytes written before the answer arrived. */
  sentBeforeAnswer: number;
  ms: number;
}

/**
 * POSTs a body to `url` the way a client on a slow or hostile link would: in `chunk`-byte writes `delayMs`
 * apart, with a Content-Length (`declare`) or chunked, and stops writing as soon as an answer arrives.
 */
export function post(
  url: string,
  headers: Record<string, string>,
  body: Buffer | { size: number; head: Buffer },
  opts: { chunk?: number; delayMs?: number; declare?: boolean } = {},
): Promise<Sent> {
  const u = new URL(url);
  const total = Buffer.isBuffer(body) ? body.length : body.size;
  const chunk = opts.chunk ?? 1024 * 1024;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let sent = 0;
    let answered = false;
    const h: Record<string, string> = { ...headers };
    if (opts.declare !== false) h['content-length'] = String(total);
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: h, agent: false }, (res) => {
      answered = true;
      const at = sent;
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString();
        let parsed: Sent['body'] = {};
        try {
          parsed = JSON.parse(text) as Sent['body'];
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode!, headers: res.headers, text, body: parsed, sentBeforeAnswer: at, ms: Date.now() - started });
        req.destroy();
      });
    });
    req.on('error', (e) => {
      if (!answered) reject(e);
    });
    const piece = (from: number, n: number): Buffer => {
      if (Buffer.isBuffer(body)) return body.subarray(from, from + n);
      // a generated body: `head`, then filler
      const out = Buffer.alloc(n, 0x41);
      if (from < body.head.length) body.head.copy(out, 0, from, Math.min(body.head.length, from + n));
      return out;
    };
    const pump = () => {
      if (answered || req.destroyed) return;
      if (sent >= total) {
        req.end();
        return;
      }
      const n = Math.min(chunk, total - sent);
      const ok = req.write(piece(sent, n));
      sent += n;
      const next = () => (opts.delayMs ? setTimeout(pump, opts.delayMs) : setImmediate(pump));
      if (ok) next();
      else req.once('drain', next);
    };
    pump();
  });
}
