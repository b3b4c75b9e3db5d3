import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

/** One request a test receiver got, as the receiver saw it (raw body, lower-cased headers). */
export interface ReceivedWebhook {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  receivedAt: number;
}

/** A status, or a status with headers (e.g. a Location). */
export type Answer = number | { status: number; headers?: Record<string, string> };

export interface WebhookReceiver {
  /** Base URL, e.g. `https://127.0.0.1:43121`; append any path. */
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** Decides the answer to each request (default 200); `n` counts requests with the same webhook-id, from 1. */
  respond: (req: ReceivedWebhook, n: number) => Answer | Promise<Answer>;
  /** Requests with this webhook-id, in arrival order. */
  byId(id: string): ReceivedWebhook[];
  close(): Promise<void>;
}

/**
 * The certificate of the test receivers: the paths test.mjs generated (self-signed for 127.0.0.1 and
 * localhost, trusted by the services under test through NODE_EXTRA_CA_CERTS).
 */
export function testTls(): { cert: Buffer; key: Buffer } {
  const cert = process.env.WEBHOOK_TEST_TLS_CERT;
  const key = process.env.WEBHOOK_TEST_TLS_KEY;
  if (!cert || !key) throw new Error('WEBHOOK_TEST_TLS_CERT and WEBHOOK_TEST_TLS_KEY are not set: run tests with node tools/scripts/test.mjs');
  return { cert: readFileSync(cert), key: readFileSync(key) };
}

/**
 * A webhook receiver on loopback (HTTPS with `tls`, else plain HTTP) that records every request and answers
 * with the status `respond` picks.
 */
export async function startWebhookReceiver(opts: { tls?: { cert: Buffer; key: Buffer }; host?: string } = {}): Promise<WebhookReceiver> {
  const counts = new Map<string, number>();
  const receiver: WebhookReceiver = {
    url: '',
    port: 0,
    received: [],
    respond: () => 200,
    byId: (id) => receiver.received.filter((r) => r.headers['webhook-id'] === id),
    close: async () => {
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      const got: ReceivedWebhook = { method: req.method ?? '', path: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
      receiver.received.push(got);
      const id = headers['webhook-id'] ?? '';
      const n = (counts.get(id) ?? 0) + 1;
      counts.set(id, n);
      void Promise.resolve(receiver.respond(got, n)).then(
        (answer) => {
          const { status, headers: extra } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
          res.writeHead(status, { 'content-type': 'text/plain', ...extra }).end(status < 300 ? 'ok' : 'no');
        },
        () => res.writeHead(500).end(),
      );
    });
  };
  const server = opts.tls ? https.createServer({ cert: opts.tls.cert, key: opts.tls.key }, handler) : http.createServer(handler);
  server.keepAliveTimeout = 5000;
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `${opts.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${receiver.port}`;
  return receiver;
}
