// The last move of every upload: in one transaction the media becomes live
// with its verified file (already at its final key), the pending upload it
// came from disappears, and every file the media no longer points to is
// recorded for deletion; they are removed after the commit.
import type { Services } from '../http/context.js';
import { ApiError } from '../http/errors.js';
import { nowIso } from '../store/db.js';
import { recordFileDeletions, removeRecordedFiles } from '../storage/file-deletions.js';
import type { MediaFacts } from './media-facts.js';

export interface VerifiedFile {
  /** Its final key, recorded with recordUnpublishedFile before it was stored. */
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
 * Either way a file that is not published is recorded for deletion.
 */
export async function publishUpload(
  services: Pick<Services, 'storage' | 'db' | 'log'>,
  mediaId: number,
  file: VerifiedFile,
  pendingUploadId?: number,
): Promise<PublishOutcome> {
  const orphaned: string[] = [];
  const outcome = await services.db.transaction().execute(async (trx): Promise<PublishOutcome> => {
    const unpublished = await trx.deleteFrom('file_deletions').where('storage_key', '=', file.storageKey).executeTakeFirst();
    // Only a sweep a day later takes that record: the file may be gone with it.
    if (Number(unpublished.numDeletedRows) === 0) {
      throw new ApiError('unprocessable', 'the upload took too long to complete: send the file again', { stopWithError: false });
    }
    const giveUp = async (): Promise<PublishOutcome> => {
      orphaned.push(file.storageKey);
      await recordFileDeletions(trx, orphaned);
      return 'already-completed';
    };
    if (pendingUploadId !== undefined) {
      const gone = await trx.deleteFrom('uploads').where('id', '=', pendingUploadId).executeTakeFirst();
      if (Number(gone.numDeletedRows) !== 1) return giveUp();
    } else {
      const pending = await trx.selectFrom('uploads').select(['id', 'storage_key']).where('media_id', '=', mediaId).execute();
      if (pending.length > 0) {
        await trx.deleteFrom('uploads').where('media_id', '=', mediaId).execute();
        orphaned.push(...pending.map((p) => p.storage_key));
      }
    }
    const current = await trx.selectFrom('medias').select(['storage_key', 'shot_at']).where('id', '=', mediaId).executeTakeFirst();
    if (!current) return giveUp();
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
    await recordFileDeletions(trx, orphaned);
    return 'published';
  });
  // A file left behind here is garbage, not a failure of the upload.
  await removeRecordedFiles(services, orphaned);
  return outcome;
}
