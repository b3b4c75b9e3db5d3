/**
 * A bounded least-recently-used map: `get` marks an entry as used, `set` beyond capacity evicts the entry
 * used longest ago. Map iteration order is insertion order, so the first key is always the eldest.
 */
export class LruCache<K, V> {
  private readonly map = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
  }

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    if (!this.map.has(key)) return undefined;
    const value = this.map.get(key) as V;
    this.map.delete(key);
    this.map.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.capacity) {
      const eldest = this.map.keys().next().value as K;
      this.map.delete(eldest);
    }
  }

  /** Removes `key` only while it still maps to `value` (a newer entry under the same key stays). */
  deleteIf(key: K, value: V): void {
    if (this.map.get(key) === value) this.map.delete(key);
  }

  /** Removes every entry whose key matches; how many went. */
  deleteWhere(match: (key: K) => boolean): number {
    let n = 0;
    for (const key of [...this.map.keys()]) {
      if (match(key)) {
        this.map.delete(key);
        n += 1;
      }
    }
    return n;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }
}
