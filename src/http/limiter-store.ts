// The one throttle of the service: counters of points per key and window, in
// memory by default, in Redis when REDIS_URL is set so several processes share
// them. The API's rate limit, the login throttle, the visitors' password and
// sign-in-link throttles and the visitor budgets all take points through
// `Limiter`; rate-limiter-flexible is used here only, for Redis. In memory the
// counts are `WindowCounts` (below): the same fixed windows, answered at once.
import { RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface LimiterOptions {
  /** Names the counter in the store (Redis: `<REDIS_PREFIX><keyPrefix>:<key>`, `mps:` unless configured). */
  keyPrefix: string;
  /** Points a key may take per window. */
  points: number;
  durationSeconds: number;
}

export interface LimiterFactory {
  /**
   * A counter; `onStoreError` hears of a store that did not answer, and the
   * take is then let through: serving beats locking everyone out.
   */
  create(opts: LimiterOptions, onStoreError?: (err: unknown) => void): Limiter;
  close(): Promise<void>;
}

/** What a key has left after a take. */
export interface Left {
  points: number;
  msBeforeNext: number;
}

/**
 * One take: allowed (with what is left, unless the store did not answer), or
 * refused with the whole seconds to wait (at least 1).
 */
export type Taken = { ok: true; left?: Left } | { ok: false; retryAfterSeconds: number; left: Left };

const leftOf = (res: RateLimiterRes): Left => ({ points: Math.max(0, res.remainingPoints), msBeforeNext: res.msBeforeNext });
const refused = (res: RateLimiterRes): Taken => ({ ok: false, retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)), left: leftOf(res) });
const ignore = () => {};

/** One key's window: points taken so far, and when (epoch ms) the window ends. */
interface Window {
  taken: number;
  until: number;
}

/**
 * In-memory counts in fixed windows, as rate-limiter-flexible's memory store keeps them (a key's
 * window opens at its first take and its count starts again once the window has passed; refused
 * takes count too; a point given back outside a window opens one at -1), answered synchronously:
 * the memory store answered each take with a promise, a result object and, per new window, a
 * timer, 15–25 µs of every API request under the default RATE_LIMIT (issue 31). Windows past their
 * end are dropped by a walk at most once per window length, from a take: no timer per key.
 */
export class WindowCounts {
  private readonly windows = new Map<string, Window>();
  private readonly windowMs: number;
  private nextSweep: number;

  constructor(
    readonly points: number,
    durationSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    // rate-limiter-flexible's duration 0: one window that never ends.
    this.windowMs = durationSeconds > 0 ? durationSeconds * 1000 : Infinity;
    this.nextSweep = this.now() + this.windowMs;
  }

  /** Takes `points` of `key`: what is left, or the refusal with its wait. */
  take(key: string, points = 1): Taken {
    const now = this.now();
    if (now >= this.nextSweep) this.sweep(now);
    const w = this.add(key, points, now);
    const msBeforeNext = w.until === Infinity ? -1 : w.until - now;
    const left = { points: Math.max(0, this.points - w.taken), msBeforeNext };
    return w.taken > this.points ? { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)), left } : { ok: true, left };
  }

  /** Whether a take of `key` would be refused now, without taking anything. */
  peek(key: string): Taken {
    const now = this.now();
    const w = this.live(key, now);
    if (!w || w.taken < this.points) return { ok: true };
    const msBeforeNext = w.until === Infinity ? -1 : w.until - now;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)), left: { points: 0, msBeforeNext } };
  }

  /** Gives `points` of `key` back. */
  giveBack(key: string, points = 1): void {
    this.add(key, -points, this.now());
  }

  clear(key: string): void {
    this.windows.delete(key);
  }

  /** Windows held, ended ones not yet dropped included. */
  get size(): number {
    return this.windows.size;
  }

  private live(key: string, now: number): Window | undefined {
    const w = this.windows.get(key);
    return w !== undefined && now < w.until ? w : undefined;
  }

  private add(key: string, points: number, now: number): Window {
    const w = this.live(key, now);
    if (w !== undefined) {
      w.taken += points;
      return w;
    }
    const opened = { taken: points, until: now + this.windowMs };
    this.windows.set(key, opened);
    return opened;
  }

  private sweep(now: number): void {
    for (const [key, w] of this.windows) if (now >= w.until) this.windows.delete(key);
    this.nextSweep = now + this.windowMs;
  }
}

export class Limiter {
  private readonly counter: RateLimiterAbstract | undefined;
  private readonly counts: WindowCounts | undefined;

