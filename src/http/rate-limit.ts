// Per application key and user (address when no user) request budget, with
// the RateLimit-* headers of client-compat on every reply.
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimitConfig } from '../config.js';
import { ApiError } from './errors.js';
import type { LimiterFactory } from './limiter-store.js';

export const MAX_RESET_SECONDS = 120;

export interface RateDecision {
  headers: Record<string, string>;
  /** Set when the request must be refused with a 429. */
  error?: ApiError;
}

export class RateLimit {
  private readonly limiter: RateLimiterAbstract;
  private readonly limitHeader: string;

  constructor(
    config: RateLimitConfig,
    factory: LimiterFactory,
    private readonly onStoreError: (err: unknown) => void,
  ) {
    this.limiter = factory.create({ keyPrefix: 'rate', points: config.points, durationSeconds: config.windowSeconds });
    this.limitHeader = `${config.points}, ${config.points};w=${config.windowSeconds}`;
  }

  async consume(key: string): Promise<RateDecision> {
    try {
      const res = await this.limiter.consume(key, 1);
      return { headers: this.headers(res) };
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        const headers = this.headers(err);
        const retryAfter = Number(headers['RateLimit-Reset']);
        headers['Retry-After'] = String(retryAfter);
        return {
          headers,
          error: new ApiError('rate_limited', `too many requests: wait ${retryAfter} s`, { retryAfter }),
        };
      }
      // The shared store is down: serving beats refusing everyone.
      this.onStoreError(err);
      return { headers: { 'RateLimit-Limit': this.limitHeader } };
    }
  }

  private headers(res: RateLimiterRes): Record<string, string> {
    const reset = Math.min(MAX_RESET_SECONDS, Math.max(1, Math.ceil(res.msBeforeNext / 1000)));
    return {
      'RateLimit-Limit': this.limitHeader,
      'RateLimit-Remaining': String(Math.max(0, res.remainingPoints)),
      'RateLimit-Reset': String(reset),
    };
  }
}
