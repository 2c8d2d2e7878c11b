// Reads of the gallery tree. Every read that serves a page of galleries is a
// fixed number of queries, whatever the page size or the depth of the tree.
import { sql } from 'kysely';
import type { Db } from '../store/db.js';
import { prepared, preparedAll } from '../store/prepared.js';
import type { GalleryRow } from '../store/schema.js';

/** A gallery with the UUIDs of what it refers to, as replies show it. */
export interface GalleryRecord extends GalleryRow {
  parent_uuid: string | null;
  display_style_uuid: string | null;
  cover_media_uuid: string | null;
}

export interface MediaCounts {
  /** Live medias published in the gallery. */
  medias: number;
  /** Distinct live medias published in the gallery or any gallery below it. */
  full: number;
}

/** Galleries with their references resolved; callers add the where clause. */
export function galleryRecords(db: Db) {
  return db
    .selectFrom('galleries as g')
    .leftJoin('galleries as p', 'p.id', 'g.parent_id')
    .leftJoin('display_styles as ds', 'ds.id', 'g.display_style_id')
    .leftJoin('medias as cm', 'cm.id', 'g.cover_media_id')
    .selectAll('g')
    .select(['p.uuid as parent_uuid', 'ds.uuid as display_style_uuid', 'cm.uuid as cover_media_uuid']);
}

const galleryRecordByUuid = prepared((db: Db, websiteId: number, uuid: string) =>
  galleryRecords(db).where('g.website_id', '=', websiteId).where('g.uuid', '=', uuid),
);

export function findGalleryRecord(db: Db, websiteId: number, uuid: string): Promise<GalleryRecord | undefined> {
  return galleryRecordByUuid(db, websiteId, uuid.toLowerCase());
}

export function findGallery(db: Db, websiteId: number, uuid: string): Promise<GalleryRow | undefined> {
  return db.selectFrom('galleries').selectAll().where('website_id', '=', websiteId).where('uuid', '=', uuid.toLowerCase()).executeTakeFirst();
}

/** Number of galleries of a website: list positions are dense, so the highest one (an index lookup). */
export async function galleryTotal(db: Db, websiteId: number): Promise<number> {
  const row = await db
    .selectFrom('galleries')
    .select((eb) => eb.fn.max('list_pos').as('total'))
    .where('website_id', '=', websiteId)
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

/** Galleries at list positions first..last (an index range, never an OFFSET scan). */
export function galleriesByListPos(db: Db, websiteId: number, first: number, last: number): Promise<GalleryRecord[]> {
  return galleryRecords(db)
    .where('g.website_id', '=', websiteId)
    .where('g.list_pos', '>=', first)
    .where('g.list_pos', '<=', last)
    .orderBy('g.list_pos')
    .execute();
}

/** The gallery's ancestors, root first (its full url path's prefixes), in one query. */
export function ancestorsOf(db: Db, g: GalleryRow): Promise<GalleryRecord[]> {
  if (g.parent_id === null) return Promise.resolve([]);
  const segments = g.full_url_path.split('/');
  const prefixes = [''];
  for (let i = 1; i < segments.length; i++) prefixes.push(segments.slice(0, i).join('/'));
  return galleryRecords(db)
    .where('g.website_id', '=', g.website_id)
    .where('g.full_url_path', 'in', prefixes)
    .execute()
    .then((rows) => rows.sort((a, b) => a.full_url_path.length - b.full_url_path.length));
}

/** Direct children (id, name), in creation order. At most 1000 per gallery. */
export function childrenOf(db: Db, galleryId: number): Promise<Array<{ id: number; name: string }>> {
  return db.selectFrom('galleries').select(['id', 'name']).where('parent_id', '=', galleryId).orderBy('id').execute();
}

export function galleriesByIds(db: Db, ids: readonly number[]): Promise<GalleryRecord[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return galleryRecords(db).where('g.id', 'in', ids).execute();
}

/**
 * Sub-tree of every given gallery (the gallery itself included) as
 * (top_id, id) pairs: a recursive CTE, usable as a subquery.
 */
export function subtreeCte(ids: readonly number[]) {
  return sql`WITH RECURSIVE sub(top_id, id) AS (
      SELECT id, id FROM galleries WHERE id IN (${sql.join(ids)})
      UNION ALL
      SELECT sub.top_id, g.id FROM galleries g JOIN sub ON g.parent_id = sub.id
    )`;
}

/**
 * medias-count and full-medias-count of several galleries: one grouped query
 * for the galleries' own medias, and a recursive one only for those that have
 * sub-galleries (a leaf's full count is its own count). Most galleries of a
 * page are leaves, so the walk down the tree stays small.
 */
const ownMediaCounts = preparedAll((db: Db, galleryIds: readonly number[]) =>
  db
    .selectFrom('media_galleries as mg')
    .innerJoin('medias as m', 'm.id', 'mg.media_id')
    .select((eb) => ['mg.gallery_id', eb.fn.countAll<number>().as('n')])
    .where('mg.gallery_id', 'in', galleryIds)
    .where('m.status', '=', 'live')
    .groupBy('mg.gallery_id'),
);

export async function mediaCounts(db: Db, galleries: ReadonlyArray<Pick<GalleryRow, 'id' | 'subgalleries_count'>>): Promise<Map<number, MediaCounts>> {
  const out = new Map<number, MediaCounts>();
  if (galleries.length === 0) return out;
  const own = await ownMediaCounts(db, galleries.map((g) => g.id));
  const ownCount = new Map(own.map((r) => [r.gallery_id, Number(r.n)]));
  for (const g of galleries) {
    const n = ownCount.get(g.id) ?? 0;
    out.set(g.id, { medias: n, full: n });
  }
  const parents = galleries.filter((g) => g.subgalleries_count > 0).map((g) => g.id);
  for (const [id, full] of await fullMediaCounts(db, parents)) out.get(id)!.full = full;
  return out;
}

/**
 * Distinct live medias of each gallery's sub-tree. CROSS JOIN keeps SQLite
 * walking from the sub-tree into media_galleries (without statistics it
 * would rather scan all of media_galleries); PostgreSQL plans it as an
 * ordinary join.
 */
async function fullMediaCounts(db: Db, ids: readonly number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql<{ id: number; full_count: number | string }>`
    ${subtreeCte(ids)}
    SELECT sub.top_id AS id, COUNT(DISTINCT mg.media_id) AS full_count
    FROM sub
    CROSS JOIN media_galleries mg
    CROSS JOIN medias m
    WHERE mg.gallery_id = sub.id AND m.id = mg.media_id AND m.status = 'live'
    GROUP BY sub.top_id`.execute(db);
  return new Map(rows.map((r) => [Number(r.id), Number(r.full_count)]));
}

/** Ids and list positions of a gallery and everything below it. */
export async function subtreeOf(db: Db, galleryId: number): Promise<Array<{ id: number; list_pos: number }>> {
  const { rows } = await sql<{ id: number; list_pos: number }>`
    ${subtreeCte([galleryId])}
    SELECT g.id, g.list_pos FROM sub JOIN galleries g ON g.id = sub.id ORDER BY g.list_pos`.execute(db);
  return rows.map((r) => ({ id: Number(r.id), list_pos: Number(r.list_pos) }));
}
