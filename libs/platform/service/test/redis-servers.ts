/** Real redis-servers (and sentinels) of a test's own, on free loopback ports. */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';

export async function freePort(): Promise<number> {
  const s = net.createServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const p = (s.address() as net.AddressInfo).port;
  s.close();
  return p;
}

/** Starts `redis-server args…` (a sentinel too: its configuration file and `--sentinel`) and waits until it serves. */
export async function startRedisServer(args: string[]): Promise<ChildProcess> {
  const p = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let log = '';
  p.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  const deadline = Date.now() + 10_000;
  while (!/Ready to accept connections|Sentinel ID is/.test(log)) {
    assert.ok(Date.now() < deadline, `redis-server did not start:\n${log}`);
    assert.equal(p.exitCode, null, `redis-server exited:\n${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return p;
}
