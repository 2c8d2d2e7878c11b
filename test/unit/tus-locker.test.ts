// The tus endpoint's Redis locker (src/resumable-uploads/tus-locker.ts) against a real Redis
// (TEST_REDIS_URL), two lockers on connections of their own standing for two API nodes: one
// holder at a time; a waiting request's release request reaches the holder, which lets go; a
// holder that vanishes without unlocking blocks the upload only until its TTL lapses; a wait ends
// with @tus/server's own ERR_LOCK_TIMEOUT at its timeout or its request's abort, as MemoryLocker's.
// The cross-node run through the service is in test/studio/studio-upload-s3.test.ts.
import { randomUUID } from 'node:crypto';
import { ERRORS, type Lock } from '@tus/server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisTusLocker, redisTusLocker, type RedisTusLockerOptions } from '../../src/resumable-uploads/tus-locker.js';

const REDIS_URL = process.env.TEST_REDIS_URL;

describe.skipIf(!REDIS_URL)('the tus locker in Redis', () => {
  const lockers: RedisTusLocker[] = [];
  /** Every warning with its upload: a test checks its own uploads' only (an earlier test's short-TTL node, starved on a loaded machine, may still warn about its own). */
  const warnings: Array<{ upload: string; msg: string }> = [];
  const log = { warn: (o: object, msg?: string) => void warnings.push({ upload: String((o as { upload?: string }).upload), msg: msg ?? '' }) };
  /** Reads Redis as an operator would: the lock's key, the release channel's subscribers. */
  let redis: Redis;

  /** A locker as one node builds it. */
  async function node(opts?: RedisTusLockerOptions): Promise<RedisTusLocker> {
    const l = await redisTusLocker(REDIS_URL!, log, opts);
    lockers.push(l);
    return l;
  }
  const upload = () => `resumable/${randomUUID()}`;
  const subscribers = async (id: string) => ((await redis.pubsub('NUMSUB', `mps:tus-release:${id}`)) as [string, number])[1];
  const never = new AbortController().signal;

  beforeAll(() => {
    redis = new Redis(REDIS_URL!);
  });
  afterAll(async () => {
    await Promise.all(lockers.map((l) => l.close()));
    redis.disconnect();
  });

  it("lets one node hold an upload; another's request asks the holder to let go and has the lock once it did", async () => {
    const [a, b] = [await node(), await node()];
    const id = upload();
    const events: string[] = [];
    const held = a.newLock(id);
    let released = false;
    await held.lock(never, () => {
      // @tus/server's requestRelease ends the holder's request, which then unlocks: here at once.
      events.push('holder asked');
      if (released) return;
      released = true;
      events.push('holder unlocks');
      void held.unlock();
    });
    expect(await redis.get(`mps:tus-lock:${id}`)).toMatch(/^[0-9a-f]{32}$/);
    // The other node's request for the same upload waits, and asks.
    const second = b.newLock(id);
    await second.lock(never, () => undefined).then(() => events.push('second has it'));
    expect(events.slice(0, 3)).toEqual(['holder asked', 'holder unlocks', 'second has it']);
    await second.unlock();
    expect(await redis.exists(`mps:tus-lock:${id}`)).toBe(0);
    // Nothing listens for the upload once nobody holds it.
    expect(await subscribers(id)).toBe(0);
    // Unlocking what is not held is an error, as with MemoryLocker.
    await expect(second.unlock()).rejects.toThrow('Releasing an unlocked lock!');
  });

  it('keeps a holder that does not let go (renewed past its TTL); the waiting request fails with ERR_LOCK_TIMEOUT', async () => {
    const a = await node({ ttlMs: 300 });
    const b = await node({ acquireTimeoutMs: 1500 });
    const id = upload();
    let asked = 0;
    const held = a.newLock(id);
    await held.lock(never, () => void asked++);
    await expect(b.newLock(id).lock(never, () => undefined)).rejects.toBe(ERRORS.ERR_LOCK_TIMEOUT);
    expect(asked).toBeGreaterThan(0);
    // Still the holder's: its own key, the release channel listened to.
    expect(await redis.exists(`mps:tus-lock:${id}`)).toBe(1);
    expect(await subscribers(id)).toBe(1);
    await held.unlock();
    expect(await redis.exists(`mps:tus-lock:${id}`)).toBe(0);
  });

  it("ends a wait when the request's signal aborts (ERR_LOCK_TIMEOUT), taking nothing", async () => {
    const [a, b] = [await node(), await node()];
    const id = upload();
    const held = a.newLock(id);
    let asked!: () => void;
    const wasAsked = new Promise<void>((r) => (asked = r));
    await held.lock(never, () => asked());
    const request = new AbortController();
    const waiting = expect(b.newLock(id).lock(request.signal, () => undefined)).rejects.toBe(ERRORS.ERR_LOCK_TIMEOUT);
    await wasAsked;
    request.abort();
    await waiting;
    const token = await redis.get(`mps:tus-lock:${id}`);
    await held.unlock();
    expect(token).not.toBeNull();
    // The next request has it at once: the aborted one left nothing behind.
    const next = b.newLock(id);
    await next.lock(never, () => undefined);
    await next.unlock();
  });

  it('lets another node have an upload once the TTL of a holder that vanished without unlocking has lapsed', async () => {
    // The vanishing node on connections of the test's own, cut as a crash cuts them.
    const client = new Redis(REDIS_URL!, { maxRetriesPerRequest: 0, retryStrategy: () => null });
    const subscriber = client.duplicate();
    for (const c of [client, subscriber]) c.on('error', () => undefined);
    const a = new RedisTusLocker(client, subscriber, log, { ttlMs: 500 });
    lockers.push(a);
    const b = await node({ acquireTimeoutMs: 20_000 });
    const id = upload();
    let asked = 0;
    await a.newLock(id).lock(never, () => void asked++);
    expect(await redis.pttl(`mps:tus-lock:${id}`)).toBeGreaterThan(0);
    client.disconnect();
    subscriber.disconnect();
    const after = b.newLock(id);
    await after.lock(never, () => undefined);
    // Nobody heard the release requests: the lock lapsed.
    expect(asked).toBe(0);
    await after.unlock();
  });

  it('on close, releases the locks it holds and ends its waits', async () => {
    const [a, b, c] = [await node(), await node(), await node()];
    const id = upload();
    const other = upload();
    const held: Lock = a.newLock(id);
    await held.lock(never, () => undefined);
    await b.newLock(other).lock(never, () => undefined);
    // Its end is watched from the start: close() rejects it while the test awaits the close (an
    // expectation attached after that await came too late, and Node 24 reported the rejection).
    const waiting = expect(b.newLock(id).lock(never, () => undefined)).rejects.toBe(ERRORS.ERR_LOCK_TIMEOUT);
    await b.close();
    await waiting;
    expect(await redis.exists(`mps:tus-lock:${other}`)).toBe(0);
    await expect(b.newLock(upload()).lock(never, () => undefined)).rejects.toBe(ERRORS.ERR_LOCK_TIMEOUT);
    await a.close();
    // The request that held it unlocks after the close: nothing to do.
    await held.unlock();
    expect(await redis.exists(`mps:tus-lock:${id}`)).toBe(0);
    const next = c.newLock(id);
    await next.lock(never, () => undefined);
    await next.unlock();
    expect(warnings.filter((w) => w.upload === id || w.upload === other)).toEqual([]);
  });
});
