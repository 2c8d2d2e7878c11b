// SQL of media groups (table media_groups): collections and smart
// collections of a user. Their medias are the media feature's to select.
import { sql } from 'kysely';
import type { Db } from '../database/db.js';
import type { Dialect } from '../database/migration-helpers.js';
import { lockOwnerStamps } from '../database/page-stamp-lock-order.js';
import type { GroupScope } from '../media/repository.js';
import type { GroupRow } from '../database/schema.js';
import { inUnit, type Unit } from '../database/unit-of-work.js';
import { groupScopeOf } from './smart-repository.js';

/** A group with the UUID of its library, if it is tied to one. */
export type GroupRecord = GroupRow & { artist_uuid: string | null };

export interface NewGroup {
  uuid: string;
  ownerId: number;
  artistId: number | null;
  kind: 'collection' | 'smart';
  name: string;
  /** JSON, smart collections only. */
  rules: string | null;
}

export class GroupsRepository {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  /** Runs `fn` in one unit of work (src/database/unit-of-work.ts). */
  inTransaction<T>(fn: (unit: Unit) => Promise<T>): Promise<T> {
    return inUnit(this.db, fn);
  }

  /** The group as a scope of medias (a request's medias_group_id filter), for the media feature. */
  async scope(groupId: number): Promise<GroupScope> {
    return groupScopeOf(await this.db.selectFrom('media_groups').select(['id', 'kind', 'rules', 'artist_id']).where('id', '=', groupId).executeTakeFirstOrThrow());
  }

  private withArtist() {
    return this.db.selectFrom('media_groups as g').leftJoin('artists as a', 'a.id', 'g.artist_id').selectAll('g').select('a.uuid as artist_uuid');
  }

  byId(id: number): Promise<GroupRecord | undefined> {
    return this.withArtist().where('g.id', '=', id).executeTakeFirst();
  }

  /** A page of the user's groups (of one library, when given), by id, and how many there are in all. */
  async page(ownerId: number, artistId: number | undefined, page: { limit: number; offset: number }): Promise<{ total: number; rows: GroupRecord[] }> {
    let q = this.withArtist().where('g.owner_id', '=', ownerId);
    if (artistId !== undefined) q = q.where('g.artist_id', '=', artistId);
    const [{ total }] = await q.clearSelect().select((eb) => eb.fn.countAll<number>().as('total')).execute();
    const rows = await q.orderBy('g.id').limit(page.limit).offset(page.offset).execute();
    return { total: Number(total), rows };
  }

  async create(g: NewGroup, now: string): Promise<number> {
    const row = await this.db
      .insertInto('media_groups')
      .values({ uuid: g.uuid, owner_id: g.ownerId, artist_id: g.artistId, kind: g.kind, name: g.name, rules: g.rules, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async update(id: number, changes: { name?: string; rules?: string }, now: string): Promise<void> {
    await this.db
      .updateTable('media_groups')
      .set({ ...changes, updated_at: now })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Deleting the group locks its row, then its memberships' cascade writes the owner's stamp: that
   * stamp is taken first (src/database/page-stamp-lock-order.ts), or a media added to the collection meanwhile
   * would wait for the group holding it, and PostgreSQL would fail one of the two.
   */
  async delete(tx: Db, id: number): Promise<void> {
    await lockOwnerStamps(tx, this.dialect, sql`SELECT owner_id FROM media_groups WHERE id = ${id}`);
    await tx.deleteFrom('media_groups').where('id', '=', id).execute();
  }
}
