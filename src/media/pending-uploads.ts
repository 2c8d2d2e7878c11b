// The `uploads` table: one pending upload per media, between step 1 and step 3.
import type { Selectable } from 'kysely';
import type { Db } from '../store/db.js';
import type { UploadsTable } from '../store/schema.js';

export type PendingUpload = Selectable<UploadsTable>;
export type NewPendingUpload = Omit<PendingUpload, 'id'>;

/** Records a pending upload, replacing the media's previous one; returns the replaced row's storage key. */
export async function replacePendingUpload(db: Db, row: NewPendingUpload): Promise<string | undefined> {
  return db.transaction().execute(async (trx) => {
    const previous = await trx.selectFrom('uploads').select(['id', 'storage_key']).where('media_id', '=', row.media_id).executeTakeFirst();
    if (previous) await trx.deleteFrom('uploads').where('id', '=', previous.id).execute();
    await trx.insertInto('uploads').values(row).execute();
    return previous?.storage_key;
  });
}

export function findPendingUpload(db: Db, mediaId: number): Promise<PendingUpload | undefined> {
  return db.selectFrom('uploads').selectAll().where('media_id', '=', mediaId).executeTakeFirst();
}

/**
 * Deletes a media that never went live (its relations cascade) and clears
 * gallery covers pointing at it; a live media is left alone. Returns whether it went.
 */
export async function deleteNeverLiveMedia(trx: Db, mediaId: number): Promise<boolean> {
  const gone = await trx.deleteFrom('medias').where('id', '=', mediaId).where('status', '=', 'pending').executeTakeFirst();
  if (Number(gone.numDeletedRows) === 0) return false;
  // Covers reference medias without a foreign key.
  await trx.updateTable('galleries').set({ cover_media_id: null }).where('cover_media_id', '=', mediaId).execute();
  return true;
}
