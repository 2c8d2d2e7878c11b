// Creating and updating galleries: resolve what the input refers to, keep
// url paths unique among siblings, keep full url paths right below a renamed
// or moved gallery, respect the 1000 sub-galleries limit and the tree limits
// of limits.ts. Callers run these inside a transaction, so a refusal leaves
// nothing changed.
import { randomUUID } from 'node:crypto';
import { sql, type Updateable } from 'kysely';
import { invalid } from '../http/errors.js';
import type { Db } from '../store/db.js';
import type { GalleriesTable } from '../store/schema.js';
import { insertAcl } from './acl.js';
import type { GalleryInput } from './input.js';
import { checkDepth, checkFullUrlPathLength, checkWebsiteRoom, levelOf, subtreeReach } from './limits.js';
import { nextListPos } from './list-positions.js';
import { reorderMedias } from './medias.js';
import type { GalleryRow } from '../store/schema.js';
import { baseUrlPath, childFullUrlPath, slugify, uniqueUrlPath } from './url-path.js';
import type { WebsiteRow } from '../store/schema.js';

export const MAX_SUBGALLERIES = 1000;

/**
 * What to write besides the input: the password already hashed (argon2 is
 * slow, so it is hashed before the transaction starts). undefined: unchanged;
 * null: removed.
 */
export interface Hashed {
  passwordHash?: string | null;
}

/** Serialises writes to one website's tree (a row lock on PostgreSQL, the write lock on SQLite). */
export async function lockWebsite(db: Db, websiteId: number, now: string): Promise<void> {
  await db.updateTable('websites').set({ updated_at: now }).where('id', '=', websiteId).execute();
}

async function resolveParent(db: Db, websiteId: number, uuid: string): Promise<GalleryRow> {
  const parent = await db.selectFrom('galleries').selectAll().where('website_id', '=', websiteId).where('uuid', '=', uuid).executeTakeFirst();
  if (!parent) throw invalid(`gallery[parent]: ${uuid} is not a gallery of this website`);
  return parent;
}

/** The style's id; null asks for the website's default style. */
async function resolveDisplayStyle(db: Db, websiteId: number, uuid: string | null): Promise<number | null> {
  let q = db.selectFrom('display_styles').select('id').where('website_id', '=', websiteId);
  q = uuid === null ? q.orderBy('is_default', 'desc').orderBy('id') : q.where('uuid', '=', uuid);
  const row = await q.executeTakeFirst();
  if (!row && uuid !== null) throw invalid(`gallery[display_style]: ${uuid} is not a display style of this website`);
  return row?.id ?? null;
}

async function resolveCoverMedia(db: Db, website: WebsiteRow, uuid: string | null): Promise<number | null> {
  if (uuid === null) return null;
  // The website owner's medias: a member editing the website uses the owner's library.
  const row = await db.selectFrom('medias').select('id').where('uuid', '=', uuid).where('owner_id', '=', website.owner_id).executeTakeFirst();
  if (!row) throw invalid(`gallery[cover_media]: ${uuid} is not a media of this website's owner`);
  return row.id;
}

/** Takes one of the parent's 1000 sub-gallery places, atomically. */
async function takeSubgallerySlot(db: Db, parent: GalleryRow): Promise<void> {
  const result = await db
    .updateTable('galleries')
    .set((eb) => ({ subgalleries_count: eb('subgalleries_count', '+', 1) }))
    .where('id', '=', parent.id)
    .where('subgalleries_count', '<', MAX_SUBGALLERIES)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) {
    throw invalid(`gallery[parent]: gallery ${parent.uuid} already holds ${MAX_SUBGALLERIES} sub-galleries, the most a gallery may hold`);
  }
}

async function releaseSubgallerySlot(db: Db, parentId: number): Promise<void> {
  await db
    .updateTable('galleries')
    .set((eb) => ({ subgalleries_count: eb('subgalleries_count', '-', 1) }))
    .where('id', '=', parentId)
    .execute();
}

/** The attribute a full url path comes from, to name in a refusal: the url path sent, else the name. */
function pathSource(input: GalleryInput): string {
  return input.urlPath !== undefined && slugify(input.urlPath) !== '' ? 'gallery[url_path]' : 'gallery[name]';
}

async function siblingUrlPaths(db: Db, parentId: number, exceptId?: number): Promise<Set<string>> {
  let q = db.selectFrom('galleries').select('url_path').where('parent_id', '=', parentId);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return new Set((await q.execute()).map((r) => r.url_path));
}

