// The one in-process cache of the service: lru-cache, with the rules every
// cache here keeps written once: a bound on its entries (and on their size in
// all where they vary), an expiry, and "off" meaning off. Sessions, API keys,
// the website's pages, the /files answers, unknown sign-in links, unknown host
// names and SQLite's prepared statements are kept in one each; the page memos of galleries and
// lists in a StampedMemo (below).
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
  private readonly lru: LRUCache<K, V> | undefined;

  constructor(options: CacheOptions<V>) {
    if (options.ttlMs <= 0) return;
    this.lru = new LRUCache<K, V>({
      max: options.entries,
      ...(Number.isFinite(options.ttlMs) ? { ttl: Math.ceil(options.ttlMs) } : {}),
      // lru-cache reuses a clock reading for 1 ms (measured: about half the cost of a
      // get); a test's clock is read at each get, so that moving it shows at once.
      ttlResolution: options.now ? 0 : 1,
      ...(options.size ? { maxSize: options.size.max, sizeCalculation: (v: V) => Math.max(1, options.size!.of(v)) } : {}),
      ...(options.now ? { perf: { now: options.now } } : {}),
    });
  }

  /** The live entry of `key`; an expired one is dropped. */
  get(key: K): V | undefined {
    return this.lru?.get(key);
  }

  /** Keeps `value` for the cache's time, or for `ttlMs` (finite, positive) when given. */
  set(key: K, value: V, ttlMs?: number): void {
    this.lru?.set(key, value, ttlMs === undefined ? undefined : { ttl: Math.ceil(ttlMs) });
  }

  delete(key: K): void {
    this.lru?.delete(key);
  }

  /** Drops every entry whose value `matches` (a walk over all of them: for rare events, such as a user signing out everywhere). */
  deleteWhere(matches: (value: V) => boolean): void {
    if (!this.lru) return;
    for (const [key, value] of this.lru.entries()) if (matches(value)) this.lru.delete(key);
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
