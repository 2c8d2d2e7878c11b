// The `uploads` table: one pending upload per media, between step 1 and step 3.
// Its storage key is the incoming key step 2 may write to, and only while the
// row exists: the upload target looks it up before reading a byte. Methods
// taking `tx` run in a transaction of their caller (the media repository's,
// when a media goes live or is deleted).
import type { DeletionsRepository } from '../file-storage/deletions-repository.js';
import type { Db } from '../database/db.js';
import type { PendingUploadRow } from '../database/schema.js';

export type NewPendingUpload = Omit<PendingUploadRow, 'id'>;

export interface ExpiredUpload {
  id: number;
  media_id: number;
  storage_key: string;
}

/** Ids and keys per IN list. */
const CHUNK = 500;

export class UploadsRepository {
  constructor(
    private readonly db: Db,
    private readonly deletions: DeletionsRepository,
  ) {}

  /**
   * Records a pending upload, replacing the media's previous one, whose file is
   * recorded for deletion in the same transaction; returns that file's key.
   */
  replace(row: NewPendingUpload, trx?: Db): Promise<string | undefined> {
    if (!trx) return this.db.transaction().execute((t) => this.replace(row, t));
    return (async () => {
      const previous = await trx.selectFrom('uploads').select(['id', 'storage_key']).where('media_id', '=', row.media_id).executeTakeFirst();
      if (previous) {
        await trx.deleteFrom('uploads').where('id', '=', previous.id).execute();
        await this.deletions.record(trx, [previous.storage_key]);
      }
      await trx.insertInto('uploads').values(row).execute();
      return previous?.storage_key;
    })();
  }

  find(mediaId: number): Promise<PendingUploadRow | undefined> {
    return this.db.selectFrom('uploads').selectAll().where('media_id', '=', mediaId).executeTakeFirst();
  }

  /** Whether `key` is the incoming key of an upload still pending at `now`. */
  async isPending(key: string, now: string): Promise<boolean> {
    const row = await this.db.selectFrom('uploads').select('id').where('storage_key', '=', key).where('expires_at', '>', now).executeTakeFirst();
    return row !== undefined;
  }

  /** Ends one pending upload; false when it was gone already (a concurrent step 3 took it). */
  async end(tx: Db, id: number): Promise<boolean> {
    const gone = await tx.deleteFrom('uploads').where('id', '=', id).executeTakeFirst();
    return Number(gone.numDeletedRows) === 1;
  }

  /** Ends the pending uploads of `mediaIds` (step 2 is refused from now on); returns their incoming keys. */
  async endOfMedias(tx: Db, mediaIds: readonly number[]): Promise<string[]> {
    const keys: string[] = [];
    for (let i = 0; i < mediaIds.length; i += CHUNK) {
      const ids = mediaIds.slice(i, i + CHUNK);
      const pending = await tx.selectFrom('uploads').select('storage_key').where('media_id', 'in', ids).execute();
      if (pending.length === 0) continue;
      await tx.deleteFrom('uploads').where('media_id', 'in', ids).execute();
      keys.push(...pending.map((p) => p.storage_key));
    }
    return keys;
  }

  /** Uploads whose step 3 never came, oldest first. */
  expired(now: string, limit: number): Promise<ExpiredUpload[]> {
    return this.db.selectFrom('uploads').select(['id', 'media_id', 'storage_key']).where('expires_at', '<=', now).orderBy('id').limit(limit).execute();
  }

  /** Up to `limit` uploads created at `createdBefore` or earlier and not expired at `now`, by id after `after`. */
  idle(createdBefore: string, now: string, after: number, limit: number): Promise<Array<{ id: number; storage_key: string }>> {
    return this.db
      .selectFrom('uploads')
      .select(['id', 'storage_key'])
      .where('created_at', '<=', createdBefore)
      .where('expires_at', '>', now)
      .where('id', '>', after)
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /** Expires the uploads `ids` at `now`: the sweep of abandoned uploads takes them (src/media/file-life.ts). */
  async expireAt(ids: readonly number[], now: string): Promise<void> {
    if (ids.length > 0) await this.db.updateTable('uploads').set({ expires_at: now }).where('id', 'in', ids).where('expires_at', '>', now).execute();
  }

  async endMany(tx: Db, ids: readonly number[]): Promise<void> {
    if (ids.length > 0) await tx.deleteFrom('uploads').where('id', 'in', ids).execute();
  }

  /** The keys among `keys` that a pending upload waits for. */
  async pendingKeys(keys: readonly string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await this.db.selectFrom('uploads').select('storage_key').where('storage_key', 'in', keys).execute();
    return new Set(rows.map((r) => r.storage_key));
  }
}
