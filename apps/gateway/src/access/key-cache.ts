import type { Principal } from '@verity/contracts';
import { TtlCache } from '@verity/platform';

/**
 * Verified keys, by key hash, for a short time. Entries are dropped on revocation and organization events
 * from NATS and in any case expire after `ttlMs`, so a revoked key stops working within that bound.
 */
export class KeyCache extends TtlCache<string, Principal> {
  constructor(ttlMs: number, maxEntries = 50_000) {
    super(ttlMs, maxEntries);
  }

  dropKey(keyId: string): void {
    this.deleteWhere((p) => p.key_id === keyId);
  }

  dropOrg(orgId: string): void {
    this.deleteWhere((p) => p.org_id === orgId);
  }
}
