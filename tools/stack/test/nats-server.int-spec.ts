import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { connectNats } from '@verity/platform';
import { NatsServer } from '../src/nats.js';
import { freePort } from '../src/stack.js';

describe("a stack's own nats-server", () => {
  it('refuses to start on a port another process holds, rather than let the services log in to that one', async () => {
    const port = await freePort();
    const squatter = net.createServer().listen(port, '127.0.0.1');
    await once(squatter, 'listening');
    const server = new NatsServer({ root: 'us', port });
    try {
      await assert.rejects(server.start(), new RegExp(`port ${port} .* is in use`));
    } finally {
      await server.stop();
      squatter.close();
    }
  });

  it('starts with the generated configuration and admits its identities only', async () => {
    const server = new NatsServer({ root: 'us', port: await freePort(), includeTestIdentities: true });
    try {
      await server.start();
      const nc = await connectNats(server.url, 'reader', server.credentials('test-reader'));
      await nc.close();
      await assert.rejects(connectNats(server.url, 'anonymous').then((c) => c.close()), /authorization violation/i);
    } finally {
      await server.stop();
    }
  });
});
