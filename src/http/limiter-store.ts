// Counters shared by the rate limit and the login throttle: in memory by
// default, in Redis when REDIS_URL is set so several processes share them.
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface LimiterFactory {
  create(opts: { keyPrefix: string; points: number; durationSeconds: number }): RateLimiterAbstract;
  close(): Promise<void>;
}

// ioredis is loaded only when Redis is used: it weighs ~28 MiB of memory in every process.
export async function createLimiterFactory(redisUrl?: string): Promise<LimiterFactory> {
  if (!redisUrl) {
    return {
      create: ({ keyPrefix, points, durationSeconds }) => new RateLimiterMemory({ keyPrefix, points, duration: durationSeconds }),
      close: async () => {},
    };
  }
  const { Redis } = await import('ioredis');
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
