// What an account's storage quota counts, in one statement of primary-key and index-range reads:
// the running total of its stored originals (migration 021's triggers, on its media_stamps row),
// the declared sizes of its open three-step and resumable uploads, and the operator's quota for
// it. What counts and why it is cheap: docs/uploads.md, "Storage quota (an API extension)".
import { sql } from 'kysely';
import type { Db } from '../database/db.js';

export interface QuotaUsage {
  /** Stored originals plus open uploads' declared sizes, in bytes. */
  used: number;
  /** The operator's quota for this account; null: the service's default. */
  accountQuota: number | null;
}

export class QuotaRepository {
  constructor(private readonly db: Db) {}

  /**
   * The account's usage at `now`. `media`: the media an upload is for, whose pending upload (a
   * step 1 again replaces it) and stored original (the new file replaces it) are not counted.
   */
  async usage(ownerId: number, now: string, media?: number): Promise<QuotaUsage> {
    const m = media ?? 0;
    const r = await sql<{ stored: unknown; uploads: unknown; resumable: unknown; replaced: unknown; quota: unknown }>`SELECT
        (SELECT stored_bytes FROM media_stamps WHERE owner_id = ${ownerId}) AS stored,
        (SELECT SUM(declared_size) FROM uploads WHERE owner_id = ${ownerId} AND expires_at > ${now} AND media_id <> ${m}) AS uploads,
        (SELECT SUM(file_size) FROM resumable_uploads WHERE owner_id = ${ownerId} AND state IN ('receiving', 'processing') AND expires_at > ${now}) AS resumable,
        (SELECT file_size FROM medias WHERE id = ${m} AND owner_id = ${ownerId} AND storage_key IS NOT NULL) AS replaced,
        (SELECT quota_bytes FROM users WHERE id = ${ownerId}) AS quota`.execute(this.db);
    const row = r.rows[0];
    const n = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
    return { used: n(row?.stored) + n(row?.uploads) + n(row?.resumable) - n(row?.replaced), accountQuota: row?.quota === null || row?.quota === undefined ? null : Number(row.quota) };
  }
}
