/**
 * A bounded map whose entries expire `ttlMs` after they were set: the local caches in front of another
 * service (verified keys in the gateway, template pins in sessions). A `ttlMs` of 0 disables caching. When
 * full, the oldest entry makes room. Entries can be dropped on invalidation events, one by key or by a test.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get(key: K, now = Date.now()): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: K, value: V, now = Date.now()): void {
    if (this.ttlMs <= 0) return;
    // a value set again is the newest: it moves to the end of the eviction order
    if (!this.entries.delete(key) && this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expires: now + this.ttlMs });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  /** Drops every entry whose value matches. */
  deleteWhere(match: (value: V) => boolean): void {
    for (const [k, e] of this.entries) if (match(e.value)) this.entries.delete(k);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
