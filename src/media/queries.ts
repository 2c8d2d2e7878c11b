// Reading medias: one media, or the rows and related lists of a page, with a
// fixed number of queries whatever the page size.
import type { Db } from '../store/db.js';
import type { MediaRow } from '../store/schema.js';

export type { MediaRow };

/** A media row with the UUIDs of the rows it points at. */
export interface MediaRecord extends MediaRow {
  artist_uuid: string;
  watermark_uuid: string | null;
}

export interface MediaRelations {
  keywords: string[];
  galleries: string[];
  collections: string[];
  pricingProfiles: string[];
}

export function findOwnedMedia(db: Db, ownerId: number, uuid: string): Promise<MediaRow | undefined> {
  return db.selectFrom('medias').selectAll().where('uuid', '=', uuid.toLowerCase()).where('owner_id', '=', ownerId).executeTakeFirst();
}

/** Records of `ids`, in the order of `ids`. */
export async function loadMediaRecords(db: Db, ids: readonly number[]): Promise<MediaRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('medias as m')
    .innerJoin('artists as a', 'a.id', 'm.artist_id')
    .leftJoin('watermarks as w', 'w.id', 'm.watermark_id')
    .selectAll('m')
    .select(['a.uuid as artist_uuid', 'w.uuid as watermark_uuid'])
    .where('m.id', 'in', ids)
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r as MediaRecord]));
  return ids.map((id) => byId.get(id)).filter((r): r is MediaRecord => r !== undefined);
}

function group<T>(ids: readonly number[], rows: readonly T[], key: (r: T) => number, value: (r: T) => string): Map<number, string[]> {
  const out = new Map<number, string[]>(ids.map((id) => [id, []]));
  for (const r of rows) out.get(key(r))?.push(value(r));
  return out;
}

/** Keywords, galleries, collections and pricing profiles of `ids`: one query each. */
export async function loadMediaRelations(db: Db, ids: readonly number[]): Promise<Map<number, MediaRelations>> {
  const out = new Map<number, MediaRelations>();
  if (ids.length === 0) return out;
  const [keywords, galleries, collections, pricing] = await Promise.all([
    db.selectFrom('media_keywords').select(['media_id', 'keyword']).where('media_id', 'in', ids).orderBy('media_id').orderBy('position').execute(),
    db
      .selectFrom('media_galleries as mg')
      .innerJoin('galleries as g', 'g.id', 'mg.gallery_id')
      .select(['mg.media_id', 'g.uuid'])
      .where('mg.media_id', 'in', ids)
      .orderBy('mg.media_id')
      .orderBy('mg.published_at')
      .orderBy('g.id')
      .execute(),
    db
      .selectFrom('media_group_medias as gm')
      .innerJoin('media_groups as mg', 'mg.id', 'gm.group_id')
      .select(['gm.media_id', 'mg.uuid'])
      .where('gm.media_id', 'in', ids)
      .orderBy('gm.media_id')
      .orderBy('mg.id')
      .execute(),
    db
      .selectFrom('media_pricing_profiles as mp')
      .innerJoin('pricing_profiles as p', 'p.id', 'mp.pricing_profile_id')
      .select(['mp.media_id', 'p.uuid'])
      .where('mp.media_id', 'in', ids)
      .orderBy('mp.media_id')
      .orderBy('p.id')
      .execute(),
  ]);
  const k = group(ids, keywords, (r) => r.media_id, (r) => r.keyword);
  const g = group(ids, galleries, (r) => r.media_id, (r) => r.uuid);
  const c = group(ids, collections, (r) => r.media_id, (r) => r.uuid);
  const p = group(ids, pricing, (r) => r.media_id, (r) => r.uuid);
  for (const id of ids) out.set(id, { keywords: k.get(id)!, galleries: g.get(id)!, collections: c.get(id)!, pricingProfiles: p.get(id)! });
  return out;
}

export const NO_RELATIONS: MediaRelations = { keywords: [], galleries: [], collections: [], pricingProfiles: [] };
