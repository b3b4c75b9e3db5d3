import net from 'node:net';
import { once } from 'node:events';

/**
 * What a Kubernetes Service does for the replicas of one app, played locally: a TCP listener on the address
 * clients know (a region's public port, or evidence's and id-scan's internal port) that hands each new
 * connection to the next replica's own port, round-robin, and skips a replica that refuses (stopped, crashed,
 * not listening yet) for the next one. Bytes are passed through untouched; a connection stays with the replica
 * it was given to, as behind kube-proxy. When every replica refuses, the client's connection is closed.
 */
export class RoundRobinProxy {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private next = 0;
  /** Connections handed to each target port, since start (tests check that the load was spread). */
  readonly served = new Map<number, number>();

  constructor(
    readonly port: number,
    private readonly targets: () => number[],
  ) {
    this.server = net.createServer({ pauseOnConnect: true, allowHalfOpen: true }, (client) => this.accept(client));
  }

  async listen(): Promise<void> {
    this.server.listen(this.port, '127.0.0.1');
    await once(this.server, 'listening');
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  private track(s: net.Socket): void {
    this.sockets.add(s);
    s.once('close', () => this.sockets.delete(s));
  }

  private accept(client: net.Socket): void {
    this.track(client);
    client.on('error', () => client.destroy());
    const ports = this.targets();
    const start = this.next++;
    const attempt = (tried: number): void => {
      if (client.destroyed) return;
      if (tried >= ports.length) {
        client.destroy();
        return;
      }
      const port = ports[(start + tried) % ports.length]!;
      const upstream = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      this.track(upstream);
      upstream.once('error', () => {
        upstream.destroy();
        attempt(tried + 1);
      });
      upstream.once('connect', () => {
        upstream.removeAllListeners('error');
        if (client.destroyed) {
          upstream.destroy();
          return;
        }
        this.served.set(port, (this.served.get(port) ?? 0) + 1);
        // each side's end is passed on by pipe (half-closes included); a broken side breaks the other
        upstream.on('error', () => client.destroy());
        client.on('close', () => upstream.destroy());
        upstream.on('close', (hadError) => hadError && client.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    attempt(0);
  }
}
