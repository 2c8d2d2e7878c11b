// A request budget per client address for what visitors fetch without any
// key: the website's pages and sign-in pages (VISITOR_RATE_LIMIT), and
// `/files` (VISITOR_FILES_RATE_LIMIT). Counters live in the limiter store
// (src/http/limiter-store.ts), so with Redis every process shares them. Built
// once in src/app.ts: the pages and the sign-in pages share one counter.
import type { RateLimitConfig } from '../../config.js';
import type { Limiter, LimiterFactory } from '../../http/limiter-store.js';

export class VisitorBudget {
  private readonly limiter: Limiter | null;

  constructor(
    limiters: LimiterFactory,
    config: RateLimitConfig | null,
    keyPrefix: string,
    /** The store is down: the request goes through (visitors are not locked out), and this is told. */
    onStoreError: (err: unknown) => void,
  ) {
    this.limiter = config ? limiters.create({ keyPrefix, points: config.points, durationSeconds: config.windowSeconds }, onStoreError) : null;
  }

  /** Takes one request of `address`: undefined within the budget, else the seconds to wait. */
  async take(address: string): Promise<number | undefined> {
    const taken = await this.limiter?.take(`addr:${address}`);
    return taken && !taken.ok ? taken.retryAfterSeconds : undefined;
  }
}
