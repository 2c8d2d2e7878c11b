// Server-side sessions behind the `_ficelle_session` cookie. The cookie holds a
// random 256-bit token; the database holds only its SHA-256.
import { createHash, randomBytes } from 'node:crypto';
import { stringifySetCookie } from 'cookie';
import { MemoryCache } from '../ops/cache.js';
import { LOGIN_ORIGIN_DAYS } from './login-throttle.js';
import type { Sometimes } from '../database/db.js';
import type { SessionRow, UserRow } from '../database/schema.js';

/** A session's user, with the session's expiry. */
export type SessionUserRow = UserRow & { expires_at: string; last_seen_at: string };

/** Where sessions are kept (src/users/repository.ts); found by the SHA-256 of their token. */
export interface SessionRepository {
  /** Synchronous where the database allows it: the hot path then awaits nothing. */
  findSession(tokenHash: string): Sometimes<SessionUserRow | undefined>;
  createSession(row: SessionRow): Promise<void>;
  touchSession(tokenHash: string, lastSeenAt: string, expiresAt: string): Promise<void>;
  deleteSession(tokenHash: string): Promise<void>;
  deleteSessionsOf(userId: number, keepHash?: string): Promise<void>;
}

export const SESSION_COOKIE = '_ficelle_session';
const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
const TOUCH_AFTER_MS = 3600 * 1000;
/**
 * How long a process trusts a session it has just read. Reading it costs
 * SQLite file-lock syscalls on every request; a logout in this process evicts
 * at once, one in another process is seen within this time.
 */
export const SESSION_CACHE_MS = 5000;
const SESSION_CACHE_MAX = 50_000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');

/**
 * The session token of a request's Cookie header. Hand-written rather than
 * the cookie library's parseCookie: it runs on every request, and measured
 * 2 to 4 times faster (no object of every cookie built, nothing decoded).
 */
export function readSessionCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  // Find `_ficelle_session=` at the start of a cookie pair, without splitting the header.
  let at = header.indexOf(SESSION_COOKIE + '=');
  while (at > 0 && header[at - 1] !== ' ' && header[at - 1] !== ';') at = header.indexOf(SESSION_COOKIE + '=', at + 1);
  if (at < 0) return undefined;
  const start = at + SESSION_COOKIE.length + 1;
  const end = header.indexOf(';', start);
  const value = (end < 0 ? header.slice(start) : header.slice(start, end)).trim();
  return /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : undefined;
}

export function sessionCookie(token: string, secure: boolean): string {
  return stringifySetCookie({ name: SESSION_COOKIE, value: token, path: '/', maxAge: SESSION_TTL_MS / 1000, httpOnly: true, sameSite: 'lax', secure });
}

/** Tells the client to drop its session cookie (logout). */
export function clearedSessionCookie(secure: boolean): string {
  return stringifySetCookie({ name: SESSION_COOKIE, value: '', path: '/', maxAge: 0, httpOnly: true, sameSite: 'lax', secure });
}

/** A session cookie's meaning, before the request is admitted. */
export interface SessionLookup {
  token: string;
  /** The user of a live session. */
  user?: UserRow;
  /** The write this request owes once admitted. */
  owes?: 'delete' | 'touch';
}

export class SessionStore {
  /** The users of sessions read lately, by token. */
  private readonly recent: MemoryCache<string, UserRow>;

  /**
   * `cacheMs`: how long a session read is trusted; 0 when other processes may
   * end sessions (REDIS_URL: several nodes), so a logout anywhere holds at once.
   */
  constructor(
    private readonly repo: SessionRepository,
    cacheMs = SESSION_CACHE_MS,
  ) {
    this.recent = new MemoryCache({ entries: SESSION_CACHE_MAX, ttlMs: cacheMs });
  }

  async create(userId: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = new Date();
    await this.repo.createSession({
      token_hash: hashToken(token),
      user_id: userId,
      created_at: now.toISOString(),
      last_seen_at: now.toISOString(),
      expires_at: new Date(now.getTime() + SESSION_TTL_MS).toISOString(),
    });
    return token;
  }

  /** A session read within SESSION_CACHE_MS, without touching the database. */
  cached(token: string): SessionLookup | undefined {
    const user = this.recent.get(token);
    return user ? { token, user } : undefined;
  }

  /**
   * What the token stands for, read without writing anything: a request is
   * only admitted (rate budget) after this, and `settle` does the write it owes.
   */
  async lookup(token: string): Promise<SessionLookup> {
    const now = Date.now();
    const hit = this.cached(token);
    if (hit) return hit;
    const tokenHash = hashToken(token);
    const found = this.repo.findSession(tokenHash);
    const row = found instanceof Promise ? await found : found;
    // A disabled account's session (one made in a race with the disabling) is no session: it is dropped.
    if (!row || Date.parse(row.expires_at) <= now || row.disabled_at) {
      this.recent.delete(token);
      return row ? { token, owes: 'delete' } : { token };
    }
    const { expires_at: _e, last_seen_at: _l, ...user } = row;
    // Sliding expiry, written at most once an hour so reads stay reads.
    if (now - Date.parse(row.last_seen_at) > TOUCH_AFTER_MS) return { token, user, owes: 'touch' };
    this.recent.set(token, user);
    return { token, user };
  }

  /** Does the write a lookup owes (drop an expired row, slide a live one); the session's user, if live. */
  async settle(lookup: SessionLookup): Promise<UserRow | undefined> {
    if (lookup.owes === 'delete') {
      await this.repo.deleteSession(hashToken(lookup.token));
    } else if (lookup.owes === 'touch' && lookup.user) {
      const now = Date.now();
      await this.repo.touchSession(hashToken(lookup.token), new Date(now).toISOString(), new Date(now + SESSION_TTL_MS).toISOString());
      this.recent.set(lookup.token, lookup.user);
    }
    return lookup.user;
  }

  async destroy(token: string): Promise<void> {
    this.recent.delete(token);
    await this.repo.deleteSession(hashToken(token));
  }

  /**
   * Ends every session of the user (the API's and the studio's), but `keep` when given: "sign out
   * everywhere", a password change. Another process that read one lately trusts it for up to its
   * cache time (none with REDIS_URL).
   */
  async destroyAllOf(userId: number, keep?: string): Promise<void> {
    this.recent.deleteWhere((user) => user.id === userId);
    await this.repo.deleteSessionsOf(userId, keep === undefined ? undefined : hashToken(keep));
  }
}

/**
 * The worker's periodic purge (SESSION_PURGE_SECONDS): expired sessions, and the addresses of
 * past sign-ins once older than LOGIN_ORIGIN_DAYS (a little over a year).
 */
export async function purgeSessions(
  users: { purgeExpiredSessions(): Promise<number>; purgeOrigins(before: string): Promise<void> },
  log: { info(obj: object, msg: string): void },
): Promise<void> {
  const n = await users.purgeExpiredSessions();
  await users.purgeOrigins(new Date(Date.now() - LOGIN_ORIGIN_DAYS * 86_400_000).toISOString());
  if (n) log.info({ sessions: n }, 'expired sessions purged');
}