export async function createGallery(db: Db, website: WebsiteRow, input: GalleryInput, hashed: Hashed, now: string): Promise<number> {
  await lockWebsite(db, website.id, now);
  const parent = await resolveParent(db, website.id, input.parent!);
  checkDepth(levelOf(parent.full_url_path) + 1, parent.uuid);
  await checkWebsiteRoom(db, website.id, 1);
  const displayStyleId = await resolveDisplayStyle(db, website.id, input.displayStyle ?? null);
  const coverMediaId = await resolveCoverMedia(db, website, input.coverMedia ?? null);
  const urlPath = uniqueUrlPath(baseUrlPath(input.urlPath, input.name!), await siblingUrlPaths(db, parent.id));
  const fullUrlPath = childFullUrlPath(parent.full_url_path, urlPath);
  checkFullUrlPathLength(fullUrlPath.length, pathSource(input));
  await takeSubgallerySlot(db, parent);
  const row = await db
    .insertInto('galleries')
    .values({
      uuid: randomUUID(),
      website_id: website.id,
      parent_id: parent.id,
      list_pos: await nextListPos(db, website.id),
      name: input.name!,
      url_path: urlPath,
      url_path_auto: input.urlPath === undefined || slugify(input.urlPath) === '' ? 1 : 0,
      full_url_path: fullUrlPath,
      description: input.description ?? null,
      hidden: input.hidden ? 1 : 0,
      indexing: input.indexing ?? 1,
      password_hash: hashed.passwordHash ?? null,
      content_order: input.contentOrder ?? 'manual-last',
      content_order_direction: input.contentOrderDirection ?? 'asc',
      order_subgalleries: input.orderSubgalleries ? 1 : 0,
      display_style_id: displayStyleId,
      cover_media_id: coverMediaId,
      published_at: now,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (input.acl) await insertAcl(db, row.id, input.acl, now);
  return row.id;
}

/** Applies an update; attributes not sent stay as they are (client-compat: partial updates). */
export async function updateGallery(db: Db, website: WebsiteRow, gallery: GalleryRow, input: GalleryInput, hashed: Hashed, now: string): Promise<void> {
  await lockWebsite(db, website.id, now);
  const isRoot = gallery.parent_id === null;
  const changes: Updateable<GalleriesTable> = { updated_at: now };

  let parent: GalleryRow | undefined;
  let moving = false;
  if (input.parent !== undefined) {
    if (isRoot) throw invalid('gallery[parent]: the root gallery cannot be moved');
    parent = await resolveParent(db, website.id, input.parent);
    if (parent.id !== gallery.parent_id) {
      if (parent.id === gallery.id || parent.full_url_path.startsWith(`${gallery.full_url_path}/`)) {
        throw invalid('gallery[parent]: a gallery cannot be moved under itself or one of its own sub-galleries');
      }
      moving = true;
    }
  }
  if (input.displayStyle !== undefined) changes.display_style_id = await resolveDisplayStyle(db, website.id, input.displayStyle);
  if (input.coverMedia !== undefined) changes.cover_media_id = await resolveCoverMedia(db, website, input.coverMedia);
  if (input.name !== undefined) changes.name = input.name;
  if (input.description !== undefined) changes.description = input.description;
  if (input.hidden !== undefined) changes.hidden = input.hidden ? 1 : 0;
  if (input.indexing !== undefined) changes.indexing = input.indexing;
  if (hashed.passwordHash !== undefined) changes.password_hash = hashed.passwordHash;
  if (input.contentOrder !== undefined) changes.content_order = input.contentOrder;
  if (input.contentOrderDirection !== undefined) changes.content_order_direction = input.contentOrderDirection;
  if (input.mediasOrder) await reorderMedias(db, gallery.id, input.mediasOrder);

  if (isRoot) {
    // The root's url path is '' and stays so: its address is the website's.
    if (input.urlPath !== undefined && input.urlPath.trim() !== '') throw invalid('gallery[url_path]: the root gallery has no url path');
  } else {
    const newName = input.name ?? gallery.name;
    const renamed = input.name !== undefined && input.name !== gallery.name;
    if (moving || input.urlPath !== undefined || (renamed && gallery.url_path_auto === 1)) {
      const target = parent ?? (await resolveParentById(db, gallery.parent_id!));
      let base: string;
      if (input.urlPath !== undefined) {
        changes.url_path_auto = slugify(input.urlPath) === '' ? 1 : 0;
        base = baseUrlPath(input.urlPath, newName);
      } else {
        // A derived path follows the name; one the user chose is kept.
        base = gallery.url_path_auto === 1 ? baseUrlPath(undefined, newName) : gallery.url_path;
      }
      const urlPath = uniqueUrlPath(base, await siblingUrlPaths(db, target.id, gallery.id));
      const fullUrlPath = childFullUrlPath(target.full_url_path, urlPath);
      if (fullUrlPath !== gallery.full_url_path) {
        // Every gallery below moves and grows along with this one.
        const reach = await subtreeReach(db, gallery);
        if (moving) checkDepth(levelOf(target.full_url_path) + 1 + reach.levels, target.uuid, levelOf(gallery.full_url_path) + reach.levels);
        checkFullUrlPathLength(fullUrlPath.length + reach.chars, moving ? 'gallery[parent]' : pathSource(input), gallery.full_url_path.length + reach.chars);
      }
      if (moving) {
        await takeSubgallerySlot(db, target);
        await releaseSubgallerySlot(db, gallery.parent_id!);
        changes.parent_id = target.id;
      }
      changes.url_path = urlPath;
      changes.full_url_path = fullUrlPath;
      if (fullUrlPath !== gallery.full_url_path) await rewriteDescendantPaths(db, website.id, gallery.full_url_path, fullUrlPath);
    }
  }
  await db.updateTable('galleries').set(changes).where('id', '=', gallery.id).execute();
}

async function resolveParentById(db: Db, id: number): Promise<GalleryRow> {
  return db.selectFrom('galleries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** Every gallery below `oldPath` gets `newPath` as its prefix instead: one statement. */
async function rewriteDescendantPaths(db: Db, websiteId: number, oldPath: string, newPath: string): Promise<void> {
  const oldPrefix = `${oldPath}/`;
  const newPrefix = `${newPath}/`;
  await sql`UPDATE galleries
    SET full_url_path = ${newPrefix} || substr(full_url_path, ${oldPrefix.length + 1})
    WHERE website_id = ${websiteId} AND substr(full_url_path, 1, ${oldPrefix.length}) = ${oldPrefix}`.execute(db);
}
