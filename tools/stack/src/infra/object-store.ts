import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../stack.js';
import { ServerProcess } from './process.js';

/** The credentials the local object store accepts (its built-in account). */
export const OBJECT_STORE_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

/**
 * An S3-compatible object store as a server of its own, for `npm start -- --object-store` and the tests: s3rver
 * from npm (the S3 REST protocol over HTTP, objects as files in `directory`), since MinIO's server is in neither
 * the npm registry nor Debian's packages (docs/decisions.md). `stop` and `start` take it down and bring it back
 * on the same port with the same objects, as an outage of the store would.
 */
export class ObjectStoreServer {
  private server: ServerProcess | null = null;

  private constructor(
    readonly port: number,
    readonly directory: string,
    private readonly buckets: string[],
    private readonly temporary: boolean,
  ) {}

  /** On `port` with its objects in `directory` (kept), or on a free port in a temporary directory (removed on close). */
  static async start(buckets: string[], where?: { port: number; directory: string }): Promise<ObjectStoreServer> {
    if (where) mkdirSync(where.directory, { recursive: true });
    const s = where
      ? new ObjectStoreServer(where.port, where.directory, buckets, false)
      : new ObjectStoreServer(await freePort(), mkdtempSync(path.join(os.tmpdir(), 'verity-objects-')), buckets, true);
    await s.start();
    return s;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const bin = createRequire(import.meta.url).resolve('s3rver/bin/s3rver.js');
    const args = [bin, '-d', this.directory, '-a', '127.0.0.1', '-p', String(this.port), '--silent', '--no-vhost-buckets'];
    for (const b of this.buckets) args.push('--configure-bucket', b);
    this.server = await ServerProcess.start({ name: 'object store (s3rver)', command: process.execPath, args, port: this.port, readyTimeoutMs: 15_000 });
  }

  async stop(): Promise<void> {
    await this.server?.stop();
    this.server = null;
  }

  async close(): Promise<void> {
    await this.stop();
    if (this.temporary) rmSync(this.directory, { recursive: true, force: true });
  }
}
