// Per application key and user (address when no user) request budget, with
// the RateLimit-* headers of client-compat on every reply.
import type { RateLimitConfig } from '../config.js';
import { ApiError } from '../core/errors.js';
import type { Left, Limiter, LimiterFactory, Taken } from './limiter-store.js';

export const MAX_RESET_SECONDS = 120;

export interface RateDecision {
  headers: Record<string, string>;
  /** Set when the request must be refused with a 429. */
  error?: ApiError;
}

export class RateLimit {
  private readonly limiter: Limiter;
  private readonly limitHeader: string;

  /** `keyPrefix`: the counter's name in the store ('rate': the API's; the studio's budget is another). */
  constructor(config: RateLimitConfig, factory: LimiterFactory, onStoreError: (err: unknown) => void, keyPrefix = 'rate') {
    this.limiter = factory.create({ keyPrefix, points: config.points, durationSeconds: config.windowSeconds }, onStoreError);
    this.limitHeader = `${config.points}, ${config.points};w=${config.windowSeconds}`;
  }

  /** The decision on one take of `key`'s budget: at once when the counts are in memory, else a promise. */
  consume(key: string): RateDecision | Promise<RateDecision> {
    const taken = this.limiter.takeNow(key);
    return taken instanceof Promise ? taken.then((t) => this.decide(t)) : this.decide(taken);
  }

  private decide(taken: Taken): RateDecision {
    // No count when the shared store is down: the request is let through with the limit alone.
    if (!taken.left) return { headers: { 'RateLimit-Limit': this.limitHeader } };
    const headers = this.headers(taken.left);
    if (taken.ok) return { headers };
    const retryAfter = Number(headers['RateLimit-Reset']);
    headers['Retry-After'] = String(retryAfter);
    return { headers, error: new ApiError('rate_limited', `too many requests: wait ${retryAfter} s`, { retryAfter }) };
  }

  private headers(left: Left): Record<string, string> {
    const reset = Math.min(MAX_RESET_SECONDS, Math.max(1, Math.ceil(left.msBeforeNext / 1000)));
    return {
      'RateLimit-Limit': this.limitHeader,
      'RateLimit-Remaining': String(left.points),
      'RateLimit-Reset': String(reset),
    };
  }
}
