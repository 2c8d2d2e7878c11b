// Which medias are published in which galleries, and where a newly published
// media goes in a gallery's manual order: the galleries feature owns this;
// the media feature calls it inside the transaction of its change.
import { sql } from 'kysely';
import type { Db } from '../database/db.js';
import type { Dialect } from '../database/migration-helpers.js';
import { lockOwnerStamps } from '../database/page-stamp-lock-order.js';

const idList = (ids: readonly number[]) => sql.join(ids.map((id) => sql`${id}`));

export class MembershipRepository {
  constructor(private readonly dialect: Dialect) {}

  /**
   * Publishes `mediaIds` in each of `galleryIds` (those already there stay
   * where they are). In a `manual-first` gallery the new ones go before every
   * other media, so the latest publication comes first; elsewhere after them.
   * Medias published together keep their id order. Galleries deleted since the
   * request was validated are skipped. Returns the galleries that gained a media.
   */
  async publish(tx: Db, mediaIds: readonly number[], galleryIds: readonly number[], now: string): Promise<number[]> {
    if (mediaIds.length === 0 || galleryIds.length === 0) return [];
    const gained: number[] = [];
    // PostgreSQL: concurrent publications to one gallery wait for each other instead of computing the same positions.
    if (this.dialect === 'postgres') await sql`SELECT id FROM galleries WHERE id IN (${idList(galleryIds)}) ORDER BY id FOR UPDATE`.execute(tx);
    for (const galleryId of galleryIds) {
      // COUNT(*) OVER () is the number of medias actually inserted: window functions see the rows left by WHERE.
      const r = await sql`
        INSERT INTO media_galleries (gallery_id, media_id, position, published_at)
        SELECT g.id, m.id,
          CASE WHEN g.content_order = 'manual-first'
            THEN (SELECT COALESCE(MIN(x.position), 1) FROM media_galleries x WHERE x.gallery_id = g.id) - COUNT(*) OVER () - 1 + ROW_NUMBER() OVER (ORDER BY m.id)
            ELSE (SELECT COALESCE(MAX(x.position), 0) FROM media_galleries x WHERE x.gallery_id = g.id) + ROW_NUMBER() OVER (ORDER BY m.id)
          END,
          CAST(${now} AS text)
        FROM medias m JOIN galleries g ON g.id = ${galleryId}
        WHERE m.id IN (${idList(mediaIds)})
          AND NOT EXISTS (SELECT 1 FROM media_galleries y WHERE y.gallery_id = g.id AND y.media_id = m.id)`.execute(tx);
      if (Number(r.numAffectedRows ?? 0) > 0) gained.push(galleryId);
    }
    return gained;
  }

  /** Takes the medias out of the galleries; returns the galleries that lost one. */
  async unpublish(tx: Db, mediaIds: readonly number[], galleryIds: readonly number[]): Promise<number[]> {
    if (mediaIds.length === 0 || galleryIds.length === 0) return [];
    const losing = await tx.selectFrom('media_galleries').select('gallery_id').distinct().where('media_id', 'in', mediaIds).where('gallery_id', 'in', galleryIds).execute();
    if (losing.length === 0) return [];
    await tx.deleteFrom('media_galleries').where('media_id', 'in', mediaIds).where('gallery_id', 'in', galleryIds).execute();
    return losing.map((r) => r.gallery_id);
  }

  /** The medias end up published in exactly `galleryIds` (spec 2.6: galleries[]); the ones they stay in keep their place. Returns the galleries changed. */
  async setGalleries(tx: Db, mediaIds: readonly number[], galleryIds: readonly number[], now: string): Promise<number[]> {
    if (mediaIds.length === 0) return [];
    let losing = tx.selectFrom('media_galleries').select('gallery_id').distinct().where('media_id', 'in', mediaIds);
    if (galleryIds.length > 0) losing = losing.where('gallery_id', 'not in', galleryIds);
    const lost = (await losing.execute()).map((r) => r.gallery_id);
    if (lost.length > 0) {
      let gone = tx.deleteFrom('media_galleries').where('media_id', 'in', mediaIds);
      if (galleryIds.length > 0) gone = gone.where('gallery_id', 'not in', galleryIds);
      await gone.execute();
    }
    return [...lost, ...(await this.publish(tx, mediaIds, galleryIds, now))];
  }

  /**
   * The galleries that show any of the medias (live ones published there, or any as a cover): those
   * a deletion or a first publication of the medias changes. One statement.
   */
  async galleriesShowing(tx: Db, mediaIds: readonly number[]): Promise<number[]> {
    if (mediaIds.length === 0) return [];
    const r = await sql<{ id: number }>`
      SELECT mg.gallery_id AS id FROM media_galleries mg INNER JOIN medias m ON m.id = mg.media_id WHERE mg.media_id IN (${idList(mediaIds)}) AND m.status = 'live'
      UNION SELECT id FROM galleries WHERE cover_media_id IN (${idList(mediaIds)}) OR public_cover_media_id IN (${idList(mediaIds)})`.execute(tx);
    return r.rows.map((x) => Number(x.id));
  }

  /**
   * Before medias are deleted: gallery covers are plain ids (no foreign key), cleared here; publications go with the medias.
   * Clearing a cover locks its gallery, and the delete then writes the owners' stamps: those are taken first
   * (src/database/page-stamp-lock-order.ts), or a media published into that gallery meanwhile would wait for it holding its
   * owner's stamp, and PostgreSQL would fail one of the two.
   */
  async forgetMedias(tx: Db, mediaIds: readonly number[]): Promise<void> {
    if (mediaIds.length === 0) return;
    await lockOwnerStamps(tx, this.dialect, sql`SELECT owner_id FROM medias WHERE id IN (${idList(mediaIds)})`);
    await tx.updateTable('galleries').set({ cover_media_id: null }).where('cover_media_id', 'in', mediaIds).execute();
    await tx.updateTable('galleries').set({ public_cover_media_id: null }).where('public_cover_media_id', 'in', mediaIds).execute();
  }
}
