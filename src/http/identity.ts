// Who a request is, as the server's hook (server.ts) needs to know it. How a
// user logs in (sessions, passwords, one-time codes) is the users feature's
// (src/users/auth.ts), handed over by the composition root: src/http knows no feature.
import type { UserRow } from '../database/schema.js';

export interface Identity {
  user?: UserRow;
  /** The session token the request is using (cookie or just created). */
  sessionToken?: string;
  /** Set-Cookie value when this request opened a session. */
  setCookie?: string;
  /** A session cookie was sent but is not (or no longer) valid. */
  staleSession?: boolean;
}

/** What the hook reads of a claim: whose rate budget the request takes (a live session's user, else the address). */
export interface RateSubject {
  rateUser?: UserRow;
}

/**
 * Two steps, so that the hook takes the rate budget in between: `claim` only
 * reads, `identify` checks passwords and writes. Each answers at once when
 * what it needs is cached.
 */
export interface Authentication<C extends RateSubject = RateSubject> {
  claim(cookieHeader: string | undefined, authorization: string | undefined): C | Promise<C>;
  /** `boundTo`: the only user the signing application may act for (a photographer's own application), else null. */
  identify(claim: C, address: string, boundTo?: number | null): Identity | Promise<Identity>;
}
