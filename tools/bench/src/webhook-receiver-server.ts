// The receiver of the webhook benchmark, in a process of its own so that neither measured path shares its
// CPU with it: HTTPS with the benchmark's certificate, 200 to every POST, the body read and dropped.
import https from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

const server = https.createServer({ cert: readFileSync(process.env.TLS_CERT!), key: readFileSync(process.env.TLS_KEY!) }, (req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-length': '0' }).end());
});
server.keepAliveTimeout = 10_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`ready ${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
