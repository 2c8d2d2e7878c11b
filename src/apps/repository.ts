// SQL of applications: the API keys and secrets that sign requests (spec 5.1).
import { randomBytes } from 'node:crypto';
import type { Db } from '../database/db.js';
import { nowIso } from '../database/db.js';
import type { AppRow } from '../database/schema.js';

/** An application as its lists show it: never its secret. */
export type AppListRow = Pick<AppRow, 'id' | 'name' | 'api_key' | 'owner_id' | 'created_at' | 'revoked_at'> & { owner_email: string | null; owner_disabled_at: string | null };

/** An application as the signature check needs it: with its owner's state (an owned one stops while its owner is disabled). */
export type AppKeyRow = AppRow & { owner_disabled_at: string | null };

export class AppsRepository {
  constructor(private readonly db: Db) {}

  /** A live application by its key: a revoked one signs nothing. */
  byKey(apiKey: string): Promise<AppKeyRow | undefined> {
    return this.db
      .selectFrom('apps')
      .leftJoin('users', 'users.id', 'apps.owner_id')
      .selectAll('apps')
      .select('users.disabled_at as owner_disabled_at')
      .where('apps.api_key', '=', apiKey)
      .where('apps.revoked_at', 'is', null)
      .executeTakeFirst();
  }

  /** A new application with a 128-bit key and a 256-bit secret; `ownerId` when a photographer made it for themself. */
  async create(name: string, ownerId: number | null = null): Promise<{ key: string; secret: string }> {
    const key = randomBytes(16).toString('hex');
    const secret = randomBytes(32).toString('hex');
    await this.db.insertInto('apps').values({ name, api_key: key, api_secret: secret, created_at: nowIso(), owner_id: ownerId }).execute();
    return { key, secret };
  }

  /** A page of applications, newest first: one owner's (a number), or every one (undefined). */
  list(ownerId: number | undefined, limit: number, offset: number): Promise<AppListRow[]> {
    let q = this.db
      .selectFrom('apps')
      .leftJoin('users', 'users.id', 'apps.owner_id')
      .select(['apps.id', 'apps.name', 'apps.api_key', 'apps.owner_id', 'apps.created_at', 'apps.revoked_at', 'users.email as owner_email', 'users.disabled_at as owner_disabled_at']);
    if (ownerId !== undefined) q = q.where('apps.owner_id', '=', ownerId);
    return q.orderBy('apps.id', 'desc').limit(limit).offset(offset).execute();
  }

  async count(ownerId: number | undefined): Promise<number> {
    let q = this.db.selectFrom('apps').select((eb) => eb.fn.countAll<number>().as('n'));
    if (ownerId !== undefined) q = q.where('owner_id', '=', ownerId);
    return Number((await q.executeTakeFirstOrThrow()).n);
  }

  /** Revokes a live application by key (of `ownerId` when given); its key, or undefined when there was none to revoke. */
  async revoke(apiKey: string, ownerId: number | undefined): Promise<boolean> {
    let q = this.db.updateTable('apps').set({ revoked_at: nowIso() }).where('api_key', '=', apiKey).where('revoked_at', 'is', null);
    if (ownerId !== undefined) q = q.where('owner_id', '=', ownerId);
    return Number((await q.executeTakeFirst()).numUpdatedRows) > 0;
  }
}
