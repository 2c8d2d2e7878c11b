// Stored files that must go (table file_deletions; SQL in deletions-repository.ts): recorded in the
// transaction that drops a file's last reference, removed with the record after the commit (best
// effort); what a failure or a crash leaves is drained by the cleanup sweep and at start. A file being
// stored is recorded due a day later until its media goes live (docs/uploads.md, "File deletions").
import type { Logger } from 'pino';
import type { StorageBackend } from './backend.js';
import { storageKeys, type DeletionsRepository } from './deletions-repository.js';

/** How long a file stored for a media may wait for the media to be published. */
export const UNPUBLISHED_FILE_GRACE_MS = 24 * 3600 * 1000;

/** Records per page of a drain. */
const PAGE = 500;

export class FileDeletions {
  constructor(
    private readonly storage: StorageBackend,
    private readonly repo: DeletionsRepository,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  /** Records a file about to be stored for a media; publishing it takes the record off (see above). */
  recordUnpublished(key: string): Promise<void> {
    return this.repo.recordOne(key, new Date(Date.now() + UNPUBLISHED_FILE_GRACE_MS));
  }

  /**
   * After the commit that recorded them: removes the files and their records.
   * Never throws; what fails stays recorded for the sweep.
   */
  async remove(keys: readonly (string | null | undefined)[]): Promise<void> {
    const wanted = storageKeys(keys);
    if (wanted.length === 0) return;
    try {
      const { gone, failed, error } = await this.deleteEach(wanted);
      await this.repo.forget(gone);
      if (failed > 0) this.log.warn({ err: error, files: failed }, 'stored files not removed yet; the cleanup sweep retries');
    } catch (err) {
      this.log.warn({ err, files: wanted.length }, 'stored files not removed yet; the cleanup sweep retries');
    }
  }

  /** Removes every due recorded file, page by page; returns how many went. Failures stay for the next sweep. */
  async drain(now = new Date()): Promise<number> {
    const due = now.toISOString();
    let removed = 0;
    let failedTotal = 0;
    let firstError: unknown;
    let after = 0;
    for (;;) {
      const rows = await this.repo.due(due, after, PAGE);
      if (rows.length === 0) break;
      after = rows[rows.length - 1].id;
      const { gone, failed, error } = await this.deleteEach([...new Set(rows.map((r) => r.storage_key))]);
      const goneSet = new Set(gone);
      await this.repo.forgetIds(rows.filter((r) => goneSet.has(r.storage_key)).map((r) => r.id));
      removed += gone.length;
      failedTotal += failed;
      firstError ??= error;
      if (rows.length < PAGE) break;
    }
    if (failedTotal > 0) this.log.warn({ err: firstError, files: failedTotal }, 'recorded file deletions failed; retried at the next sweep');
    return removed;
  }

  /** Deletes each key's file; the keys whose file is gone now. */
  private async deleteEach(keys: readonly string[]): Promise<{ gone: string[]; failed: number; error?: unknown }> {
    const gone: string[] = [];
    let failed = 0;
    let error: unknown;
    for (const key of keys) {
      try {
        await this.storage.delete([key]);
        gone.push(key);
      } catch (err) {
        failed++;
        error ??= err;
      }
    }
    return { gone, failed, error };
  }
}
