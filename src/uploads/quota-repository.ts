// What an account's storage quota counts, in one statement of primary-key and index-range reads:
// the running total of its stored originals (migration 021's triggers, on its media_stamps row),
// the declared sizes of its open three-step and resumable uploads, and the operator's quota for
// it. What counts and why it is cheap: docs/uploads.md, "Storage quota (an API extension)".
import { sql } from 'kysely';
import type { Db } from '../database/db.js';
import type { Dialect } from '../database/migration-helpers.js';

export interface QuotaUsage {
  /** Stored originals plus open uploads' declared sizes, in bytes. */
  used: number;
  /** The operator's quota for this account; null: the service's default. */
  accountQuota: number | null;
}

export class QuotaRepository {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Runs `write` in one transaction that holds the account's quota turn (PostgreSQL: its users row,
   * FOR NO KEY UPDATE, which foreign keys do not wait for; SQLite has one writer at a time): two
   * uploads checked at once are checked one after the other, each seeing what the other recorded.
   */
  inQuotaTurn<T>(ownerId: number, write: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      if (this.dialect === 'postgres') await sql`SELECT id FROM users WHERE id = ${ownerId} FOR NO KEY UPDATE`.execute(trx);
      return write(trx);
    });
  }

  /**
   * The account's usage at `now`. `media`: the media an upload is for, whose pending upload (a
   * step 1 again replaces it) and stored original (the new file replaces it) are not counted.
   */
  async usage(ownerId: number, now: string, media?: number, db: Db = this.db): Promise<QuotaUsage> {
    const m = media ?? 0;
    const r = await sql<{ stored: unknown; uploads: unknown; resumable: unknown; replaced: unknown; quota: unknown }>`SELECT
        (SELECT stored_bytes FROM media_stamps WHERE owner_id = ${ownerId}) AS stored,
        (SELECT SUM(declared_size) FROM uploads WHERE owner_id = ${ownerId} AND expires_at > ${now} AND media_id <> ${m}) AS uploads,
        (SELECT SUM(file_size) FROM resumable_uploads WHERE owner_id = ${ownerId} AND state IN ('receiving', 'processing') AND expires_at > ${now}) AS resumable,
        (SELECT file_size FROM medias WHERE id = ${m} AND owner_id = ${ownerId} AND storage_key IS NOT NULL) AS replaced,
        (SELECT quota_bytes FROM users WHERE id = ${ownerId}) AS quota`.execute(db);
    const row = r.rows[0];
    const n = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
    return { used: n(row?.stored) + n(row?.uploads) + n(row?.resumable) - n(row?.replaced), accountQuota: row?.quota === null || row?.quota === undefined ? null : Number(row.quota) };
  }
}
