// The download ledger (migration 033): which photos each client downloaded from a gallery, which a
// gallery's download limit is enforced against. Synchronous and exact, unlike the activity record
// (written in the background, deduplicated, dropped under load, deleted after its retention).
import type { Db } from '../../database/db.js';
import { nowIso } from '../../database/db.js';

export type Taken = { ok: true; count: number; fresh: boolean } | { ok: false; count: number };

export class DownloadsRepository {
  constructor(private readonly db: Db) {}

  /**
   * One photo downloaded by a client, within `limit`: a photo already in their ledger costs
   * nothing; a new one is counted when there is room. The client's tally row is locked first (an
   * update), so simultaneous downloads are counted one after another and never pass the limit.
   */
  take(galleryId: number, clientKey: string, mediaId: number, limit: number): Promise<Taken> {
    return this.db.transaction().execute(async (trx) => {
      const now = nowIso();
      await trx
        .insertInto('download_tallies')
        .values({ gallery_id: galleryId, client_key: clientKey, count: 0, updated_at: now })
        .onConflict((oc) => oc.columns(['gallery_id', 'client_key']).doNothing())
        .execute();
      const locked = await trx
        .updateTable('download_tallies')
        .set({ updated_at: now })
        .where('gallery_id', '=', galleryId)
        .where('client_key', '=', clientKey)
        .returning('count')
        .executeTakeFirstOrThrow();
      const had = await trx
        .selectFrom('download_ledger')
        .select('media_id')
        .where('gallery_id', '=', galleryId)
        .where('client_key', '=', clientKey)
        .where('media_id', '=', mediaId)
        .executeTakeFirst();
      if (had) return { ok: true, count: locked.count, fresh: false };
      if (locked.count >= limit) return { ok: false, count: locked.count };
      await trx.insertInto('download_ledger').values({ gallery_id: galleryId, client_key: clientKey, media_id: mediaId, at: now }).execute();
      await trx.updateTable('download_tallies').set({ count: locked.count + 1 }).where('gallery_id', '=', galleryId).where('client_key', '=', clientKey).execute();
      return { ok: true, count: locked.count + 1, fresh: true };
    });
  }

  /** How many photos the client has downloaded from the gallery. */
  async used(galleryId: number, clientKey: string): Promise<number> {
    const row = await this.db.selectFrom('download_tallies').select('count').where('gallery_id', '=', galleryId).where('client_key', '=', clientKey).executeTakeFirst();
    return row?.count ?? 0;
  }

  /** Whether the photo is in the client's ledger already (a download again costs nothing). */
  async has(galleryId: number, clientKey: string, mediaId: number): Promise<boolean> {
    const row = await this.db.selectFrom('download_ledger').select('media_id').where('gallery_id', '=', galleryId).where('client_key', '=', clientKey).where('media_id', '=', mediaId).executeTakeFirst();
    return row !== undefined;
  }

  /** A client's data on request (`DELETE /activity.xml?client=`): their ledger in the owner's galleries; how many photos it named. */
  async forgetClient(ownerId: number, email: string): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const galleries = trx.selectFrom('galleries as g').innerJoin('websites as w', 'w.id', 'g.website_id').select('g.id').where('w.owner_id', '=', ownerId);
      const key = `email:${email}`;
      const r = await trx.deleteFrom('download_ledger').where('client_key', '=', key).where('gallery_id', 'in', galleries).executeTakeFirst();
      await trx.deleteFrom('download_tallies').where('client_key', '=', key).where('gallery_id', 'in', galleries).execute();
      return Number(r.numDeletedRows);
    });
  }
}
