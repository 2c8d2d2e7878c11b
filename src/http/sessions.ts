// Server-side sessions behind the `_ficelle_session` cookie. The cookie holds a
// random 256-bit token; the database holds only its SHA-256.
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../store/db.js';
import type { UserRow } from '../users/queries.js';

export const SESSION_COOKIE = '_ficelle_session';
const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
const TOUCH_AFTER_MS = 3600 * 1000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');

export function readSessionCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

export function sessionCookie(token: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${SESSION_TTL_MS / 1000}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export class SessionStore {
  constructor(private readonly db: Db) {}

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

  /** The session's user, or undefined when the token is unknown or expired. */
  async find(token: string): Promise<UserRow | undefined> {
    const tokenHash = hashToken(token);
    const row = await this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .selectAll('users')
      .select(['sessions.expires_at', 'sessions.last_seen_at'])
      .where('sessions.token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (!row) return undefined;
    const now = Date.now();
    if (Date.parse(row.expires_at) <= now) {
      await this.db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
      return undefined;
    }
    // Sliding expiry, written at most once an hour so reads stay reads.
    if (now - Date.parse(row.last_seen_at) > TOUCH_AFTER_MS) {
      await this.db
        .updateTable('sessions')
        .set({ last_seen_at: new Date(now).toISOString(), expires_at: new Date(now + SESSION_TTL_MS).toISOString() })
        .where('token_hash', '=', tokenHash)
        .execute();
    }
    const { expires_at: _e, last_seen_at: _l, ...user } = row;
    return user;
  }

  async destroy(token: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('token_hash', '=', hashToken(token)).execute();
  }
}
