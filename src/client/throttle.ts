// Client-side pacing from the RateLimit-* and Retry-After headers (spec 8):
// when the bucket is empty the next request waits until it refills, rather
// than earning a 429.

export interface RateLimitState {
  limit?: string;
  remaining?: number;
  /** Seconds until the bucket refills, as of the reply. */
  reset?: number;
}

/** Waits are capped: the service promises at most 120 s (client-compat). */
export const MAX_WAIT_SECONDS = 120;

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function nonNegative(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const n = Number(value.trim());
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

function seconds(value: string | null): number | undefined {
  const n = nonNegative(value);
  return n === undefined ? undefined : Math.min(n, MAX_WAIT_SECONDS);
}

export function readRateLimit(headers: Headers): RateLimitState {
  return {
    limit: headers.get('ratelimit-limit') ?? undefined,
    remaining: nonNegative(headers.get('ratelimit-remaining')),
    reset: seconds(headers.get('ratelimit-reset')),
  };
}

/** Retry-After in seconds: either delay-seconds or an HTTP date. */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after');
  const direct = seconds(value);
  if (direct !== undefined || value === null) return direct;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.min(Math.max(0, (date - now) / 1000), MAX_WAIT_SECONDS);
}

export class Throttle {
  private notBefore = 0;
  last: RateLimitState = {};

  constructor(
    private readonly sleep: Sleep = realSleep,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records the rate headers of a reply. */
  observe(headers: Headers): void {
    this.last = readRateLimit(headers);
    if (this.last.remaining === 0 && this.last.reset !== undefined) this.delayFor(this.last.reset);
  }

  /** Pushes the earliest time of the next request out by `secs` from now. */
  delayFor(secs: number): void {
    this.notBefore = Math.max(this.notBefore, this.now() + secs * 1000);
  }

  /** Waits, if needed, before the next request. */
  async ready(): Promise<void> {
    const wait = this.notBefore - this.now();
    if (wait > 0) await this.sleep(wait);
  }
}
