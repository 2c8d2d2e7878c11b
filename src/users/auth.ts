// User authentication (spec 5.2): HTTP Basic on first use, then the session cookie; PASSWORD+CODE for
// two-factor users; wrong passwords throttled, a refused login changing nothing else. Two steps, so the
// server's hook takes the rate budget between them: `claim` only reads, `identify` checks and writes
// (docs/architecture.md, "How a request flows", "Where a feature's rules stop").
import { ApiError, invalid } from '../core/errors.js';
import type { Authentication, Identity, RateSubject } from '../http/identity.js';
import type { UserRow } from '../database/schema.js';
import type { Attempt, DeviceProof, LoginThrottle } from './login-throttle.js';
import { burnPasswordCheck, verifyPassword } from './passwords.js';
import { readSessionCookie, sessionCookie, type SessionLookup, SessionStore } from './sessions.js';
import { matchTotpStep } from './totp.js';

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

function credentialsError(otp: boolean): ApiError {
  return otp
    ? new ApiError('invalid_credentials', 'invalid login, password or one-time code', { authMethod: 'basic:password+otp' })
    : new ApiError('invalid_credentials', 'invalid login or password', { authMethod: 'basic' });
}

/**
 * A photographer's own application acts for its owner only (docs/security.md, "Applications"):
 * anyone else is a 403, told only once their password was right, and no session is made.
 */
function bound(user: UserRow, boundTo: number | null): UserRow {
  if (boundTo !== null && user.id !== boundTo) throw new ApiError('forbidden', "this application is a photographer's own: it signs only for its owner");
  return user;
}

/** The accounts behind logins (src/users/repository.ts). */
export interface UserLookup {
  byEmail(email: string): Promise<UserRow | undefined>;
  /** Moves the user's last used one-time-code step forward to `step`; false when it was used already: each code logs in once. */
  advanceOtpStep(userId: number, step: number): Promise<boolean>;
}

/**
 * Who a request says it is, found with reads only: the rate budget is taken
 * on `subject` before `identify` checks a password or writes anything.
 */
export interface Claim extends RateSubject {
  /** The user Basic names (its row), else the live session's. */
  subject?: UserRow;
  /**
   * The user whose rate budget the request takes: the live session's only. A
   * Basic login without that session counts against the address, so the budget
   * headers never tell whether an e-mail address has an account.
   */
  rateUser?: UserRow;
  session?: SessionLookup;
  basic?: BasicCredentials;
  malformedBasic: boolean;
  /** A session cookie was sent, well-formed or not. */
  cookieSent: boolean;
}

export class Authenticator implements Authentication<Claim> {
  private readonly checking = new Map<string, Promise<void>>();

  constructor(
    private readonly users: UserLookup,
    private readonly sessions: SessionStore,
    /** Wrong passwords and codes, the one throttle of every way in (login-throttle.ts). */
    readonly throttle: LoginThrottle,
    private readonly secureCookies: boolean,
  ) {}

  /** Synchronous when the session (if any) is cached and no Basic login must be looked up. */
  claim(cookieHeader: string | undefined, authorization: string | undefined): Claim | Promise<Claim> {
    const token = readSessionCookie(cookieHeader);
    const cached = token ? this.sessions.cached(token) : undefined;
    if (token && !cached) return this.sessions.lookup(token).then((session) => this.claimWith(token, session, cookieHeader, authorization));
    return this.claimWith(token, cached, cookieHeader, authorization);
  }

  private claimWith(token: string | undefined, session: SessionLookup | undefined, cookieHeader: string | undefined, authorization: string | undefined): Claim | Promise<Claim> {
    const cookieSent = token !== undefined || cookieHeader?.includes('_ficelle_session=') === true;
    const basic = parseBasic(authorization);
    if (!basic) {
      const malformedBasic = authorization !== undefined && /^Basic\b/i.test(authorization);
      const subject = malformedBasic ? undefined : session?.user;
      return { subject, rateUser: subject, session, malformedBasic, cookieSent };
    }
    const login = basic.login.trim().toLowerCase();
    if (session?.user?.email === login) return { subject: session.user, rateUser: session.user, session, basic, malformedBasic: false, cookieSent };
    return this.users.byEmail(login).then((subject) => ({ subject, session, basic, malformedBasic: false, cookieSent }));
  }

  /**
   * Checks the claim, once the request is admitted: the session's pending write, Basic, a new session.
   * Synchronous for a live cached session that owes no write (the common request).
   */
  identify(claim: Claim, address: string, boundTo: number | null = null): Identity | Promise<Identity> {
    const session = claim.session;
    if (!claim.basic && !claim.malformedBasic && !session?.owes) {
      return session?.user ? { user: bound(session.user, boundTo), sessionToken: session.token } : { staleSession: claim.cookieSent };
    }
    return this.identifySlowly(claim, address, boundTo);
  }

  private async identifySlowly(claim: Claim, address: string, boundTo: number | null): Promise<Identity> {
    const settled = claim.session?.owes ? await this.sessions.settle(claim.session) : claim.session?.user;
    const sessionUser = settled ? bound(settled, boundTo) : undefined;
    const sessionToken = claim.session?.token;
    if (claim.malformedBasic) {
      throw new ApiError('invalid_credentials', 'malformed HTTP Basic credentials', { authMethod: 'basic' });
    }
    if (claim.basic) {
      // A client that keeps sending Basic alongside a valid session for the same
      // user is not made to pay for a password hash on every request.
      if (sessionUser && sessionUser.id === claim.subject?.id) return { user: sessionUser, sessionToken };
      const basic = claim.basic;
      const user = bound(await this.oneAtATime(basic.login.trim().toLowerCase(), () => this.verifyBasic(basic, claim.subject, address)), boundTo);
      const newToken = await this.sessions.create(user.id);
      return { user, sessionToken: newToken, setCookie: sessionCookie(newToken, this.secureCookies) };
    }
    if (sessionUser) return { user: sessionUser, sessionToken };
    return { staleSession: claim.cookieSent };
  }

