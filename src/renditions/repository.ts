// All SQL of renditions (docs/renditions.md): resetting a media's renditions
// when its file changes (in the upload's transaction), what the job needs to
// make them, recording them (in the job's chunk transaction, only if the
// media still holds the file they were made from), the renditions of a page
// of medias. What /files may serve is the website's (src/site/access.ts).
import { nowIso, type Db } from '../database/db.js';
import type { RenditionRow as StoredRendition, RenditionsTable } from '../database/schema.js';

/** A rendition as the media record reads it. */
export type RenditionRow = Omit<StoredRendition, 'id' | 'created_at'>;

export type NewRendition = Omit<RenditionsTable, 'id' | 'media_id' | 'created_at' | 'watermarked'> & { watermarked: number };

/** What the job reads about a media to make its renditions. */
export interface RenditionSource {
  id: number;
  uuid: string;
  status: string;
  storageKey: string | null;
  /** pending until the ladder is recorded. */
  renditionsState: string;
  mimeType: string | null;
  copyright: string | null;
  author: string | null;
  /** The media's watermark, else its library's default one. */
  watermark?: { text: string | null; storageKey: string | null; strength: number; position: string; tile: boolean };
}

const RENDITION_COLUMNS = ['media_id', 'name', 'width', 'height', 'mime_type', 'storage_key', 'bytes', 'watermarked'] as const;

export class RenditionsRepository {
  constructor(private readonly db: Db) {}

  /**
   * In the transaction that gives a media a new file: its renditions' rows go
   * (their keys are returned, to be recorded for deletion in that same
   * transaction) and the media waits for new ones.
   */
  async reset(trx: Db, mediaId: number): Promise<string[]> {
    const old = await trx.selectFrom('renditions').select('storage_key').where('media_id', '=', mediaId).execute();
    if (old.length) await trx.deleteFrom('renditions').where('media_id', '=', mediaId).execute();
    await trx.updateTable('medias').set({ renditions_state: 'pending', renditions_error: null }).where('id', '=', mediaId).execute();
    return old.map((r) => r.storage_key);
  }

  /** Keys of the renditions of `mediaIds`: read in the transaction that deletes the medias (the rows go with them). */
  async keysOf(trx: Db, mediaIds: readonly number[]): Promise<string[]> {
    if (mediaIds.length === 0) return [];
    const rows = await trx.selectFrom('renditions').select('storage_key').where('media_id', 'in', mediaIds).execute();
    return rows.map((r) => r.storage_key);
  }

  async source(mediaId: number): Promise<RenditionSource | undefined> {
    const m = await this.db
      .selectFrom('medias')
      .select(['id', 'uuid', 'status', 'storage_key', 'renditions_state', 'mime_type', 'copyright', 'author', 'watermark_id', 'artist_id'])
      .where('id', '=', mediaId)
      .executeTakeFirst();
    if (!m) return undefined;
    // The media's own watermark, else the default of its library (the lowest id if several claim it).
    let q = this.db.selectFrom('watermarks').select(['text', 'storage_key', 'strength', 'position', 'tile']);
    q = m.watermark_id !== null ? q.where('id', '=', m.watermark_id) : q.where('artist_id', '=', m.artist_id).where('is_default', '=', 1).orderBy('id').limit(1);
    const w = await q.executeTakeFirst();
    return {
      id: m.id,
      uuid: m.uuid,
      status: m.status,
      storageKey: m.storage_key,
      renditionsState: m.renditions_state,
      mimeType: m.mime_type,
      copyright: m.copyright,
      author: m.author,
      watermark: w ? { text: w.text, storageKey: w.storage_key, strength: w.strength, position: w.position, tile: w.tile === 1 } : undefined,
    };
  }

  /**
   * In the job's chunk transaction: the renditions become the media's, and
   * its state ready, only if it still holds the file they were made from
   * (a replace or a delete meanwhile makes them garbage: false).
   */
  async commit(trx: Db, mediaId: number, fromStorageKey: string, rows: readonly NewRendition[]): Promise<boolean> {
    if (!(await this.stillHolds(trx, mediaId, fromStorageKey))) return false;
    const now = nowIso();
    if (rows.length) await trx.insertInto('renditions').values(rows.map((r) => ({ ...r, media_id: mediaId, created_at: now }))).execute();
    await trx.updateTable('medias').set({ renditions_state: 'ready', renditions_error: null }).where('id', '=', mediaId).execute();
    return true;
  }

  /**
   * In the job's chunk transaction: AVIF alternates join a ladder recorded before them, only if the
   * media still holds the file they were made from and its ladder is there (false: garbage).
   */
  async addAlternates(trx: Db, mediaId: number, fromStorageKey: string, rows: readonly NewRendition[]): Promise<boolean> {
    const m = await trx.selectFrom('medias').select('storage_key').where('id', '=', mediaId).where('renditions_state', '=', 'ready').executeTakeFirst();
    if (m?.storage_key !== fromStorageKey) return false;
    const now = nowIso();
    if (rows.length) await trx.insertInto('renditions').values(rows.map((r) => ({ ...r, media_id: mediaId, created_at: now }))).execute();
    return true;
  }

  /** `fn` in a transaction of its own (the ladder recorded before its alternates are made). */
  inTransaction<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /** The media's renditions failed (its file cannot be decoded): a short reason, no paths. */
  async fail(trx: Db, mediaId: number, fromStorageKey: string, reason: string): Promise<void> {
    if (!(await this.stillHolds(trx, mediaId, fromStorageKey))) return;
    await trx.updateTable('medias').set({ renditions_state: 'failed', renditions_error: reason.slice(0, 200) }).where('id', '=', mediaId).execute();
  }

  /** As fail, in a transaction of its own (a job given up). */
  failNow(mediaId: number, fromStorageKey: string, reason: string): Promise<void> {
    return this.db.transaction().execute((trx) => this.fail(trx, mediaId, fromStorageKey, reason));
  }

  private async stillHolds(trx: Db, mediaId: number, storageKey: string): Promise<boolean> {
    // Locks the media row on PostgreSQL; SQLite has one writer anyway.
    const m = await trx.selectFrom('medias').select('storage_key').where('id', '=', mediaId).where('renditions_state', '=', 'pending').executeTakeFirst();
    return m?.storage_key === storageKey;
  }

  /** The renditions of a page of medias, in one query; by media id, smallest first. */
  async forMedias(mediaIds: readonly number[]): Promise<Map<number, RenditionRow[]>> {
    const out = new Map<number, RenditionRow[]>();
    if (mediaIds.length === 0) return out;
    const rows = await this.db.selectFrom('renditions').select(RENDITION_COLUMNS).where('media_id', 'in', mediaIds).orderBy('media_id').orderBy('width').orderBy('mime_type').execute();
    for (const r of rows) {
      const list = out.get(r.media_id);
      if (list) list.push(r);
      else out.set(r.media_id, [r]);
    }
    return out;
  }
}
