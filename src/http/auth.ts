// User authentication (spec 5.2): HTTP Basic on first use, then the session
// cookie; `PASSWORD+CODE` for two-factor users; throttled wrong passwords.
// A refused login changes nothing but the throttle counters.
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Db } from '../store/db.js';
import { burnPasswordCheck, verifyPassword } from '../users/passwords.js';
import { findUserByEmail, type UserRow } from '../users/queries.js';
import { matchTotpStep } from '../users/totp.js';
import { ApiError } from './errors.js';
import type { LimiterFactory } from './limiter-store.js';
import { readSessionCookie, sessionCookie, SessionStore } from './sessions.js';

export interface Identity {
  user?: UserRow;
  /** The session token the request is using (cookie or just created). */
  sessionToken?: string;
  /** Set-Cookie value when this request opened a session. */
  setCookie?: string;
  /** A session cookie was sent but is not (or no longer) valid. */
  staleSession?: boolean;
}

export interface BasicCredentials {
  login: string;
  password: string;
}

export function parseBasic(header: string | undefined): BasicCredentials | undefined {
  if (!header) return undefined;
  const m = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

const ACCOUNT_FAILURES = { points: 10, durationSeconds: 15 * 60 };
const ADDRESS_FAILURES = { points: 50, durationSeconds: 15 * 60 };

function credentialsError(otp: boolean): ApiError {
  return otp
    ? new ApiError(401, 'invalid_credentials', 'invalid login, password or one-time code', { authMethod: 'basic:password+otp' })
    : new ApiError(401, 'invalid_credentials', 'invalid login or password', { authMethod: 'basic' });
}

export class Authenticator {
  private readonly accountFailures: RateLimiterAbstract;
  private readonly addressFailures: RateLimiterAbstract;

  constructor(
    private readonly db: Db,
    private readonly sessions: SessionStore,
    limiters: LimiterFactory,
    private readonly secureCookies: boolean,
  ) {
    this.accountFailures = limiters.create({ keyPrefix: 'login-account', ...ACCOUNT_FAILURES });
    this.addressFailures = limiters.create({ keyPrefix: 'login-address', ...ADDRESS_FAILURES });
  }

  async identify(cookieHeader: string | undefined, authorization: string | undefined, address: string): Promise<Identity> {
    const token = readSessionCookie(cookieHeader);
    const sessionUser = token ? (this.sessions.cached(token) ?? (await this.sessions.find(token))) : undefined;
    const basic = parseBasic(authorization);
    if (authorization && !basic && /^Basic\b/i.test(authorization)) {
      throw new ApiError(401, 'invalid_credentials', 'malformed HTTP Basic credentials', { authMethod: 'basic' });
    }
    if (basic) {
      // A client that keeps sending Basic alongside a valid session for the same
      // user is not made to pay for a password hash on every request.
      if (sessionUser && sessionUser.email === basic.login.trim().toLowerCase()) return { user: sessionUser, sessionToken: token };
      const user = await this.verifyBasic(basic, address);
      const newToken = await this.sessions.create(user.id);
      return { user, sessionToken: newToken, setCookie: sessionCookie(newToken, this.secureCookies) };
    }
    if (sessionUser) return { user: sessionUser, sessionToken: token };
    return { staleSession: token !== undefined || cookieHeader?.includes('_ficelle_session=') === true };
  }

  private async verifyBasic(basic: BasicCredentials, address: string): Promise<UserRow> {
    const accountKey = basic.login.trim().toLowerCase();
    await this.refuseWhenThrottled(accountKey, address);
    const user = await findUserByEmail(this.db, accountKey);
    if (!user) {
      await burnPasswordCheck(basic.password);
      await this.recordFailure(accountKey, address);
      throw credentialsError(false);
    }
    if (!user.otp_secret) {
      if (await verifyPassword(user.password_hash, basic.password)) return this.succeeded(user, accountKey);
      await this.recordFailure(accountKey, address);
      throw credentialsError(false);
    }
    const m = /^(.*)\+(\d{6})$/s.exec(basic.password);
    if (!m) {
      // Asked for the code before the password is checked: no oracle on the password alone.
      throw new ApiError(401, 'otp_required', 'this account uses two-factor authentication: send PASSWORD+CODE', {
        authMethod: 'basic:password+otp',
      });
    }
    const passwordOk = await verifyPassword(user.password_hash, m[1]);
    const step = matchTotpStep(user.otp_secret, m[2]);
    if (passwordOk && step !== undefined) {
      // Each code is usable once: the step only moves forward, atomically.
      const res = await this.db
        .updateTable('users')
        .set({ otp_last_step: step })
        .where('id', '=', user.id)
        .where((eb) => eb.or([eb('otp_last_step', 'is', null), eb('otp_last_step', '<', step)]))
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 1) return this.succeeded(user, accountKey);
    }
    await this.recordFailure(accountKey, address);
    throw credentialsError(true);
  }

  private async succeeded(user: UserRow, accountKey: string): Promise<UserRow> {
    await this.accountFailures.delete(accountKey).catch(() => undefined);
    return user;
  }

  private async refuseWhenThrottled(accountKey: string, address: string): Promise<void> {
    const [account, addr] = await Promise.all([
      this.accountFailures.get(accountKey).catch(() => null),
      this.addressFailures.get(address).catch(() => null),
    ]);
    const blocked = [
      account && account.consumedPoints >= ACCOUNT_FAILURES.points ? account : null,
      addr && addr.consumedPoints >= ADDRESS_FAILURES.points ? addr : null,
    ].filter((r): r is RateLimiterRes => r !== null);
    if (blocked.length > 0) {
      const retryAfter = Math.max(1, Math.ceil(Math.max(...blocked.map((r) => r.msBeforeNext)) / 1000));
      throw new ApiError(429, 'login_throttled', `too many failed logins: try again in ${retryAfter} s`, { retryAfter });
    }
  }

  private async recordFailure(accountKey: string, address: string): Promise<void> {
    await Promise.all([
      this.accountFailures.penalty(accountKey, 1).catch(() => undefined),
      this.addressFailures.penalty(address, 1).catch(() => undefined),
    ]);
  }
}
