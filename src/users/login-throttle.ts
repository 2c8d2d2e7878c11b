// The login throttle, the one behind the API's Basic login, the studio's sign-in and the account
// screens' current passwords, on the limiter store. Failures count per account, per (account, address
// or device cookie) and per address; the account's budget binds only addresses and browsers that never
// signed in to it, so strangers lock out no one but strangers (docs/conventions.md, "Users and sessions
// (spec 5.2)"; docs/security.md, "Photographers' accounts").
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../core/errors.js';
import { createEach, type Limiter, type LimiterFactory, type Taken } from '../http/limiter-store.js';
import type { UserRow } from '../database/schema.js';

/** Failed logins per quarter of an hour: of an account, of an account from one address (or device), of an address. */
export const LOGIN_LIMITS = {
  account: { keyPrefix: 'login-account', points: 10, durationSeconds: 15 * 60 },
  pair: { keyPrefix: 'login-pair', points: 10, durationSeconds: 15 * 60 },
  address: { keyPrefix: 'login-address', points: 50, durationSeconds: 15 * 60 },
};

/** How long an address of a successful sign-in is remembered (the hourly session purge forgets older ones). */
export const LOGIN_ORIGIN_DAYS = 400;

/** Addresses of an account's past successful sign-ins, as HMACs (src/users/repository.ts). */
export interface LoginOrigins {
  knownOrigin(userId: number, origin: string): Promise<boolean>;
  rememberOrigin(userId: number, origin: string): Promise<void>;
}

/** A device cookie's content, once its MAC was verified: the account it signed in to, and its own id. */
export interface DeviceProof {
  userId: number;
  id: string;
}

/** One login attempt: the account named (its row when it exists), where from, and the device cookie sent, if any. */
export interface Attempt {
  /** The login as typed, trimmed and lower-cased: unknown accounts are counted too. */
  accountKey: string;
  /** The client's address; undefined when its connection has already closed (Fastify's req.ip then). */
  address: string | undefined;
  user?: Pick<UserRow, 'id'>;
  device?: DeviceProof;
}

const DEVICE = /^([1-9][0-9]{0,15})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

export class LoginThrottle {
  private readonly counters: Record<keyof typeof LOGIN_LIMITS, Limiter>;
  private readonly originKey: Buffer;
  private readonly deviceKey: Buffer;

  constructor(
    limiters: LimiterFactory,
    private readonly origins: LoginOrigins,
    /** The service's secret (UPLOAD_SECRET): keys for the addresses' HMACs and the device cookies, derived by HKDF. */
    secret: Buffer,
    /** The store is down: logging in beats locking everyone out, and this is told. */
    onStoreError: (err: unknown) => void = () => {},
  ) {
    this.counters = createEach(limiters, LOGIN_LIMITS, onStoreError);
    this.originKey = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'mps login origins', 32));
    this.deviceKey = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'mps login devices', 32));
  }

  /** A new device cookie's value for a browser that just signed in to `userId`. */
  mintDevice(userId: number): string {
    const id = randomBytes(16).toString('base64url');
    return `${userId}.${id}.${this.mac(userId, id)}`;
  }

  /** The device cookie's proof, when its MAC is right (compared in constant time); else undefined. */
  readDevice(value: string | undefined): DeviceProof | undefined {
    const m = value === undefined ? null : DEVICE.exec(value);
    if (!m) return undefined;
    const userId = Number(m[1]);
    const expected = Buffer.from(this.mac(userId, m[2]));
    const given = Buffer.from(m[3]);
    return given.length === expected.length && timingSafeEqual(given, expected) ? { userId, id: m[2] } : undefined;
  }

  private mac(userId: number, id: string): string {
    return createHmac('sha256', this.deviceKey).update(`${userId}.${id}`).digest('base64url');
  }

  /** The device cookie, when it is one of this account's. */
  private deviceOf(a: Attempt): DeviceProof | undefined {
    return a.user && a.device?.userId === a.user.id ? a.device : undefined;
  }

  private originOf(address: string): string {
    return createHmac('sha256', this.originKey).update(address).digest('base64url');
  }

  private takes(a: Attempt): Array<[Limiter, string]> {
    const device = this.deviceOf(a);
    const address = addressOf(a);
    return [
      [this.counters.account, a.accountKey],
      [this.counters.pair, device ? `${a.accountKey} device ${device.id}` : `${a.accountKey} ${address}`],
      [this.counters.address, address],
    ];
  }

  /** This browser (its device cookie) or this address signed in to the account before. */
  private async trusted(a: Attempt): Promise<boolean> {
    if (!a.user) return false;
    if (this.deviceOf(a)) return true;
    return this.origins.knownOrigin(a.user.id, this.originOf(addressOf(a)));
  }

  /** The refusal, if any: the pair's or the address's; the account's for a stranger only. */
  private async decide(a: Attempt, [account, pair, address]: Taken[]): Promise<Taken> {
    const refusal = longest([pair, address]);
    if (!refusal.ok || account.ok) return refusal;
    return (await this.trusted(a)) ? { ok: true } : account;
  }

  /**
   * Counts one attempt before its password is checked, atomically in the store (simultaneous
   * attempts cannot all pass a check made before any of them failed); 429 `login_throttled` when
   * refused, and then the attempt counts nowhere.
   */
  async take(a: Attempt): Promise<void> {
    const takes = this.takes(a);
    const results = await Promise.all(takes.map(([limiter, key]) => limiter.take(key)));
    const refusal = await this.decide(a, results);
    if (refusal.ok) return;
    await Promise.all(takes.map(([limiter, key], i) => (results[i].ok && results[i].left ? limiter.giveBack(key) : undefined)));
    throw throttled(refusal);
  }

  /** Refuses as `take` would, without counting (a two-factor login asked for its code). */
  async check(a: Attempt): Promise<void> {
    const refusal = await this.decide(a, await Promise.all(this.takes(a).map(([limiter, key]) => limiter.peek(key))));
    if (!refusal.ok) throw throttled(refusal);
  }

  /**
   * A right password (and code): the pair's failures are forgotten, the account and the address
   * get this attempt back, and the address is remembered as the account's. The account's
   * failures are left to expire, so strangers on many addresses still get 10 guesses per quarter
   * of an hour, not 10 more after each of the owner's sign-ins.
   */
  async succeeded(a: Attempt & { user: Pick<UserRow, 'id'> }): Promise<void> {
    const [[account, accountKey], [pair, pairKey], [address, addressKey]] = this.takes(a);
    await Promise.all([
      account.giveBack(accountKey),
      pair.clear(pairKey),
      address.giveBack(addressKey),
      this.origins.rememberOrigin(a.user.id, this.originOf(addressOf(a))),
    ]);
  }
}

/** The attempt's address, named 'unknown' for a client whose connection has already closed. */
function addressOf(a: Attempt): string {
  return a.address ?? 'unknown';
}

function throttled(refusal: Taken & { ok: false }): ApiError {
  const retryAfter = refusal.retryAfterSeconds;
  return new ApiError('login_throttled', `too many failed logins: try again in ${retryAfter} s`, { retryAfter });
}

function longest(results: readonly Taken[]): Taken {
  let out: Taken = { ok: true };
  for (const r of results) if (!r.ok && (out.ok || r.left.msBeforeNext > out.left.msBeforeNext)) out = r;
  return out;
}
