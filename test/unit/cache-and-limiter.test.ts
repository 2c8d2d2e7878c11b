// The one cache (src/ops/cache.ts) and the one throttle (src/http/limiter-store.ts)
// every cache and counter of the service is built on: bounded, expiring, "off"
// meaning off; takes counted, refused with a wait, given back, shared in Redis.
import { randomUUID } from 'node:crypto';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { afterAll, describe, expect, it } from 'vitest';
import { createLimiterFactory, Limiter, type LimiterFactory, peekEach, takeEach, WindowCounts } from '../../src/http/limiter-store.js';
import { MemoryCache } from '../../src/ops/cache.js';
import { TEST_REDIS_PREFIX } from '../support/redis-prefix.js';

/** A clock the test moves; starts away from 0, which lru-cache reads as "no start". */
function clock() {
  let t = 1_000;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('MemoryCache', () => {
  it('keeps at most its entries, pushing out the least recently used', () => {
    const cache = new MemoryCache<string, number>({ entries: 3, ttlMs: 60_000 });
    for (const k of ['a', 'b', 'c']) cache.set(k, k.charCodeAt(0));
    expect(cache.get('a')).toBe(97); // now the most recently used
    cache.set('d', 100);
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([97, 99, 100]);
    for (let i = 0; i < 1000; i++) cache.set(`k${i}`, i);
    expect(cache.size).toBe(3);
  });

  it('forgets an entry once its time has passed, and an entry set with its own time after that', () => {
    const c = clock();
    const cache = new MemoryCache<string, string>({ entries: 10, ttlMs: 5_000, now: c.now });
    cache.set('long', 'x');
    cache.set('short', 'y', 1_000);
    c.advance(1_000);
    expect(cache.get('short')).toBe('y');
    c.advance(1);
    expect(cache.get('short')).toBeUndefined();
    expect(cache.get('long')).toBe('x');
    c.advance(4_000);
    expect(cache.get('long')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('is off with a time of 0: nothing is kept', () => {
    const cache = new MemoryCache<string, number>({ entries: 10, ttlMs: 0 });
    cache.set('a', 1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps entries until pushed out with an infinite time', () => {
    const c = clock();
    const cache = new MemoryCache<string, number>({ entries: 2, ttlMs: Infinity, now: c.now });
    cache.set('a', 1);
    c.advance(365 * 24 * 3600 * 1000);
    expect(cache.get('a')).toBe(1);
  });

  it('bounds entries of varying size by their size in all, and keeps none larger than that', () => {
    const cache = new MemoryCache<string, string>({ entries: 100, ttlMs: 60_000, size: { max: 10, of: (v) => v.length } });
    cache.set('a', 'xxxx');
    cache.set('b', 'xxxx');
    cache.set('c', 'xxxx');
    expect(cache.get('a')).toBeUndefined();
    expect([cache.get('b'), cache.get('c')]).toEqual(['xxxx', 'xxxx']);
    cache.set('huge', 'x'.repeat(11));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('c')).toBe('xxxx');
  });
});

describe('Limiter (in memory)', () => {
  let factory: LimiterFactory;
  const limiter = async (points: number, durationSeconds = 60) => {
    factory ??= await createLimiterFactory();
    return factory.create({ keyPrefix: `t-${randomUUID()}`, points, durationSeconds });
  };

  it('allows its points per key with what is left, then refuses with the seconds to wait', async () => {
    const l = await limiter(2, 60);
    expect(await l.take('k')).toEqual({ ok: true, left: { points: 1, msBeforeNext: expect.any(Number) } });
    expect((await l.take('k')).left?.points).toBe(0);
    const refused = await l.take('k');
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(refused.left.points).toBe(0);
    // Another key has its own points.
    expect((await l.take('other')).ok).toBe(true);
  });

  it('peeks without taking, gives a point back, and clears a key', async () => {
    const l = await limiter(1);
    expect((await l.peek('k')).ok).toBe(true);
    expect((await l.peek('k')).ok).toBe(true);
    expect((await l.take('k')).ok).toBe(true);
    expect((await l.peek('k')).ok).toBe(false);
    await l.giveBack('k');
    expect((await l.take('k')).ok).toBe(true);
    expect((await l.take('k')).ok).toBe(false);
    await l.clear('k');
    expect((await l.take('k')).ok).toBe(true);
  });

  it('takes from each counter at once, and gives back what the others took when one refuses', async () => {
    const small = await limiter(1, 60);
    const large = await limiter(5, 600);
    expect((await takeEach([[small, 'a'], [large, 'a']])).ok).toBe(true);
    const refused = await takeEach([[small, 'a'], [large, 'a']]);
    expect(refused.ok).toBe(false);
    // The large counter's point was given back: it has 4 left, not 3.
    expect((await large.take('a')).left?.points).toBe(3);
    // The wait is the longest of the refusals.
    await Promise.all([large.take('a'), large.take('a'), large.take('a')]);
    const both = await peekEach([[small, 'a'], [large, 'a']]);
    expect(!both.ok && both.retryAfterSeconds).toBeGreaterThan(60);
  });

  it('lets a take through and tells when the store does not answer', async () => {
    const failing = new RateLimiterMemory({ points: 1, duration: 60 });
    const down = new Error('store down');
    failing.consume = () => Promise.reject(down);
    failing.get = () => Promise.reject(down);
    const heard: unknown[] = [];
    const l = new Limiter(failing, 1, (err) => heard.push(err));
    expect(await l.take('k')).toEqual({ ok: true });
    expect(await l.peek('k')).toEqual({ ok: true });
    expect(heard).toEqual([down, down]);
  });
});

describe('WindowCounts (the in-memory store)', () => {
  it('counts in a fixed window opened by the first take, refused takes included, as rate-limiter-flexible did', async () => {
    const c = clock();
    const counts = new WindowCounts(2, 60, c.now);
    const flexible = new RateLimiterMemory({ points: 2, duration: 60 });
    const theirs = new Limiter(flexible, 2, () => undefined);
    const ours = new Limiter(counts, 2, () => undefined);
    // Same sequence on both: two allowed, the third and fourth refused, and what is left each time.
    for (let i = 0; i < 4; i++) {
      const [a, b] = [await ours.take('k'), await theirs.take('k')];
      expect(a.ok).toBe(b.ok);
      expect(a.left?.points).toBe(b.left?.points);
    }
    c.advance(30_000);
    const refused = counts.take('k');
    expect(refused).toEqual({ ok: false, retryAfterSeconds: 30, left: { points: 0, msBeforeNext: 30_000 } });
    // The window ends 60 s after its first take, whatever was taken in it.
    c.advance(30_000);
    expect(counts.take('k')).toEqual({ ok: true, left: { points: 1, msBeforeNext: 60_000 } });
  });

  it('answers at once, without a promise', () => {
    const counts = new WindowCounts(1, 60);
    expect(counts.take('k')).toEqual({ ok: true, left: { points: 0, msBeforeNext: 60_000 } });
    expect(new Limiter(counts, 1, () => undefined).takeNow('k')).toMatchObject({ ok: false, retryAfterSeconds: 60 });
  });

  it('drops ended windows as later takes come, without a timer per key', () => {
    const c = clock();
    const counts = new WindowCounts(5, 1, c.now);
    for (let i = 0; i < 1000; i++) counts.take(`addr:${i}`);
    expect(counts.size).toBe(1000);
    c.advance(1_000);
    counts.take('late');
    expect(counts.size).toBe(1);
  });

  it('peeks, gives back and clears as the store did', () => {
    const c = clock();
    const counts = new WindowCounts(1, 10, c.now);
    expect(counts.peek('k')).toEqual({ ok: true });
    counts.take('k');
    expect(counts.peek('k')).toEqual({ ok: false, retryAfterSeconds: 10, left: { points: 0, msBeforeNext: 10_000 } });
    counts.giveBack('k');
    expect(counts.take('k').ok).toBe(true);
    counts.clear('k');
    expect(counts.take('k').ok).toBe(true);
    // Outside any window, a point given back opens one at -1 (rate-limiter-flexible's reward did the same).
    c.advance(10_000);
    counts.giveBack('k');
    expect(counts.take('k')).toEqual({ ok: true, left: { points: 1, msBeforeNext: 10_000 } });
  });
});

const REDIS_URL = process.env.TEST_REDIS_URL;

describe.skipIf(!REDIS_URL)('Limiter (Redis)', () => {
  const factories: LimiterFactory[] = [];
  afterAll(async () => {
    await Promise.all(factories.map((f) => f.close()));
  });

  it('shares its counts between processes (two clients) and gives back across them', async () => {
    const [a, b] = await Promise.all([createLimiterFactory(REDIS_URL, TEST_REDIS_PREFIX), createLimiterFactory(REDIS_URL, TEST_REDIS_PREFIX)]);
    factories.push(a, b);
    const keyPrefix = `unit-${randomUUID()}`;
    const [la, lb] = [a.create({ keyPrefix, points: 2, durationSeconds: 60 }), b.create({ keyPrefix, points: 2, durationSeconds: 60 })];
    expect((await la.take('k')).ok).toBe(true);
    expect((await lb.take('k')).ok).toBe(true);
    expect((await la.peek('k')).ok).toBe(false);
    await lb.giveBack('k');
    expect((await la.take('k')).left?.points).toBe(0);
    expect((await lb.take('k')).ok).toBe(false);
    await la.clear('k');
    expect((await lb.take('k')).left?.points).toBe(1);
  });

  it('keeps the counts of deployments with another REDIS_PREFIX apart', async () => {
    const [a, b] = await Promise.all([createLimiterFactory(REDIS_URL, `${TEST_REDIS_PREFIX}a:`), createLimiterFactory(REDIS_URL, `${TEST_REDIS_PREFIX}b:`)]);
    factories.push(a, b);
    const keyPrefix = `unit-${randomUUID()}`;
    const [la, lb] = [a.create({ keyPrefix, points: 1, durationSeconds: 60 }), b.create({ keyPrefix, points: 1, durationSeconds: 60 })];
    expect((await la.take('k')).ok).toBe(true);
    expect((await la.take('k')).ok).toBe(false);
    expect((await lb.take('k')).ok).toBe(true);
  });
});
