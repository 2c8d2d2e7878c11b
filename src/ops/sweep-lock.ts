// One worker at a time for each sweep: a Redis lock (SET NX PX with a random
// token, renewed while the run lasts, released only by its holder). Without
// Redis there is a single process, and the work simply runs.
import { randomBytes } from 'node:crypto';

/** Deletes lock KEYS[1] if it still holds token ARGV[1] (shared with the tus locker, src/resumable-uploads/tus-locker.ts). */
export const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
/** Sets lock KEYS[1]'s TTL to ARGV[2] ms if it still holds token ARGV[1]. */
export const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

export interface Exclusive {
  /** Runs `work` unless another process holds `name`; false when it was skipped. */
  run(name: string, work: () => Promise<unknown>): Promise<boolean>;
  /** Throws when the lock's store is unreachable (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function localExclusive(): Exclusive {
  return {
    run: async (_name, work) => {
      await work();
      return true;
    },
    ping: async () => {},
    close: async () => {},
  };
}

/** `ttlMs`: how long a lock outlives a holder that died without releasing it; `prefix` starts its key (REDIS_PREFIX). */
export async function redisExclusive(redisUrl: string, opts: { ttlMs?: number; prefix?: string } = {}): Promise<Exclusive> {
  const ttlMs = opts.ttlMs ?? 60_000;
  const prefix = opts.prefix ?? 'mps:';
  const { Redis } = await import('ioredis');
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 2, lazyConnect: false });
  client.on('error', () => {
    /* a failed acquire is reported by run() */
  });
  return {
    async run(name, work) {
      const key = `${prefix}lock:${name}`;
      const token = randomBytes(16).toString('hex');
      const got = await client.set(key, token, 'PX', ttlMs, 'NX');
      if (got !== 'OK') return false;
      const renew = setInterval(() => void client.eval(RENEW, 1, key, token, String(ttlMs)).catch(() => {}), Math.floor(ttlMs / 3));
      renew.unref();
      try {
        await work();
      } finally {
        clearInterval(renew);
        await client.eval(RELEASE, 1, key, token).catch(() => {});
      }
      return true;
    },
    async ping() {
      await client.ping();
    },
    async close() {
      await client.quit().catch(() => client.disconnect());
    },
  };
}
