// The sender thread (see SenderThread): a ReceiverClient of its own, fed with batches of requests by the
// service's main thread and answering with batches of results.
import { parentPort, workerData } from 'node:worker_threads';
import { DestinationGuard, ReceiverClient, resolverOf } from './receiver.client.js';
import type { FromSender, SenderOptions, ToSender } from './sender.js';
import { signedHeaders } from './signing.js';

const port = parentPort!;
const opts = workerData as SenderOptions;
const client = new ReceiverClient(new DestinationGuard(opts.allowPrivateNetworks, resolverOf(opts.dnsServers)), opts.timeoutMs);
let results: Array<FromSender[number]> = [];
let flushing = false;

/** Results that arrive in one turn of the event loop go back in one message. */
function answer(result: FromSender[number]): void {
  results.push(result);
  if (flushing) return;
  flushing = true;
  setImmediate(() => {
    flushing = false;
    const out = results;
    results = [];
    port.postMessage(out);
  });
}

port.on('message', (msg: ToSender) => {
  if (msg === 'close') {
    void client.close().finally(() => port.close());
    return;
  }
  for (const [id, a] of msg) {
    // Buffers arrive as Uint8Arrays
    const keys = a.keys.map((k) => Buffer.from(k.buffer, k.byteOffset, k.byteLength));
    void client.post(a.url, signedHeaders(keys, a.eventId, Math.floor(Date.now() / 1000), a.body), a.body).then((r) => answer([id, r]));
  }
});
