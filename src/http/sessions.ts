// Server-side sessions behind the `_ficelle_session` cookie. The cookie holds a
// random 256-bit token; the database holds only its SHA-256.
import { createHash, randomBytes } from 'node:crypto';
import type { Db, Store } from '../store/db.js';
import type { CompiledQuery } from 'kysely';
import type { UserRow } from '../store/schema.js';

type SessionUserRow = UserRow & { expires_at: string; last_seen_at: string };

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
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${SESSION_TTL_MS / 1000}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
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
  // Compiled once: this lookup runs on every authenticated request, and
  // building + compiling the query costs more than running it.
  private readonly findQuery: CompiledQuery<SessionUserRow>;
  private readonly findSync?: (tokenHash: string) => SessionUserRow | undefined;
  private readonly db: Db;
  private readonly recent = new Map<string, { user: UserRow; until: number }>();

  constructor(store: Store) {
    const db = (this.db = store.db);
    this.findQuery = db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .selectAll('users')
      .select(['sessions.expires_at', 'sessions.last_seen_at'])
      .where('sessions.token_hash', '=', '')
      .compile();
    if (store.sqlite) {
      const stmt = store.sqlite.prepare(this.findQuery.sql);
      this.findSync = (tokenHash) => stmt.get(tokenHash) as SessionUserRow | undefined;
    }
  }

  async create(userId: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = new Date();
    await this.db
      .insertInto('sessions')
      .values({
        token_hash: hashToken(token),
        user_id: userId,
        created_at: now.toISOString(),
        last_seen_at: now.toISOString(),
        expires_at: new Date(now.getTime() + SESSION_TTL_MS).toISOString(),
      })
      .execute();
    return token;
  }

  /** A session read within SESSION_CACHE_MS, without touching the database. */
  cached(token: string): SessionLookup | undefined {
    const hit = this.recent.get(token);
    return hit && hit.until > Date.now() ? { token, user: hit.user } : undefined;
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
    const row = this.findSync
      ? this.findSync(tokenHash)
      : (await this.db.executeQuery<SessionUserRow>({ ...this.findQuery, parameters: [tokenHash] } as CompiledQuery<SessionUserRow>)).rows[0];
    if (!row || Date.parse(row.expires_at) <= now) {
      this.recent.delete(token);
      return row ? { token, owes: 'delete' } : { token };
    }
    const { expires_at: _e, last_seen_at: _l, ...user } = row;
    // Sliding expiry, written at most once an hour so reads stay reads.
    if (now - Date.parse(row.last_seen_at) > TOUCH_AFTER_MS) return { token, user, owes: 'touch' };
    this.remember(token, user, now);
    return { token, user };
  }

  /** Does the write a lookup owes (drop an expired row, slide a live one); the session's user, if live. */
  async settle(lookup: SessionLookup): Promise<UserRow | undefined> {
    if (lookup.owes === 'delete') {
      await this.db.deleteFrom('sessions').where('token_hash', '=', hashToken(lookup.token)).execute();
    } else if (lookup.owes === 'touch' && lookup.user) {
      const now = Date.now();
      await this.db
        .updateTable('sessions')
        .set({ last_seen_at: new Date(now).toISOString(), expires_at: new Date(now + SESSION_TTL_MS).toISOString() })
        .where('token_hash', '=', hashToken(lookup.token))
        .execute();
      this.remember(lookup.token, lookup.user, now);
    }
    return lookup.user;
  }

  private remember(token: string, user: UserRow, now: number): void {
    if (this.recent.size >= SESSION_CACHE_MAX) this.recent.clear();
    this.recent.set(token, { user, until: now + SESSION_CACHE_MS });
  }

  async destroy(token: string): Promise<void> {
    this.recent.delete(token);
    await this.db.deleteFrom('sessions').where('token_hash', '=', hashToken(token)).execute();
  }
}
