// Deleting a gallery with everything below it, optionally with the medias
// published there (spec 4.3). The medias_count guard compares before anything
// is changed; list positions are closed up in the same transaction. On a
// shared website the sub-tree may hold other users' medias: only the caller's
// own are counted and deleted.
import { sql } from 'kysely';
import { conflict, invalid } from '../http/errors.js';
import { RenditionsRepository } from '../renditions/repository.js';
import { DeletionsRepository } from '../storage/deletions-repository.js';
import type { Db } from '../store/db.js';
import { UploadsRepository } from '../uploads/repository.js';
import { closeListGaps } from './list-positions.js';
import { subtreeCte, subtreeOf } from './queries.js';
import type { GalleryRow } from '../store/schema.js';
import { lockWebsite } from './write.js';

export interface DeleteOptions {
  /** The user deleting: only their medias are counted and deleted. */
  callerId: number;
  deleteMedias: boolean;
  /** medias_count: the number of medias the client expects the delete to concern. */
  expectedMediasCount?: number;
}

export interface DeleteResult {
  galleriesDeleted: number;
  mediasDeleted: number;
  /** Files of the deleted medias, recorded for deletion: for the media feature's file cleanup after the commit. */
  storageKeys: string[];
}

/** The caller's live medias published in the sub-tree: the ones counted and, with delete_medias=1, deleted. */
function subtreeMediasSql(galleryId: number, ownerId: number) {
  return sql`${subtreeCte([galleryId])}
    SELECT DISTINCT m.id, m.storage_key FROM sub
    CROSS JOIN media_galleries mg
    CROSS JOIN medias m
    WHERE mg.gallery_id = sub.id AND m.id = mg.media_id AND m.status = 'live' AND m.owner_id = ${ownerId}`;
}

export async function deleteGalleryTree(db: Db, gallery: GalleryRow, opts: DeleteOptions, now: string): Promise<DeleteResult> {
  if (gallery.parent_id === null) throw invalid('the root gallery cannot be deleted');
  await lockWebsite(db, gallery.website_id, now);

  const { rows: medias } = await subtreeMediasSql(gallery.id, opts.callerId).execute(db);
  const mediaRows = medias as Array<{ id: number; storage_key: string | null }>;
  if (opts.expectedMediasCount !== undefined && opts.expectedMediasCount !== mediaRows.length) {
    throw conflict(
      `medias_count is ${opts.expectedMediasCount} but ${mediaRows.length} medias of yours are published in this gallery and its sub-galleries: nothing was deleted`,
      'count_mismatch',
    );
  }
  const subtree = await subtreeOf(db, gallery.id);

  let storageKeys: string[] = [];
  if (opts.deleteMedias && mediaRows.length > 0) {
    const ids = sql`SELECT id FROM (${subtreeMediasSql(gallery.id, opts.callerId)}) AS doomed`;
    // Covers are plain ids (no foreign key): clear the ones about to dangle.
    await sql`UPDATE galleries SET cover_media_id = NULL WHERE cover_media_id IN (${ids})`.execute(db);
    // Read before their rows cascade away with the medias.
    const renditionKeys = await new RenditionsRepository(db).keysOf(db, mediaRows.map((m) => m.id));
    await sql`DELETE FROM medias WHERE id IN (${ids})`.execute(db);
    // In this transaction: the files go after the commit, or the cleanup sweep removes them.
    const deletions = new DeletionsRepository(db);
    const pending = await new UploadsRepository(db, deletions).endOfMedias(db, mediaRows.map((m) => m.id));
    storageKeys = [...mediaRows.map((m) => m.storage_key).filter((k): k is string => k !== null && k !== ''), ...pending, ...renditionKeys];
    await deletions.record(db, storageKeys);
  }
  // One statement, so the parent_id foreign key only sees the end state.
  await sql`${subtreeCte([gallery.id])} DELETE FROM galleries WHERE id IN (SELECT id FROM sub)`.execute(db);
  await db
    .updateTable('galleries')
    .set((eb) => ({ subgalleries_count: eb('subgalleries_count', '-', 1) }))
    .where('id', '=', gallery.parent_id)
    .execute();
  await closeListGaps(db, gallery.website_id, subtree.map((g) => g.list_pos));
  return {
    galleriesDeleted: subtree.length,
    mediasDeleted: opts.deleteMedias ? mediaRows.length : 0,
    storageKeys,
  };
}