  /** Over a store of rate-limiter-flexible (Redis), or over in-memory `WindowCounts`. */
  constructor(
    counter: RateLimiterAbstract | WindowCounts,
    readonly points: number,
    private readonly onStoreError: (err: unknown) => void,
  ) {
    if (counter instanceof WindowCounts) this.counts = counter;
    else this.counter = counter;
  }

  /** Takes `points` (one unless told: bytes, for a budget of bytes) of `key`, atomically in the store. */
  async take(key: string, points = 1): Promise<Taken> {
    return this.takeNow(key, points);
  }

  /** `take`, answered at once (no promise) when the counts are in memory. */
  takeNow(key: string, points = 1): Taken | Promise<Taken> {
    if (this.counts) return this.counts.take(key, points);
    return this.counter!.consume(key, points).then(
      (res) => ({ ok: true, left: leftOf(res) }),
      (err: unknown) => {
        if (err instanceof RateLimiterRes) return refused(err);
        this.onStoreError(err);
        return { ok: true };
      },
    );
  }

  /** Whether a take of `key` would be refused now, without taking anything. */
  async peek(key: string): Promise<Taken> {
    if (this.counts) return this.counts.peek(key);
    const res = await this.counter!.get(key).catch((err: unknown) => (this.onStoreError(err), null));
    return res && res.consumedPoints >= this.points ? refused(res) : { ok: true };
  }

  /** Gives one point of `key` back (a take that should not count). */
  async giveBack(key: string): Promise<void> {
    if (this.counts) return this.counts.giveBack(key);
    return this.counter!.reward(key, 1).then(ignore, this.onStoreError);
  }

  /** Forgets every point `key` took. */
  async clear(key: string): Promise<void> {
    if (this.counts) return this.counts.clear(key);
    return this.counter!.delete(key).then(ignore, this.onStoreError);
  }
}

/** One counter per entry of `limits`, under the same names. */
export function createEach<N extends string>(factory: LimiterFactory, limits: Readonly<Record<N, LimiterOptions>>, onStoreError?: (err: unknown) => void): Record<N, Limiter> {
  const out = {} as Record<N, Limiter>;
  for (const name of Object.keys(limits) as N[]) out[name] = factory.create(limits[name], onStoreError);
  return out;
}

/**
 * Takes one point from each counter at once, so simultaneous requests cannot
 * all pass a check made before any counted. When one refuses, the points the
 * others gave are given back (a refusal by one is not held against the
 * others), and the wait is the longest of the refusals.
 */
export async function takeEach(takes: ReadonlyArray<readonly [Limiter, string]>): Promise<Taken> {
  const results = await Promise.all(takes.map(([limiter, key]) => limiter.take(key)));
  const refusal = longest(results);
  if (refusal.ok) return refusal;
  await Promise.all(takes.map(([limiter, key], i) => (results[i].ok && results[i].left ? limiter.giveBack(key) : undefined)));
  return refusal;
}

/** Whether `takeEach` would be refused now, without taking anything. */
export async function peekEach(takes: ReadonlyArray<readonly [Limiter, string]>): Promise<Taken> {
  return longest(await Promise.all(takes.map(([limiter, key]) => limiter.peek(key))));
}

function longest(results: readonly Taken[]): Taken {
  let out: Taken = { ok: true };
  for (const r of results) if (!r.ok && (out.ok || r.left.msBeforeNext > out.left.msBeforeNext)) out = r;
  return out;
}

// ioredis is loaded only when Redis is used: it weighs ~28 MiB of memory in every process.
/** `prefix` starts every counter's key in Redis (REDIS_PREFIX). */
export async function createLimiterFactory(redisUrl?: string, prefix = 'mps:'): Promise<LimiterFactory> {
  if (!redisUrl) {
    return {
      create: ({ points, durationSeconds }, onStoreError = ignore) => new Limiter(new WindowCounts(points, durationSeconds), points, onStoreError),
      close: async () => {},
    };
  }
  const { Redis } = await import('ioredis');
  const client = new Redis(redisUrl, { enableOfflineQueue: true, maxRetriesPerRequest: 2, lazyConnect: false });
  client.on('error', () => {
    /* reported per request through the limiter's rejection */
  });
  return {
    create: ({ keyPrefix, points, durationSeconds }, onStoreError = ignore) =>
      new Limiter(new RateLimiterRedis({ storeClient: client, keyPrefix: `${prefix}${keyPrefix}`, points, duration: durationSeconds }), points, onStoreError),
    close: async () => {
      await client.quit().catch(() => client.disconnect());
    },
  };
}
