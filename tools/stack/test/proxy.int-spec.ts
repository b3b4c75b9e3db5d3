/** The round-robin proxy that plays a Kubernetes Service in front of an app's replicas, on loopback sockets. */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { RoundRobinProxy } from '../src/proxy.js';
import { freePort } from '../src/stack.js';

/** An HTTP server answering its own name. */
async function replica(name: string): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => res.end(`${name}:${Buffer.concat(chunks).length}`));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as { port: number }).port,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/** One request on a connection of its own. */
async function ask(port: number, body = ''): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body, headers: { connection: 'close' } });
  return res.text();
}

describe('RoundRobinProxy', () => {
  const closers: Array<() => Promise<void>> = [];
  after(async () => {
    for (const c of closers.reverse()) await c();
  });

  it('hands connections to the replicas in turn, bodies intact, and counts them', async () => {
    const a = await replica('a');
    const b = await replica('b');
    const c = await replica('c');
    const proxy = new RoundRobinProxy(await freePort(), () => [a.port, b.port, c.port]);
    await proxy.listen();
    closers.push(a.close, b.close, c.close, () => proxy.close());
    const answers: string[] = [];
    for (let i = 0; i < 6; i++) answers.push(await ask(proxy.port, 'x'.repeat(100_000)));
    assert.deepEqual(answers.sort(), ['a:100000', 'a:100000', 'b:100000', 'b:100000', 'c:100000', 'c:100000']);
    assert.deepEqual([proxy.served.get(a.port), proxy.served.get(b.port), proxy.served.get(c.port)], [2, 2, 2]);
  });

  it('skips a replica that refuses, and closes the connection when every one does', async () => {
    const a = await replica('a');
    const gone = await freePort();
    const proxy = new RoundRobinProxy(await freePort(), () => [gone, a.port]);
    await proxy.listen();
    closers.push(() => proxy.close());
    for (let i = 0; i < 4; i++) assert.equal(await ask(proxy.port), 'a:0');
    assert.equal(proxy.served.get(gone), undefined);
    await a.close();
    await assert.rejects(ask(proxy.port));
  });
});
