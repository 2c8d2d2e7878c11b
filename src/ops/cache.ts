// The one in-process cache: lru-cache with the rules every cache here keeps, written once (a bound,
// each entry's own expiry, "off" meaning off); the page memos are a StampedMemo (below).
// docs/architecture.md, "Caches and throttles" and "Other caches".
import { LRUCache } from 'lru-cache';

export interface CacheOptions<V> {
  /** The most entries kept; the least recently used go first. */
  entries: number;
  /** How long an entry is kept, in ms. 0 (or less): nothing is kept. Infinity: until pushed out. */
  ttlMs: number;
  /** For entries of varying size: the most units kept in all, and an entry's units (a larger one is not kept). */
  size?: { max: number; of: (value: V) => number };
  /** The clock, in ms (tests). */
  now?: () => number;
}

export class MemoryCache<K extends {}, V extends {}> {
  // Each entry carries its own expiry, read against the clock at each get: lru-cache's own
  // TTLs arm a timer every millisecond they are read (to reuse a clock reading), which cost
  // the signed request path more than the lookups (the sessions and API keys, issue 31).
  private readonly lru: LRUCache<K, { value: V; until: number }> | undefined;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: CacheOptions<V>) {
    this.ttlMs = options.ttlMs;
    this.now = options.now ?? Date.now;
    if (options.ttlMs <= 0) return;
    this.lru = new LRUCache<K, { value: V; until: number }>({
      max: options.entries,
      ...(options.size ? { maxSize: options.size.max, sizeCalculation: (e: { value: V }) => Math.max(1, options.size!.of(e.value)) } : {}),
    });
  }

  /** The live entry of `key`; an expired one is dropped. */
  get(key: K): V | undefined {
    const hit = this.lru?.get(key);
    if (hit === undefined) return undefined;
    if (hit.until !== Infinity && this.now() > hit.until) {
      this.lru!.delete(key);
      return undefined;
    }
    return hit.value;
  }

  /** Keeps `value` for the cache's time, or for `ttlMs` (finite, positive) when given. */
  set(key: K, value: V, ttlMs?: number): void {
    if (!this.lru) return;
    const ttl = ttlMs ?? this.ttlMs;
    this.lru.set(key, { value, until: Number.isFinite(ttl) ? this.now() + Math.ceil(ttl) : Infinity });
  }

  delete(key: K): void {
    this.lru?.delete(key);
  }

  /** Drops every entry whose value `matches` (a walk over all of them: for rare events, such as a user signing out everywhere). */
  deleteWhere(matches: (value: V) => boolean): void {
    if (!this.lru) return;
    for (const [key, entry] of this.lru.entries()) if (matches(entry.value)) this.lru.delete(key);
  }

  /** Entries held, expired ones not yet dropped included. */
  get size(): number {
    return this.lru?.size ?? 0;
  }
}

/**
 * Values built from the database and kept while a stamp the database moves at every relevant
 * write (a trigger's counter) is unchanged: the page memos of galleries and lists (issue 22).
 * Readers of a new stamp share one build; a value counts its `sizeOf` units against `maxSize`
 * once built (1 while building); a failed build is forgotten. The caller reads the stamp before
 * the build reads its rows, so a value kept under a stamp is never older than that stamp.
 */
export class StampedMemo<K extends {}, V> {
  private readonly lru: LRUCache<K, { stamp: string; value: Promise<V>; size: number }>;

  constructor(private readonly options: { maxSize: number; sizeOf: (value: V) => number }) {
    this.lru = new LRUCache({ maxSize: options.maxSize, sizeCalculation: (e) => Math.max(1, e.size) });
  }

  /** The value kept under `stamp` (built or still building), without building one. */
  peek(key: K, stamp: string): Promise<V> | undefined {
    const hit = this.lru.get(key);
    return hit && hit.stamp === stamp ? hit.value : undefined;
  }

  get(key: K, stamp: string, build: () => Promise<V>): Promise<V> {
    const hit = this.lru.get(key);
    if (hit && hit.stamp === stamp) return hit.value;
    const entry = { stamp, size: 1, value: build() };
    this.lru.set(key, entry);
    entry.value.then(
      (value) => {
        if (this.lru.peek(key) !== entry) return;
        entry.size = this.options.sizeOf(value) + 1;
        this.lru.set(key, entry);
      },
      () => {
        if (this.lru.peek(key) === entry) this.lru.delete(key);
      },
    );
    return entry.value;
  }
}
