// Counters shared by the rate limit and the login throttle: in memory by
// default, in Redis when REDIS_URL is set so several processes share them.
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface LimiterFactory {
  create(opts: { keyPrefix: string; points: number; durationSeconds: number }): RateLimiterAbstract;
  close(): Promise<void>;
}

export function createLimiterFactory(redisUrl?: string): LimiterFactory {
  if (!redisUrl) {
    return {
      create: ({ keyPrefix, points, durationSeconds }) => new RateLimiterMemory({ keyPrefix, points, duration: durationSeconds }),
      close: async () => {},
    };
  }
  const client = new Redis(redisUrl, { enableOfflineQueue: true, maxRetriesPerRequest: 2, lazyConnect: false });
  client.on('error', () => {
    /* reported per request through the limiter's rejection */
  });
  return {
    create: ({ keyPrefix, points, durationSeconds }) =>
      new RateLimiterRedis({ storeClient: client, keyPrefix: `mps:${keyPrefix}`, points, duration: durationSeconds }),
    close: async () => {
      await client.quit().catch(() => client.disconnect());
    },
  };
}
