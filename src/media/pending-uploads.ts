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
