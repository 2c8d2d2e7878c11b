// Counters that keep visitors from guessing gallery passwords and from making
// the service mail addresses in bulk. They live in the limiter store
// (src/http/limiter-store.ts): in memory, or in Redis shared by every process.
import { createHash } from 'node:crypto';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { LimiterFactory } from '../http/limiter-store.js';

export type Taken = { ok: true } | { ok: false; retryAfterSeconds: number };

/**
 * Takes one point from each counter at once, atomically in the store, so
 * simultaneous requests cannot all pass a check made before any counted.
 * A point refused by one counter is given back to the others. When the store
 * is down the request goes through (logged): visitors are not locked out.
 */
async function takeAll(counters: ReadonlyArray<readonly [RateLimiterAbstract, string]>, onStoreError: (err: unknown) => void): Promise<Taken> {
  const results = await Promise.allSettled(counters.map(([limiter, key]) => limiter.consume(key)));
  const refusals: RateLimiterRes[] = [];
  for (const r of results) {
    if (r.status === 'fulfilled') continue;
    if (r.reason instanceof RateLimiterRes) refusals.push(r.reason);
    else onStoreError(r.reason);
  }
  if (refusals.length === 0) return { ok: true };
  await Promise.all(
    counters.map(([limiter, key], i) => (results[i].status === 'fulfilled' ? limiter.reward(key, 1).catch(onStoreError) : undefined)),
  );
  return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(Math.max(...refusals.map((r) => r.msBeforeNext)) / 1000)) };
}

/** Wrong passwords of one gallery from one address, and of all galleries from one address. */
export const PASSWORD_LIMITS = {
  perGallery: { points: 5, durationSeconds: 15 * 60 },
  perAddress: { points: 30, durationSeconds: 15 * 60 },
} as const;

/**
 * The throttle of the gallery password form. The caller takes an attempt
 * before checking the password (so parallel guesses are counted) and gives
 * it back when the password was right: only wrong ones add up.
 */
export class PasswordThrottle {
  private readonly perGallery: RateLimiterAbstract;
  private readonly perAddress: RateLimiterAbstract;

  constructor(
    limiters: LimiterFactory,
    private readonly onStoreError: (err: unknown) => void = () => {},
  ) {
    this.perGallery = limiters.create({ keyPrefix: 'visitor-password', ...PASSWORD_LIMITS.perGallery });
    this.perAddress = limiters.create({ keyPrefix: 'visitor-password-address', ...PASSWORD_LIMITS.perAddress });
  }

  /** One attempt at a gallery's password; refused when too many were wrong lately. */
  take(websiteUuid: string, galleryUuid: string, address: string): Promise<Taken> {
    return takeAll(
      [
        [this.perGallery, `${websiteUuid}:${galleryUuid}:${address}`],
        [this.perAddress, address],
      ],
      this.onStoreError,
    );
  }

  /** The password was right: the attempt taken for it does not count. */
  async succeeded(websiteUuid: string, galleryUuid: string, address: string): Promise<void> {
    await Promise.all([
      this.perGallery.reward(`${websiteUuid}:${galleryUuid}:${address}`, 1).catch(this.onStoreError),
      this.perAddress.reward(address, 1).catch(this.onStoreError),
    ]);
  }
}

/**
 * Sign-in link requests. Per client address (any website, any e-mail), and per
 * address and e-mail (on one website): what one person asking again and again
 * meets. Per e-mail alone only far beyond what a person does (it bounds the
 * mail one inbox can be sent), so that a stranger asking for someone's address
 * from their own connection cannot keep that person from signing in.
 */
export const LINK_LIMITS = {
  perAddress: { points: 10, durationSeconds: 15 * 60 },
  perAddressEmail: { points: 3, durationSeconds: 15 * 60 },
  perEmail: { points: 20, durationSeconds: 60 * 60 },
} as const;

export class LinkThrottle {
  private readonly perAddress: RateLimiterAbstract;
  private readonly perAddressEmail: RateLimiterAbstract;
  private readonly perEmail: RateLimiterAbstract;

  constructor(
    limiters: LimiterFactory,
    private readonly onStoreError: (err: unknown) => void = () => {},
  ) {
    this.perAddress = limiters.create({ keyPrefix: 'visitor-link-address', ...LINK_LIMITS.perAddress });
    this.perAddressEmail = limiters.create({ keyPrefix: 'visitor-link-address-email', ...LINK_LIMITS.perAddressEmail });
    this.perEmail = limiters.create({ keyPrefix: 'visitor-link-email', ...LINK_LIMITS.perEmail });
  }

  take(websiteUuid: string, email: string, address: string): Promise<Taken> {
    // Visitors' addresses are not written in clear to the shared store.
    const emailKey = createHash('sha256').update(`${websiteUuid}:${email}`).digest('base64url');
    return takeAll(
      [
        [this.perAddress, address],
        [this.perAddressEmail, `${emailKey}:${address}`],
        [this.perEmail, emailKey],
      ],
      this.onStoreError,
    );
  }
}
