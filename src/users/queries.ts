import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { nowIso } from '../store/db.js';
import { hashPassword } from '../http/passwords.js';
import type { UserRow } from '../store/schema.js';

export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
}

export function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export interface NewUser {
  email: string;
  password: string;
  firstName?: string;
  lastName?: string;
  otpSecret?: string;
}

/** Creates the user and the default media library every user has (client-compat). */
export async function createUser(db: Db, input: NewUser): Promise<{ user: UserRow; defaultArtistUuid: string }> {
  const passwordHash = await hashPassword(input.password);
  const now = nowIso();
  return db.transaction().execute(async (trx) => {
    const user = await trx
      .insertInto('users')
      .values({
        uuid: randomUUID(),
        email: input.email.trim().toLowerCase(),
        password_hash: passwordHash,
        first_name: input.firstName ?? '',
        last_name: input.lastName ?? '',
        otp_secret: input.otpSecret ? input.otpSecret.toUpperCase().replace(/=+$/, '') : null,
        otp_last_step: null,
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const defaultArtistUuid = randomUUID();
    const name = [input.firstName, input.lastName].filter(Boolean).join(' ') || user.email;
    await trx
      .insertInto('artists')
      .values({ uuid: defaultArtistUuid, owner_id: user.id, name, is_default: 1, created_at: now })
      .execute();
    return { user, defaultArtistUuid };
  });
}
