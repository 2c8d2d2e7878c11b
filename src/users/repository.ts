// SQL of accounts and their sessions. The session lookup is the read every
// authenticated request makes: compiled once, and synchronous on SQLite
// (src/store/prepared.ts).
import { randomUUID } from 'node:crypto';
import type { Compilable } from 'kysely';
import type { Db } from '../store/db.js';
import { nowIso, type Sometimes } from '../store/db.js';
import { prepared } from '../store/prepared.js';
import type { SessionRow, UserRow } from '../store/schema.js';
import type { SessionUserRow } from './sessions.js';

export interface NewUserRow {
  email: string;
  passwordHash: string;
  firstName: string;
  lastName: string;
  otpSecret: string | null;
}

/** Sessions deleted per statement: a large backlog never holds the table (SQLite's single writer) for long. */
const PURGE_BATCH = 1000;

const sessionByTokenHash = prepared(
  (db: Db, tokenHash: string): Compilable<SessionUserRow> =>
    db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .selectAll('users')
      .select(['sessions.expires_at', 'sessions.last_seen_at'])
      .where('sessions.token_hash', '=', tokenHash),
);

export class UsersRepository {
  constructor(private readonly db: Db) {}

  byEmail(email: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
  }

  /** Moves the user's last used one-time-code step forward to `step`; false when a code of that step (or later) was used already. */
  async advanceOtpStep(userId: number, step: number): Promise<boolean> {
    const res = await this.db
      .updateTable('users')
      .set({ otp_last_step: step })
      .where('id', '=', userId)
      .where((eb) => eb.or([eb('otp_last_step', 'is', null), eb('otp_last_step', '<', step)]))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Creates the user and the default media library every user has (client-compat). */
  createWithDefaultArtist(input: NewUserRow): Promise<{ user: UserRow; defaultArtistUuid: string }> {
    const now = nowIso();
    return this.db.transaction().execute(async (trx) => {
      const user = await trx
        .insertInto('users')
        .values({
          uuid: randomUUID(),
          email: input.email,
          password_hash: input.passwordHash,
          first_name: input.firstName,
          last_name: input.lastName,
          otp_secret: input.otpSecret,
          otp_last_step: null,
          created_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const defaultArtistUuid = randomUUID();
      const name = [input.firstName, input.lastName].filter(Boolean).join(' ') || user.email;
      await trx.insertInto('artists').values({ uuid: defaultArtistUuid, owner_id: user.id, name, is_default: 1, created_at: now }).execute();
      return { user, defaultArtistUuid };
    });
  }

  async setPasswordHash(userId: number, passwordHash: string): Promise<void> {
    await this.db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
  }

  /** Sets (or, with null, removes) the user's one-time-code secret; the last used step is forgotten with the old secret. */
  async setOtpSecret(userId: number, secret: string | null): Promise<void> {
    await this.db.updateTable('users').set({ otp_secret: secret, otp_last_step: null }).where('id', '=', userId).execute();
  }

  byId(userId: number): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
  }

  // ---- sessions (src/users/sessions.ts decides what they mean) ----

  /** The session's user with its expiry, by the SHA-256 of its token; synchronous on SQLite. */
  findSession(tokenHash: string): Sometimes<SessionUserRow | undefined> {
    return sessionByTokenHash(this.db, tokenHash);
  }

  async createSession(row: SessionRow): Promise<void> {
    await this.db.insertInto('sessions').values(row).execute();
  }

  async touchSession(tokenHash: string, lastSeenAt: string, expiresAt: string): Promise<void> {
    await this.db.updateTable('sessions').set({ last_seen_at: lastSeenAt, expires_at: expiresAt }).where('token_hash', '=', tokenHash).execute();
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
  }

  /** Deletes every session of the user, but the one of `keepHash` when given (API and studio sessions alike). */
  async deleteSessionsOf(userId: number, keepHash?: string): Promise<void> {
    let q = this.db.deleteFrom('sessions').where('user_id', '=', userId);
    if (keepHash !== undefined) q = q.where('token_hash', '!=', keepHash);
    await q.execute();
  }

  /** Deletes every session expired at `now`, a batch at a time; how many. */
  async purgeExpiredSessions(now = new Date()): Promise<number> {
    let purged = 0;
    for (;;) {
      const res = await this.db
        .deleteFrom('sessions')
        .where('token_hash', 'in', (eb) => eb.selectFrom('sessions').select('token_hash').where('expires_at', '<=', now.toISOString()).limit(PURGE_BATCH))
        .executeTakeFirst();
      const n = Number(res.numDeletedRows);
      purged += n;
      if (n < PURGE_BATCH) return purged;
    }
  }
}
