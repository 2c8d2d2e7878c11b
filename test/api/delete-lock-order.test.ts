// Deletes beside publications on PostgreSQL: the page stamps (migrations 010, 019, 020) are row
// locks held until the commit, and every writer must take them in one order: a media's row, then
// its owner's media_stamps row, then a gallery's or collection's row. A publication takes the
// owner's row first (MediaRepository.create inserts the media, whose trigger writes the stamp),
// then locks the gallery (MembershipRepository.publish) or collection (applyCollections). A delete
// that locked a gallery or collection first (the DELETE itself, or a cover cleared before its
// media goes) and then wrote the owner's stamp through its cascades took them the other way
// round: each transaction held what the other waited for, and PostgreSQL failed one with
// "deadlock detected" (a 500 for the delete, or a failed upload).
//
// Each case runs the publication's statements in a transaction of the test's own up to its first
// lock, sends the delete over HTTP, waits until the delete waits on a lock, then lets the
// publication go on: both must succeed. SQLite has one writer: nothing to order.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso } from '../../src/store/db.js';
import { PG_URL } from '../support/service.js';
import { createCollection, createGallery, insertMedias, mediaId, startMediaWorld, type MediaWorld } from '../support/media.js';

describe.skipIf(!PG_URL)('[postgres] a delete beside a publication takes the stamps in the publication\'s order', () => {
  let w: MediaWorld;
  beforeAll(async () => {
    w = await startMediaWorld('postgres');
  });
  afterAll(() => w?.svc.close());

  const idOf = async (table: 'galleries' | 'media_groups', uuid: string) => (await w.svc.db.selectFrom(table).select('id').where('uuid', '=', uuid).executeTakeFirstOrThrow()).id;
  const exists = async (table: 'galleries' | 'media_groups' | 'medias', uuid: string) => (await w.svc.db.selectFrom(table).select('id').where('uuid', '=', uuid).executeTakeFirst()) !== undefined;

  /** A gallery under the root holding two of the user's medias; `cover`: the first is its cover. */
  async function galleryWithMedias(cover: boolean): Promise<{ gallery: string; medias: string[] }> {
    const gallery = await createGallery(w, `G ${randomUUID().slice(0, 8)}`);
    const medias = await insertMedias(w.svc.db, w.user, 2);
    const gid = await idOf('galleries', gallery);
    for (const [i, m] of medias.entries()) {
      await w.svc.db.insertInto('media_galleries').values({ gallery_id: gid, media_id: await mediaId(w.svc.db, m), position: i + 1, published_at: nowIso() }).execute();
    }
    if (cover) await w.client.updateGallery(w.urlname, gallery, { cover_media: medias[0] });
    return { gallery, medias };
  }

  /**
   * A media created and published into the gallery or collection `into` (as POST /medias.xml with
   * galleries[] or collections[] does: the media's INSERT, then the target's lock, then the
   * membership), held after its INSERT until the delete `del` waits on a lock. Both must succeed.
   * Returns the new media's UUID.
   */
  async function besidePublication(into: { gallery: number } | { collection: number }, del: () => Promise<unknown>): Promise<string> {
    const d = w.svc.db;
    const artist = await d.selectFrom('artists').select('id').where('uuid', '=', w.user.defaultArtistUuid).executeTakeFirstOrThrow();
    const uuid = randomUUID();
    const now = nowIso();
    let inserted!: () => void;
    const created = new Promise<void>((r) => (inserted = r));
    let proceed!: () => void;
    const goOn = new Promise<void>((r) => (proceed = r));
    const publication = d.transaction().execute(async (trx) => {
      const id = (
        await trx
          .insertInto('medias')
          .values({ uuid, owner_id: w.user.id, artist_id: artist.id, status: 'pending', file_name: 'new.jpg', created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
      inserted();
      await goOn;
      // Joined to the target, as the service's statements are: one deleted meanwhile is skipped.
      if ('gallery' in into) {
        await sql`SELECT id FROM galleries WHERE id = ${into.gallery} FOR UPDATE`.execute(trx);
        await sql`INSERT INTO media_galleries (gallery_id, media_id, position, published_at) SELECT id, ${id}, 100, ${now} FROM galleries WHERE id = ${into.gallery}`.execute(trx);
      } else {
        await sql`SELECT id FROM media_groups WHERE id = ${into.collection} FOR UPDATE`.execute(trx);
        await sql`INSERT INTO media_group_medias (group_id, media_id, position) SELECT id, ${id}, 100 FROM media_groups WHERE id = ${into.collection}`.execute(trx);
      }
    });
    await created;
    const deleting = del();
    // The delete waits on a lock (the owner's stamp, held by the publication) before the publication goes on.
    await expect
      .poll(async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(d)).rows[0].n), { timeout: 10_000 })
      .toBe(1);
    proceed();
    const [p, x] = await Promise.allSettled([publication, deleting]);
    const why = (r: PromiseSettledResult<unknown>) => (r.status === 'rejected' ? String(r.reason) : '');
    expect({ publication: p.status, delete: x.status, reasons: [why(p), why(x)] }).toEqual({ publication: 'fulfilled', delete: 'fulfilled', reasons: ['', ''] });
    return uuid;
  }

  it('deletes a gallery (keeping its medias) while a media is created and published into it', async () => {
    const { gallery, medias } = await galleryWithMedias(false);
    const created = await besidePublication({ gallery: await idOf('galleries', gallery) }, () => w.client.deleteGallery(w.urlname, gallery));
    expect(await exists('galleries', gallery)).toBe(false);
    for (const m of [...medias, created]) expect(await exists('medias', m)).toBe(true);
  });

  it('deletes a gallery with its medias, one of them its cover, while a media is created and published into it', async () => {
    const { gallery, medias } = await galleryWithMedias(true);
    const created = await besidePublication({ gallery: await idOf('galleries', gallery) }, () => w.client.deleteGallery(w.urlname, gallery, { delete_medias: 1, medias_count: 2 }));
    expect(await exists('galleries', gallery)).toBe(false);
    for (const m of medias) expect(await exists('medias', m)).toBe(false);
    // Published after the count was taken and before the gallery went (not live: never counted).
    expect(await exists('medias', created)).toBe(true);
  });

  it("deletes a gallery's cover media while a media is created and published into the gallery", async () => {
    const { gallery, medias } = await galleryWithMedias(true);
    const created = await besidePublication({ gallery: await idOf('galleries', gallery) }, () => w.client.request('DELETE', `/medias/${medias[0]}.xml`));
    expect(await exists('medias', medias[0])).toBe(false);
    const left = await w.svc.db
      .selectFrom('media_galleries as mg')
      .innerJoin('medias as m', 'm.id', 'mg.media_id')
      .select('m.uuid')
      .where('mg.gallery_id', '=', await idOf('galleries', gallery))
      .orderBy('mg.position')
      .execute();
    expect(left.map((r) => r.uuid)).toEqual([medias[1], created]);
  });

  it('deletes a collection (keeping its medias) while a media is created and added to it', async () => {
    const collection = await createCollection(w, `C ${randomUUID().slice(0, 8)}`);
    const cid = await idOf('media_groups', collection);
    const medias = await insertMedias(w.svc.db, w.user, 2);
    for (const [i, m] of medias.entries()) await w.svc.db.insertInto('media_group_medias').values({ group_id: cid, media_id: await mediaId(w.svc.db, m), position: i + 1 }).execute();
    const created = await besidePublication({ collection: cid }, () => w.client.request('DELETE', `/medias_groups/${collection}.xml`));
    expect(await exists('media_groups', collection)).toBe(false);
    for (const m of [...medias, created]) expect(await exists('medias', m)).toBe(true);
  });
});
