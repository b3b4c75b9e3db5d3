import type { Principal } from '@verity/contracts';
import { LRUCache } from 'lru-cache';

/**
 * Verified keys, by key hash, for a short time. Entries are dropped on revocation and organization events
 * from NATS and in any case expire after `ttlMs`, so a revoked key stops working within that bound. A `ttlMs`
 * of 0 caches nothing; at most `maxEntries` are held, the least recently used making room.
 *
 * Lookups go through `lookup`, one per key at a time however many requests arrive with it. An invalidation
 * (a key revoked, an organization changed, the connection gap) that arrives while a lookup is on its way
 * wins: requests arriving after it start a lookup of their own, and the answer of the older lookup, which may
 * have been read before the change, is neither cached nor used: that key is looked up again.
 */
export class KeyCache {
  private readonly entries: LRUCache<string, Principal> | null;
  /** Counts invalidations: a lookup that saw it change while it was on its way read a state that may be gone. */
  private generation = 0;
  private readonly inflight = new Map<string, Promise<Principal | null>>();

  constructor(ttlMs: number, maxEntries = 50_000) {
    this.entries = ttlMs > 0 ? new LRUCache({ max: maxEntries, ttl: ttlMs }) : null;
  }

  get(hash: string): Principal | undefined {
    return this.entries?.get(hash);
  }

  set(hash: string, principal: Principal): void {
    this.entries?.set(hash, principal);
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }

  /** The principal of a key hash: cached, or from `verify` (the accounts service), shared by concurrent callers. */
  lookup(hash: string, verify: () => Promise<Principal | null>): Promise<Principal | null> {
    const cached = this.get(hash);
    if (cached) return Promise.resolve(cached);
    let p = this.inflight.get(hash);
    if (!p) {
      p = this.verifyFresh(hash, verify).finally(() => {
        if (this.inflight.get(hash) === p) this.inflight.delete(hash);
      });
      this.inflight.set(hash, p);
    }
    return p;
  }

  /** Asks `verify` until an answer arrives with no invalidation on its way (twice at most), caching only that. */
  private async verifyFresh(hash: string, verify: () => Promise<Principal | null>): Promise<Principal | null> {
    for (let attempt = 1; ; attempt++) {
      const seen = this.generation;
      const principal = await verify();
      if (this.generation === seen) {
        if (principal) this.set(hash, principal);
        return principal;
      }
      // an invalidation came while the answer was on its way: the answer asked after it is the one that counts
      if (attempt === 2) return principal;
    }
  }

  dropKey(keyId: string): void {
    this.dropWhere((p) => p.key_id === keyId);
  }

  dropOrg(orgId: string): void {
    this.dropWhere((p) => p.org_id === orgId);
  }

  clear(): void {
    this.invalidated();
    this.entries?.clear();
  }

  private dropWhere(match: (p: Principal) => boolean): void {
    this.invalidated();
    if (!this.entries) return;
    for (const [hash, p] of [...this.entries.entries()]) if (match(p)) this.entries.delete(hash);
  }

  private invalidated(): void {
    this.generation++;
    // requests arriving from now on do not join a lookup that may have read the old state
    this.inflight.clear();
  }
}
