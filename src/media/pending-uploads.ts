// The `uploads` table: one pending upload per media, between step 1 and step 3.
// Its storage key is the incoming key step 2 may write to, and only while the
// row exists: the upload target looks it up before reading a byte.
import type { Db } from '../store/db.js';
import { recordFileDeletions } from '../storage/file-deletions.js';
import type { PendingUploadRow } from '../store/schema.js';

export type NewPendingUpload = Omit<PendingUploadRow, 'id'>;

/** Keys per IN list. */
const CHUNK = 500;

/**
 * Records a pending upload, replacing the media's previous one, whose file is
 * recorded for deletion in the same transaction; returns that file's key.
 */
export async function replacePendingUpload(db: Db, row: NewPendingUpload): Promise<string | undefined> {
  return db.transaction().execute(async (trx) => {
    const previous = await trx.selectFrom('uploads').select(['id', 'storage_key']).where('media_id', '=', row.media_id).executeTakeFirst();
    if (previous) {
      await trx.deleteFrom('uploads').where('id', '=', previous.id).execute();
      await recordFileDeletions(trx, [previous.storage_key]);
    }
    await trx.insertInto('uploads').values(row).execute();
    return previous?.storage_key;
  });
}

export function findPendingUpload(db: Db, mediaId: number): Promise<PendingUploadRow | undefined> {
  return db.selectFrom('uploads').selectAll().where('media_id', '=', mediaId).executeTakeFirst();
}

/**
 * Call in the transaction that deleted medias: their pending uploads end too
 * (step 2 is refused from now on), and every file of theirs — the originals
 * given, the incoming files — is recorded for deletion. Returns all those keys,
 * for removeRecordedFiles after the commit.
 */
export async function dropFilesOfDeletedMedias(trx: Db, mediaIds: readonly number[], storageKeys: readonly (string | null)[]): Promise<string[]> {
  const keys = storageKeys.filter((k): k is string => k !== null && k !== '');
  for (let i = 0; i < mediaIds.length; i += CHUNK) {
    const ids = mediaIds.slice(i, i + CHUNK);
    const pending = await trx.selectFrom('uploads').select('storage_key').where('media_id', 'in', ids).execute();
    if (pending.length === 0) continue;
    await trx.deleteFrom('uploads').where('media_id', 'in', ids).execute();
    keys.push(...pending.map((p) => p.storage_key));
  }
  await recordFileDeletions(trx, keys);
  return keys;
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
