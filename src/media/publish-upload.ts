// The last move of every upload: in one transaction the media becomes live
// with its verified file, and the pending upload it came from disappears.
// Files the media no longer points to are removed after the commit.
import type { Db } from '../store/db.js';
import { nowIso } from '../store/db.js';
import type { StorageBackend } from '../storage/backend.js';
import type { MediaFacts } from './media-facts.js';

export interface VerifiedFile {
  storageKey: string;
  size: number;
  mimeType: string;
  fileName: string;
  facts: MediaFacts;
}

export type PublishOutcome = 'published' | 'already-completed';

/**
 * `pendingUploadId`: the step-1 row this file answers (step 3). It must still
 * exist, or a concurrent step 3 won the race and this one changes nothing.
 * Without it (direct upload) any pending upload of the media is cancelled.
 */
export async function publishUpload(
  db: Db,
  storage: StorageBackend,
  mediaId: number,
  file: VerifiedFile,
  pendingUploadId?: number,
): Promise<PublishOutcome> {
  const orphaned: string[] = [];
  const outcome = await db.transaction().execute(async (trx): Promise<PublishOutcome> => {
    if (pendingUploadId !== undefined) {
      const gone = await trx.deleteFrom('uploads').where('id', '=', pendingUploadId).executeTakeFirst();
      if (Number(gone.numDeletedRows) !== 1) return 'already-completed';
    } else {
      const pending = await trx.selectFrom('uploads').select(['id', 'storage_key']).where('media_id', '=', mediaId).execute();
      if (pending.length > 0) {
        await trx.deleteFrom('uploads').where('media_id', '=', mediaId).execute();
        orphaned.push(...pending.map((p) => p.storage_key));
      }
    }
    const current = await trx.selectFrom('medias').select(['storage_key', 'shot_at']).where('id', '=', mediaId).executeTakeFirst();
    if (!current) {
      orphaned.push(file.storageKey);
      return 'already-completed';
    }
    await trx
      .updateTable('medias')
      .set({
        status: 'live',
        file_name: file.fileName,
        file_size: file.size,
        mime_type: file.mimeType,
        storage_key: file.storageKey,
        width: file.facts.width ?? null,
        height: file.facts.height ?? null,
        // A capture time the client gave wins over the file's EXIF.
        shot_at: current.shot_at ?? file.facts.shotAt ?? null,
        updated_at: nowIso(),
      })
      .where('id', '=', mediaId)
      .execute();
    if (current.storage_key && current.storage_key !== file.storageKey) orphaned.push(current.storage_key);
    return 'published';
  });
  // A file left behind here is garbage, not a failure of the upload.
  if (orphaned.length > 0) await storage.delete(orphaned).catch(() => undefined);
  return outcome;
}
