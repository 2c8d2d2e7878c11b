// SQL of lightboxes: a user's named selections of their own medias.
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { nowIso } from '../store/db.js';

export class LightboxesRepository {
  constructor(private readonly db: Db) {}

  /** A lightbox holding `mediaIds` in that order, in one transaction; its UUID. */
  create(ownerId: number, name: string, mediaIds: readonly number[]): Promise<string> {
    const uuid = randomUUID();
    return this.db.transaction().execute(async (trx) => {
      const lb = await trx.insertInto('lightboxes').values({ uuid, owner_id: ownerId, name, created_at: nowIso() }).returning('id').executeTakeFirstOrThrow();
      if (mediaIds.length) {
        await trx
          .insertInto('lightbox_medias')
          .values(mediaIds.map((mediaId, i) => ({ lightbox_id: lb.id, media_id: mediaId, position: i + 1 })))
          .execute();
      }
      return uuid;
    });
  }

  /** A page of the owner's lightboxes, newest first, each with how many medias it holds (one grouped count, not one per row). */
  async listOwned(ownerId: number, limit: number, offset: number): Promise<Array<{ id: number; uuid: string; name: string; created_at: string; medias: number }>> {
    const rows = await this.db
      .selectFrom('lightboxes')
      .leftJoin('lightbox_medias', 'lightbox_medias.lightbox_id', 'lightboxes.id')
      .select(['lightboxes.id', 'lightboxes.uuid', 'lightboxes.name', 'lightboxes.created_at', (eb) => eb.fn.count<number>('lightbox_medias.media_id').as('medias')])
      .where('lightboxes.owner_id', '=', ownerId)
      .groupBy(['lightboxes.id', 'lightboxes.uuid', 'lightboxes.name', 'lightboxes.created_at'])
      .orderBy('lightboxes.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map((r) => ({ ...r, medias: Number(r.medias) }));
  }

  async countOwned(ownerId: number): Promise<number> {
    const r = await this.db.selectFrom('lightboxes').select((eb) => eb.fn.countAll<number>().as('n')).where('owner_id', '=', ownerId).executeTakeFirstOrThrow();
    return Number(r.n);
  }
}
