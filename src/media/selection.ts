// Which medias a listing, a batch update or a group operation is about: the
// user's live medias, narrowed by library, gallery, lightbox or group, in the
// order of the container that was named (docs/media.md, "Listing").
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../store/db.js';
import { rulesCondition, type SmartRules } from '../groups/rules.js';

export interface GroupScope {
  id: number;
  kind: 'collection' | 'smart';
  rules: SmartRules;
  artistId: number | null;
}

export interface MediaFilter {
  artistId?: number;
  galleryId?: number;
  lightboxId?: number;
  group?: GroupScope;
}

interface ScopeSql {
  from: RawBuilder<unknown>;
  where: RawBuilder<unknown>;
  order: RawBuilder<unknown>;
}

/**
 * The first container named (gallery, then collection, then lightbox) gives
 * the order and is joined; any other one is an EXISTS condition.
 */
function scopeSql(ownerId: number, f: MediaFilter): ScopeSql {
  const where: RawBuilder<unknown>[] = [sql`m.owner_id = ${ownerId}`, sql`m.status = 'live'`];
  if (f.artistId !== undefined) where.push(sql`m.artist_id = ${f.artistId}`);
  let from: RawBuilder<unknown> = sql`medias m`;
  let order: RawBuilder<unknown> = sql`m.id`;
  const containers: Array<{ table: string; column: string; id: number }> = [];
  if (f.galleryId !== undefined) containers.push({ table: 'media_galleries', column: 'gallery_id', id: f.galleryId });
  if (f.group?.kind === 'collection') containers.push({ table: 'media_group_medias', column: 'group_id', id: f.group.id });
  if (f.lightboxId !== undefined) containers.push({ table: 'lightbox_medias', column: 'lightbox_id', id: f.lightboxId });
  containers.forEach((c, i) => {
    const t = sql.table(c.table);
    const col = sql.ref(c.column);
    if (i === 0) {
      from = sql`${t} c JOIN medias m ON m.id = c.media_id`;
      where.push(sql`c.${col} = ${c.id}`);
      order = sql`c.position, m.id`;
    } else {
      where.push(sql`EXISTS (SELECT 1 FROM ${t} x WHERE x.media_id = m.id AND x.${col} = ${c.id})`);
    }
  });
  if (f.group?.kind === 'smart') {
    where.push(rulesCondition(f.group.rules));
    if (f.group.artistId !== null) where.push(sql`m.artist_id = ${f.group.artistId}`);
  }
  return { from, where: sql.join(where, sql` AND `), order };
}

export async function countMedias(db: Db, ownerId: number, f: MediaFilter): Promise<number> {
  const s = scopeSql(ownerId, f);
  const r = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${s.from} WHERE ${s.where}`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

/** Ids in the scope's order; a page when limit is given. */
export async function mediaIds(db: Db, ownerId: number, f: MediaFilter, page?: { limit: number; offset: number }): Promise<number[]> {
  const s = scopeSql(ownerId, f);
  const limit = page ? sql`LIMIT ${page.limit} OFFSET ${page.offset}` : sql``;
  const r = await sql<{ id: number }>`SELECT m.id FROM ${s.from} WHERE ${s.where} ORDER BY ${s.order} ${limit}`.execute(db);
  return r.rows.map((row) => Number(row.id));
}

/** Counts of several smart collections in one statement. */
export async function countSmartGroups(db: Db, ownerId: number, groups: readonly GroupScope[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (groups.length === 0) return out;
  const parts = groups.map((g) => {
    const s = scopeSql(ownerId, { group: g });
    return sql`SELECT ${sql.lit(g.id)} AS group_id, COUNT(*) AS n FROM ${s.from} WHERE ${s.where}`;
  });
  const r = await sql<{ group_id: number; n: number }>`${sql.join(parts, sql` UNION ALL `)}`.execute(db);
  for (const row of r.rows) out.set(Number(row.group_id), Number(row.n));
  return out;
}

/** Counts of live members of several collections in one statement. */
export async function countCollections(db: Db, ownerId: number, groupIds: readonly number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>(groupIds.map((id) => [id, 0]));
  if (groupIds.length === 0) return out;
  const rows = await db
    .selectFrom('media_group_medias as c')
    .innerJoin('medias as m', 'm.id', 'c.media_id')
    .select(['c.group_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('c.group_id', 'in', groupIds)
    .where('m.owner_id', '=', ownerId)
    .where('m.status', '=', 'live')
    .groupBy('c.group_id')
    .execute();
  for (const r of rows) out.set(r.group_id, Number(r.n));
  return out;
}
