// The one throttle of the service: counters of points per key and window, in
// memory by default, in Redis when REDIS_URL is set so several processes share
// them. The API's rate limit, the login throttle, the visitors' password and
// sign-in-link throttles and the visitor budgets all take points through
// `Limiter`; rate-limiter-flexible is used here only.
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

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

export class Limiter {
  constructor(
    private readonly counter: RateLimiterAbstract,
    readonly points: number,
    private readonly onStoreError: (err: unknown) => void,
  ) {}

  /** Takes `points` (one unless told: bytes, for a budget of bytes) of `key`, atomically in the store. */
  async take(key: string, points = 1): Promise<Taken> {
    try {
      return { ok: true, left: leftOf(await this.counter.consume(key, points)) };
    } catch (err) {
      if (err instanceof RateLimiterRes) return refused(err);
      this.onStoreError(err);
      return { ok: true };
    }
  }

  /** Whether a take of `key` would be refused now, without taking anything. */
  async peek(key: string): Promise<Taken> {
    const res = await this.counter.get(key).catch((err: unknown) => (this.onStoreError(err), null));
    return res && res.consumedPoints >= this.points ? refused(res) : { ok: true };
  }

  /** Gives one point of `key` back (a take that should not count). */
  giveBack(key: string): Promise<void> {
    return this.counter.reward(key, 1).then(ignore, this.onStoreError);
  }

  /** Forgets every point `key` took. */
  clear(key: string): Promise<void> {
    return this.counter.delete(key).then(ignore, this.onStoreError);
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
      create: ({ keyPrefix, points, durationSeconds }, onStoreError = ignore) =>
        new Limiter(new RateLimiterMemory({ keyPrefix, points, duration: durationSeconds }), points, onStoreError),
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
