// Counters that keep visitors from guessing gallery passwords and from making
// the service mail addresses in bulk. They live in the limiter store
// (src/http/limiter-store.ts): in memory, or in Redis shared by every process.
// Each take counts on every counter at once (takeEach); when the store is down
// the request goes through (logged): visitors are not locked out.
import { createHash } from 'node:crypto';
import { createEach, type Limiter, type LimiterFactory, type Taken, takeEach } from '../../http/limiter-store.js';

export type { Taken };

const QUARTER_HOUR = 15 * 60;

/** Wrong passwords of one gallery from one address, and of all galleries from one address. */
export const PASSWORD_LIMITS = {
  perGallery: { keyPrefix: 'visitor-password', points: 5, durationSeconds: QUARTER_HOUR },
  perAddress: { keyPrefix: 'visitor-password-address', points: 30, durationSeconds: QUARTER_HOUR },
} as const;

/**
 * The throttle of the gallery password form. The caller takes an attempt
 * before checking the password (so parallel guesses are counted) and gives
 * it back when the password was right: only wrong ones add up.
 */
export class PasswordThrottle {
  private readonly limits: Record<keyof typeof PASSWORD_LIMITS, Limiter>;

  constructor(limiters: LimiterFactory, onStoreError?: (err: unknown) => void) {
    this.limits = createEach(limiters, PASSWORD_LIMITS, onStoreError);
  }

  private counters(websiteUuid: string, galleryUuid: string, address: string): Array<[Limiter, string]> {
    return [
      [this.limits.perGallery, `${websiteUuid}:${galleryUuid}:${address}`],
      [this.limits.perAddress, address],
    ];
  }

  /** One attempt at a gallery's password; refused when too many were wrong lately. */
  take(websiteUuid: string, galleryUuid: string, address: string): Promise<Taken> {
    return takeEach(this.counters(websiteUuid, galleryUuid, address));
  }

  /** The password was right: the attempt taken for it does not count. */
  async succeeded(websiteUuid: string, galleryUuid: string, address: string): Promise<void> {
    await Promise.all(this.counters(websiteUuid, galleryUuid, address).map(([limiter, key]) => limiter.giveBack(key)));
  }
}

/**
 * Wrong download PINs (docs/delivery.md "Download controls"): per gallery from one address, per
 * gallery for one pass (an address that changes keeps its pass), and per gallery from everyone
 * (a 4-digit PIN tried from many addresses: 10 000 guesses at 100 an hour).
 */
export const PIN_LIMITS = {
  perAddress: { keyPrefix: 'download-pin-address', points: 5, durationSeconds: QUARTER_HOUR },
  perPass: { keyPrefix: 'download-pin-pass', points: 5, durationSeconds: QUARTER_HOUR },
  perGallery: { keyPrefix: 'download-pin-gallery', points: 100, durationSeconds: 60 * 60 },
} as const;

/** The throttle of the download PIN form: taken before the PIN is compared, given back when it was right. */
export class PinThrottle {
  private readonly limits: Record<keyof typeof PIN_LIMITS, Limiter>;

  constructor(limiters: LimiterFactory, onStoreError?: (err: unknown) => void) {
    this.limits = createEach(limiters, PIN_LIMITS, onStoreError);
  }

  private counters(galleryUuid: string, address: string, passId: string | undefined): Array<[Limiter, string]> {
    return [
      [this.limits.perAddress, `${galleryUuid}:${address}`],
      ...(passId ? ([[this.limits.perPass, `${galleryUuid}:${passId}`]] as Array<[Limiter, string]>) : []),
      [this.limits.perGallery, galleryUuid],
    ];
  }

  take(galleryUuid: string, address: string, passId: string | undefined): Promise<Taken> {
    return takeEach(this.counters(galleryUuid, address, passId));
  }

  async succeeded(galleryUuid: string, address: string, passId: string | undefined): Promise<void> {
    await Promise.all(this.counters(galleryUuid, address, passId).map(([limiter, key]) => limiter.giveBack(key)));
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
  perAddress: { keyPrefix: 'visitor-link-address', points: 10, durationSeconds: QUARTER_HOUR },
  perAddressEmail: { keyPrefix: 'visitor-link-address-email', points: 3, durationSeconds: QUARTER_HOUR },
  perEmail: { keyPrefix: 'visitor-link-email', points: 20, durationSeconds: 60 * 60 },
} as const;

export class LinkThrottle {
  private readonly limits: Record<keyof typeof LINK_LIMITS, Limiter>;

  constructor(limiters: LimiterFactory, onStoreError?: (err: unknown) => void) {
    this.limits = createEach(limiters, LINK_LIMITS, onStoreError);
  }

  take(websiteUuid: string, email: string, address: string): Promise<Taken> {
    // Visitors' addresses are not written in clear to the shared store.
    const emailKey = createHash('sha256').update(`${websiteUuid}:${email}`).digest('base64url');
    return takeEach([
      [this.limits.perAddress, address],
      [this.limits.perAddressEmail, `${emailKey}:${address}`],
      [this.limits.perEmail, emailKey],
    ]);
  }
}