  /**
   * Password checks of one account run one after another in this process.
   * Each holds an attempt while it runs, so simultaneous right passwords
   * would otherwise be refused as if they were failures; in line, a success
   * gives its attempt back before the next one takes it.
   */
  private async oneAtATime<T>(accountKey: string, check: () => Promise<T>): Promise<T> {
    const run = (this.checking.get(accountKey) ?? Promise.resolve()).then(check);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.checking.set(accountKey, tail);
    try {
      return await run;
    } finally {
      if (this.checking.get(accountKey) === tail) this.checking.delete(accountKey);
    }
  }

  private async verifyBasic(basic: BasicCredentials, user: UserRow | undefined, address: string): Promise<UserRow> {
    const accountKey = basic.login.trim().toLowerCase();
    const withCode = user?.otp_secret ? /^(.*)\+(\d{6})$/s.exec(basic.password) : null;
    if (user?.otp_secret && !withCode) {
      // Asked for the code before the password is checked: no oracle on the
      // password alone, and no attempt spent (clients send the code next).
      await this.throttle.check({ accountKey, address, user });
      throw new ApiError('otp_required', 'this account uses two-factor authentication: send PASSWORD+CODE', {
        authMethod: 'basic:password+otp',
      });
    }
    // Counted on the account and on the address before the password is checked, atomically in
    // the shared store: simultaneous attempts cannot all pass a check made before any of them failed.
    const attempt: Attempt = { accountKey, address, user };
    await this.throttle.take(attempt);
    if (!user) {
      await burnPasswordCheck(basic.password);
      throw credentialsError(false);
    }
    if (!user.otp_secret || !withCode) {
      if (await verifyPassword(user.password_hash, basic.password)) return this.succeeded(user, attempt);
      throw credentialsError(false);
    }
    const passwordOk = await verifyPassword(user.password_hash, withCode[1]);
    const step = matchTotpStep(user.otp_secret, withCode[2]);
    if (passwordOk && step !== undefined) {
      // Each code is usable once: the step only moves forward, atomically.
      if (await this.users.advanceOtpStep(user.id, step)) return this.succeeded(user, attempt);
    }
    throw credentialsError(true);
  }

  /**
   * The studio's sign-in, first step: e-mail and password, on the API's throttle (the same
   * counters). A two-factor user is not signed in yet: `otp` says the code is asked for next
   * (checkCode), and the attempt stays counted until then. `device`: the browser's device
   * cookie, read by LoginThrottle.readDevice.
   */
  async checkPassword(email: string, password: string, address: string, device?: DeviceProof): Promise<{ user: UserRow; otp: boolean }> {
    const accountKey = email.trim().toLowerCase();
    return this.oneAtATime(accountKey, async () => {
      const user = accountKey.length <= 254 ? await this.users.byEmail(accountKey) : undefined;
      const attempt: Attempt = { accountKey, address, user, device };
      await this.throttle.take(attempt);
      if (!user) {
        await burnPasswordCheck(password);
        throw credentialsError(false);
      }
      if (!(await verifyPassword(user.password_hash, password))) throw credentialsError(false);
      if (user.otp_secret) return { user, otp: true };
      return { user: await this.succeeded(user, attempt), otp: false };
    });
  }

  /** The studio's sign-in, second step: the one-time code of a user whose password was right, on the same throttle; each code once. */
  async checkCode(user: UserRow, code: string, address: string, device?: DeviceProof): Promise<UserRow> {
    const accountKey = user.email;
    return this.oneAtATime(accountKey, async () => {
      const attempt: Attempt = { accountKey, address, user, device };
      await this.throttle.take(attempt);
      const step = user.otp_secret ? matchTotpStep(user.otp_secret, code.trim()) : undefined;
      if (step !== undefined && (await this.users.advanceOtpStep(user.id, step))) return this.succeeded(user, attempt);
      throw credentialsError(true);
    });
  }

  /**
   * A signed-in screen's "current password" check (and a current code, when `code` is given:
   * turning a second factor off), on the same throttle as the sign-in: a stolen session guesses
   * no faster than a stranger. A wrong answer is a 422 naming what was asked; each code once.
   */
  async confirm(user: UserRow, answer: { password: string; code?: string }, address: string): Promise<void> {
    const accountKey = user.email;
    await this.oneAtATime(accountKey, async () => {
      const attempt: Attempt = { accountKey, address, user };
      await this.throttle.take(attempt);
      const passwordOk = await verifyPassword(user.password_hash, answer.password);
      if (answer.code === undefined) {
        if (!passwordOk) throw invalid('the current password is not right');
      } else {
        const step = passwordOk && user.otp_secret ? matchTotpStep(user.otp_secret, answer.code.trim()) : undefined;
        if (step === undefined || !(await this.users.advanceOtpStep(user.id, step))) throw invalid('the password or the code is not right: type the code your app shows now');
      }
      await this.succeeded(user, attempt);
    });
  }

  /** Only failures count: a success clears the pair, gives the address its attempt back and remembers it (LoginThrottle.succeeded). */
  private async succeeded(user: UserRow, attempt: Attempt): Promise<UserRow> {
    await this.throttle.succeeded({ ...attempt, user });
    // A disabled account (the administration's) is told so only once its password was right.
    if (user.disabled_at) throw new ApiError('forbidden', 'this account is disabled: ask the operator of the service', { authMethod: 'basic' });
    return user;
  }
}

