import type { Principal } from '@verity/contracts';

interface Entry {
  principal: Principal;
  expires: number;
}

/**
 * Verified keys, by key hash, for a short time. Entries are dropped on revocation and organization events
 * from NATS and in any case expire after `ttlMs`, so a revoked key stops working within that bound.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 50_000,
  ) {}

  get(hash: string, now = Date.now()): Principal | undefined {
    const e = this.entries.get(hash);
    if (!e) return undefined;
    if (e.expires <= now) {
      this.entries.delete(hash);
      return undefined;
    }
    return e.principal;
  }

  set(hash: string, principal: Principal, now = Date.now()): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(hash, { principal, expires: now + this.ttlMs });
  }

  dropKey(keyId: string): void {
    for (const [h, e] of this.entries) if (e.principal.key_id === keyId) this.entries.delete(h);
  }

  dropOrg(orgId: string): void {
    for (const [h, e] of this.entries) if (e.principal.org_id === orgId) this.entries.delete(h);
  }

  get size(): number {
    return this.entries.size;
  }
}
