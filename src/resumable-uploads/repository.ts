// The `resumable_uploads` table (migration 017): the studio's tus uploads, one row each from
// creation until a while after their end. Its state is what makes an upload's end happen once:
// `claim` moves one row from receiving to processing, and only the caller it answered true
// goes on; the others read the outcome it stored (`settle`).
import type { Db } from '../database/db.js';
import type { ResumableUploadRow } from '../database/schema.js';

export type NewResumableUpload = Omit<ResumableUploadRow, 'state' | 'media_uuid' | 'reason' | 'claimed_at'>;
export type FinalState = 'done' | 'duplicate' | 'refused';

/** Rows per sweep batch. */
const SWEEP_BATCH = 200;

export class ResumableUploadsRepository {
  constructor(private readonly db: Db) {}

  /** Records a new upload (in `db`: the quota's turn, StorageQuota.holding). */
  async insert(row: NewResumableUpload, db: Db = this.db): Promise<void> {
    await db.insertInto('resumable_uploads').values({ ...row, state: 'receiving', media_uuid: null, reason: null, claimed_at: null }).execute();
  }

  get(id: string): Promise<ResumableUploadRow | undefined> {
    return this.db.selectFrom('resumable_uploads').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The owner's uploads not ended yet and not expired at `now`. */
  async countOpen(ownerId: number, now: string): Promise<number> {
    const row = await this.db
      .selectFrom('resumable_uploads')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('owner_id', '=', ownerId)
      .where('state', 'in', ['receiving', 'processing'])
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Receiving → processing (or a processing claim older than `staleBefore`, whose process died): true for one caller only. */
  async claim(id: string, now: string, staleBefore: string): Promise<boolean> {
    const r = await this.db
      .updateTable('resumable_uploads')
      .set({ state: 'processing', claimed_at: now })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('state', '=', 'receiving'), eb.and([eb('state', '=', 'processing'), eb('claimed_at', '<', staleBefore)])]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Processing → receiving: the end could not be carried out now (not all bytes there, a failure); it may be tried again. */
  async release(id: string): Promise<void> {
    await this.db.updateTable('resumable_uploads').set({ state: 'receiving', claimed_at: null }).where('id', '=', id).where('state', '=', 'processing').execute();
  }

  /** Processing → its outcome, kept until the row expires so that a repeated finish answers the same. */
  async settle(id: string, state: FinalState, mediaUuid: string | null, reason: string | null): Promise<void> {
    await this.db.updateTable('resumable_uploads').set({ state, media_uuid: mediaUuid, reason }).where('id', '=', id).where('state', '=', 'processing').execute();
  }

  /** Up to a batch of rows expired at `now`, whatever their state: the sweep removes them (and an unfinished one's bytes). */
  expired(now: string): Promise<Array<Pick<ResumableUploadRow, 'id' | 'state'>>> {
    return this.db.selectFrom('resumable_uploads').select(['id', 'state']).where('expires_at', '<=', now).orderBy('expires_at').limit(SWEEP_BATCH).execute();
  }

  /** Up to a batch of uploads still receiving, created at `createdBefore` or earlier, not expired at `now`, by id after `after`. */
  idle(createdBefore: string, now: string, after: string): Promise<Array<Pick<ResumableUploadRow, 'id'>>> {
    return this.db
      .selectFrom('resumable_uploads')
      .select('id')
      .where('state', '=', 'receiving')
      .where('created_at', '<=', createdBefore)
      .where('expires_at', '>', now)
      .where('id', '>', after)
      .orderBy('id')
      .limit(SWEEP_BATCH)
      .execute();
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length) await this.db.deleteFrom('resumable_uploads').where('id', 'in', ids).execute();
  }
}
