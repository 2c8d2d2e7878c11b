// Turns the UUIDs a request names into ids of rows the user may use: own
// libraries, lightboxes, groups, pricing profiles and watermarks, and
// galleries of websites the user can access. One query per list.
import type { Db } from '../store/db.js';
import { invalid, notFound } from '../http/errors.js';
import { accessibleWebsites } from '../websites/queries.js';
import { groupScope, requireOwnedGroup } from '../groups/queries.js';
import type { Params } from '../http/params.js';
import type { MediaFilter } from './selection.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function looksLikeUuid(v: string): boolean {
  return UUID.test(v);
}

type Found = { id: number; uuid: string };

/** Ids in the order of `uuids` (duplicates dropped); 422 naming `attr` for any unknown one. */
function inOrder(uuids: readonly string[], rows: readonly Found[], attr: string, what: string): number[] {
  const byUuid = new Map(rows.map((r) => [r.uuid.toLowerCase(), r.id]));
  const ids: number[] = [];
  for (const u of uuids) {
    const id = byUuid.get(u.toLowerCase());
    if (id === undefined) throw invalid(`${attr}: unknown ${what} ${u}`);
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

const wellFormed = (uuids: readonly string[]) => uuids.filter(looksLikeUuid).map((u) => u.toLowerCase());

export async function accessibleGalleryIds(db: Db, userId: number, uuids: readonly string[], attr: string): Promise<number[]> {
  if (uuids.length === 0) return [];
  const rows = await db
    .selectFrom('galleries')
    .select(['id', 'uuid'])
    .where('uuid', 'in', wellFormed(uuids).concat(''))
    .where('website_id', 'in', accessibleWebsites(db, userId).select('websites.id'))
    .execute();
  return inOrder(uuids, rows, attr, 'gallery');
}

/** Plain collections only: smart collections have no members to add. */
export async function ownedCollectionIds(db: Db, userId: number, uuids: readonly string[], attr: string): Promise<number[]> {
  if (uuids.length === 0) return [];
  const rows = await db
    .selectFrom('media_groups')
    .select(['id', 'uuid'])
    .where('uuid', 'in', wellFormed(uuids).concat(''))
    .where('owner_id', '=', userId)
    .where('kind', '=', 'collection')
    .execute();
  return inOrder(uuids, rows, attr, 'collection');
}

export async function ownedPricingProfileIds(db: Db, userId: number, uuids: readonly string[], attr: string): Promise<number[]> {
  if (uuids.length === 0) return [];
  const rows = await db
    .selectFrom('pricing_profiles')
    .select(['id', 'uuid'])
    .where('uuid', 'in', wellFormed(uuids).concat(''))
    .where('owner_id', '=', userId)
    .execute();
  return inOrder(uuids, rows, attr, 'pricing profile');
}

export async function ownedArtistId(db: Db, userId: number, uuid: string, attr: string): Promise<number> {
  const row = await findOwnedArtist(db, userId, uuid);
  if (!row) throw invalid(`${attr}: unknown media library ${uuid}`);
  return row.id;
}

export function findOwnedArtist(db: Db, userId: number, uuid: string) {
  return db.selectFrom('artists').select(['id', 'uuid']).where('uuid', '=', uuid.toLowerCase()).where('owner_id', '=', userId).executeTakeFirst();
}

export async function defaultArtistId(db: Db, userId: number): Promise<number> {
  const row = await db
    .selectFrom('artists')
    .select('id')
    .where('owner_id', '=', userId)
    .orderBy('is_default', 'desc')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (!row) throw invalid('the user has no media library');
  return row.id;
}

/** A watermark of any library the user owns. */
export async function ownedWatermarkId(db: Db, userId: number, uuid: string, attr: string): Promise<number> {
  const row = await db
    .selectFrom('watermarks')
    .innerJoin('artists', 'artists.id', 'watermarks.artist_id')
    .select('watermarks.id')
    .where('watermarks.uuid', '=', uuid.toLowerCase())
    .where('artists.owner_id', '=', userId)
    .executeTakeFirst();
  if (!row) throw invalid(`${attr}: unknown watermark ${uuid}`);
  return row.id;
}

// Filters name path-like resources: an unknown or foreign one is a 404.

export async function filterArtistId(db: Db, userId: number, uuid: string): Promise<number> {
  const row = await findOwnedArtist(db, userId, uuid);
  if (!row) throw notFound(`media library ${uuid}`);
  return row.id;
}

export async function filterGalleryId(db: Db, userId: number, uuid: string): Promise<number> {
  const row = await db
    .selectFrom('galleries')
    .select('id')
    .where('uuid', '=', uuid.toLowerCase())
    .where('website_id', 'in', accessibleWebsites(db, userId).select('websites.id'))
    .executeTakeFirst();
  if (!row) throw notFound(`gallery ${uuid}`);
  return row.id;
}

export async function filterLightboxId(db: Db, userId: number, uuid: string): Promise<number> {
  const row = await db.selectFrom('lightboxes').select('id').where('uuid', '=', uuid.toLowerCase()).where('owner_id', '=', userId).executeTakeFirst();
  if (!row) throw notFound(`lightbox ${uuid}`);
  return row.id;
}

/**
 * The filter named by a request's artist_id, gallery_id, medias_group_id and
 * lightbox_id (those it has); a target that is unknown or not the user's is a 404.
 */
export async function filterFromParams(db: Db, userId: number, p: Params): Promise<MediaFilter> {
  const f: MediaFilter = {};
  const artist = p.str('artist_id');
  if (artist) f.artistId = await filterArtistId(db, userId, artist);
  const gallery = p.str('gallery_id');
  if (gallery) f.galleryId = await filterGalleryId(db, userId, gallery);
  const group = p.str('medias_group_id');
  if (group) f.group = groupScope(await requireOwnedGroup(db, userId, group));
  const lightbox = p.str('lightbox_id');
  if (lightbox) f.lightboxId = await filterLightboxId(db, userId, lightbox);
  return f;
}
