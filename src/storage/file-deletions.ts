// Stored files that must go (table file_deletions, migration 005). A path that
// drops the last reference to a file records it IN THE SAME TRANSACTION, and
// after the commit removes the file and the record at once (best effort). What
// a failure or a crash leaves is drained by the cleanup sweep and at start, so
// no file outlives its row by more than a sweep.
//
// A file being stored for a media (promoted by step 3, or a direct upload) is
// recorded too, due a day later, before it is written: publishing the media
// takes the record off, and a crash in between leaves nothing forever.
import type { Services } from '../http/context.js';
import { nowIso, type Db } from '../store/db.js';

/** Rows per INSERT, keys per IN list: well under every database's parameter limit. */
const CHUNK = 500;

/** How long a file stored for a media may wait for the media to be published. */
export const UNPUBLISHED_FILE_GRACE_MS = 24 * 3600 * 1000;

type FileServices = Pick<Services, 'storage' | 'db' | 'log'>;

/** Records files to remove (call inside the transaction that drops their references). */
export async function recordFileDeletions(trx: Db, keys: readonly (string | null | undefined)[], dueAt?: Date): Promise<void> {
  const wanted = [...new Set(keys.filter((k): k is string => typeof k === 'string' && k !== ''))];
  if (wanted.length === 0) return;
  const now = nowIso();
  const due = dueAt ? dueAt.toISOString() : now;
  for (let i = 0; i < wanted.length; i += CHUNK) {
    await trx
      .insertInto('file_deletions')
      .values(wanted.slice(i, i + CHUNK).map((storage_key) => ({ storage_key, created_at: now, due_at: due })))
      .execute();
  }
}

/** Records a file about to be stored for a media; publishing it takes the record off (see above). */
export function recordUnpublishedFile(db: Db, key: string): Promise<void> {
  return recordFileDeletions(db, [key], new Date(Date.now() + UNPUBLISHED_FILE_GRACE_MS));
}

/** Deletes each key's file; the keys whose file is gone now. */
async function deleteEach(services: FileServices, keys: readonly string[]): Promise<{ gone: string[]; failed: number; error?: unknown }> {
  const { storage } = services;
  const gone: string[] = [];
  let failed = 0;
  let error: unknown;
  for (const key of keys) {
    try {
      await storage.delete([key]);
      gone.push(key);
    } catch (err) {
      failed++;
      error ??= err;
    }
  }
  return { gone, failed, error };
}

/**
 * After the commit: removes the files and their records. Never throws; what
 * fails stays recorded for the sweep.
 */
export async function removeRecordedFiles(services: FileServices, keys: readonly (string | null | undefined)[]): Promise<void> {
  const wanted = [...new Set(keys.filter((k): k is string => typeof k === 'string' && k !== ''))];
  if (wanted.length === 0) return;
  try {
    const { gone, failed, error } = await deleteEach(services, wanted);
    for (let i = 0; i < gone.length; i += CHUNK) {
      await services.db.deleteFrom('file_deletions').where('storage_key', 'in', gone.slice(i, i + CHUNK)).execute();
    }
    if (failed > 0) services.log.warn({ err: error, files: failed }, 'stored files not removed yet; the cleanup sweep retries');
  } catch (err) {
    services.log.warn({ err, files: wanted.length }, 'stored files not removed yet; the cleanup sweep retries');
  }
}

/** Removes every due recorded file, page by page; returns how many went. Failures stay for the next sweep. */
export async function drainFileDeletions(services: FileServices, now = new Date()): Promise<number> {
  const { db } = services;
  const due = now.toISOString();
  let removed = 0;
  let failedTotal = 0;
  let firstError: unknown;
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom('file_deletions')
      .select(['id', 'storage_key'])
      .where('due_at', '<=', due)
      .where('id', '>', after)
      .orderBy('id')
      .limit(CHUNK)
      .execute();
    if (rows.length === 0) break;
    after = rows[rows.length - 1].id;
    const { gone, failed, error } = await deleteEach(services, [...new Set(rows.map((r) => r.storage_key))]);
    const goneSet = new Set(gone);
    const done = rows.filter((r) => goneSet.has(r.storage_key)).map((r) => r.id);
    if (done.length > 0) await db.deleteFrom('file_deletions').where('id', 'in', done).execute();
    removed += gone.length;
    failedTotal += failed;
    firstError ??= error;
    if (rows.length < CHUNK) break;
  }
  if (failedTotal > 0) services.log.warn({ err: firstError, files: failedTotal }, 'recorded file deletions failed; retried at the next sweep');
  return removed;
}
