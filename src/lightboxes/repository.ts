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
}
