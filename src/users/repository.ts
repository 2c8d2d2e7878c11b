// SQL of accounts and their sessions. The session lookup is the read every
// authenticated request makes: compiled once, and synchronous on SQLite
// (src/database/prepared.ts).
import { randomUUID } from 'node:crypto';
import type { Compilable } from 'kysely';
import type { Db } from '../database/db.js';
import { nowIso, type Sometimes } from '../database/db.js';
import { prepared } from '../database/prepared.js';
import type { SessionRow, UserRow } from '../database/schema.js';
import type { SessionUserRow } from './sessions.js';

export interface NewUserRow {
  email: string;
  passwordHash: string;
  firstName: string;
  lastName: string;
  otpSecret: string | null;
}

/** An account as the administration lists it, with the bytes its library takes. */
export type AccountRow = Pick<UserRow, 'id' | 'uuid' | 'email' | 'first_name' | 'last_name' | 'is_admin' | 'disabled_at' | 'mail_stopped_at' | 'created_at'> & { medias: number; bytes: number };

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
  /** Whether the account signed in successfully from `origin` (an HMAC of an address) before. */
  async knownOrigin(userId: number, origin: string): Promise<boolean> {
    const row = await this.db.selectFrom('login_origins').select('user_id').where('user_id', '=', userId).where('origin', '=', origin).executeTakeFirst();
    return row !== undefined;
  }

  /** Remembers a successful sign-in of the account from `origin`. */
  async rememberOrigin(userId: number, origin: string): Promise<void> {
    const at = nowIso();
    await this.db
      .insertInto('login_origins')
      .values({ user_id: userId, origin, last_success_at: at })
      .onConflict((oc) => oc.columns(['user_id', 'origin']).doUpdateSet({ last_success_at: at }))
      .execute();
  }

  /** Forgets the addresses of successful sign-ins older than `before` (the hourly purge). */
  async purgeOrigins(before: string): Promise<void> {
    await this.db.deleteFrom('login_origins').where('last_success_at', '<', before).execute();
  }

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

  byUuid(uuid: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('uuid', '=', uuid).executeTakeFirst();
  }

  byId(userId: number): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
  }

  // ---- instance administration (migration 018): the admin role, disabled accounts, invitations ----

  async setAdmin(userId: number, admin: boolean): Promise<void> {
    await this.db.updateTable('users').set({ is_admin: admin ? 1 : 0 }).where('id', '=', userId).execute();
  }

  /** The operator's storage quota for the account (migration 021); null: the service's default. */
  async setQuota(userId: number, bytes: number | null): Promise<void> {
    await this.db.updateTable('users').set({ quota_bytes: bytes }).where('id', '=', userId).execute();
  }

  async setMailStopped(userId: number, at: string | null): Promise<void> {
    await this.db.updateTable('users').set({ mail_stopped_at: at }).where('id', '=', userId).execute();
  }

  async setDisabled(userId: number, at: string | null): Promise<void> {
    await this.db.updateTable('users').set({ disabled_at: at }).where('id', '=', userId).execute();
  }

  async countUsers(): Promise<number> {
    const [{ n }] = await this.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).execute();
    return Number(n);
  }

  /**
   * A page of the accounts with the bytes each one's library takes (originals and renditions):
   * the page, then one grouped sum per table over the page's owners — three queries, whatever
   * the page's size.
   */
  async accounts(limit: number, offset: number): Promise<AccountRow[]> {
    const users = await this.db
      .selectFrom('users')
      .select(['id', 'uuid', 'email', 'first_name', 'last_name', 'is_admin', 'disabled_at', 'mail_stopped_at', 'created_at'])
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute();
    if (users.length === 0) return [];
    const ids = users.map((u) => u.id);
    const [originals, renditions] = await Promise.all([
      this.db
        .selectFrom('medias')
        .select(['owner_id', (eb) => eb.fn.count<number>('id').as('medias'), (eb) => eb.fn.sum<number>('file_size').as('bytes')])
        .where('owner_id', 'in', ids)
        .groupBy('owner_id')
        .execute(),
      this.db
        .selectFrom('renditions')
        .innerJoin('medias', 'medias.id', 'renditions.media_id')
        .select(['medias.owner_id', (eb) => eb.fn.sum<number>('renditions.bytes').as('bytes')])
        .where('medias.owner_id', 'in', ids)
        .groupBy('medias.owner_id')
        .execute(),
    ]);
    const byOwner = new Map(originals.map((r) => [r.owner_id, { medias: Number(r.medias), bytes: Number(r.bytes ?? 0) }]));
    const views = new Map(renditions.map((r) => [r.owner_id, Number(r.bytes ?? 0)]));
    return users.map((u) => ({ ...u, medias: byOwner.get(u.id)?.medias ?? 0, bytes: (byOwner.get(u.id)?.bytes ?? 0) + (views.get(u.id) ?? 0) }));
  }

  async createInvitation(userId: number, tokenHash: string, expiresAt: string): Promise<void> {
    await this.db.insertInto('user_invitations').values({ user_id: userId, token_hash: tokenHash, created_at: nowIso(), expires_at: expiresAt, used_at: null }).execute();
  }

  /** The user of a live, unused invitation (nothing is changed). */
  async invitationUser(tokenHash: string, now: string): Promise<number | undefined> {
    const row = await this.db.selectFrom('user_invitations').select('user_id').where('token_hash', '=', tokenHash).where('used_at', 'is', null).where('expires_at', '>', now).executeTakeFirst();
    return row?.user_id;
  }

  /** Spends a live invitation and sets the password with it, in one transaction: a link works once, even when two browsers race. */
  async acceptInvitation(tokenHash: string, now: string, passwordHash: string): Promise<number | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const spent = await trx
        .updateTable('user_invitations')
        .set({ used_at: now })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .returning('user_id')
        .executeTakeFirst();
      if (!spent) return undefined;
      await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', spent.user_id).execute();
      // The user's other invitations are spent with it.
      await trx.updateTable('user_invitations').set({ used_at: now }).where('user_id', '=', spent.user_id).where('used_at', 'is', null).execute();
      return spent.user_id;
    });
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
