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
import { sql, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso } from '../../src/database/db.js';
import type { Database } from '../../src/database/schema.js';
import { PG_URL, type TestUser } from '../support/service.js';
import { createCollection, createGallery, insertMedias, mediaId, startMediaWorld, type MediaWorld } from '../support/media.js';

type Tx = Transaction<Database>;

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
   * Runs a writer's transaction (of the test's own, the service's statements) up to the end of
   * `first`, sends the delete `del`, waits until the delete waits on a lock, then lets the writer
   * run `rest` and commit. Both must succeed.
   */
  async function interleaved(writer: { first(trx: Tx): Promise<void>; rest(trx: Tx): Promise<void> }, del: () => Promise<unknown>): Promise<void> {
    const d = w.svc.db;
    let held!: () => void;
    const holding = new Promise<void>((r) => (held = r));
    let proceed!: () => void;
    const goOn = new Promise<void>((r) => (proceed = r));
    const writing = d.transaction().execute(async (trx) => {
      await writer.first(trx);
      held();
      await goOn;
      await writer.rest(trx);
    });
    // Both outcomes are read below (allSettled); a failure before then is not an unhandled rejection.
    writing.catch(() => undefined);
    await holding;
    const deleting = del();
    deleting.catch(() => undefined);
    // The delete waits on a lock (one the writer holds) before the writer goes on.
    await expect
      .poll(async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(d)).rows[0].n), { timeout: 10_000 })
      .toBe(1);
    proceed();
    const [a, b] = await Promise.allSettled([writing, deleting]);
    const why = (r: PromiseSettledResult<unknown>) => (r.status === 'rejected' ? String(r.reason) : '');
    expect({ writer: a.status, delete: b.status, reasons: [why(a), why(b)] }).toEqual({ writer: 'fulfilled', delete: 'fulfilled', reasons: ['', ''] });
  }

  /**
   * A media of `owner` created and published into the gallery or collection `into`, as POST
   * /medias.xml with galleries[] or collections[] does: the media's INSERT (the owner's stamp) first,
   * then the target's lock and the membership. Its UUID and the writer for `interleaved`.
   */
  async function publication(into: { gallery: number } | { collection: number }, owner: TestUser = w.user) {
    const artist = await w.svc.db.selectFrom('artists').select('id').where('uuid', '=', owner.defaultArtistUuid).executeTakeFirstOrThrow();
    const uuid = randomUUID();
    const now = nowIso();
    let id = 0;
    return {
      uuid,
      async first(trx: Tx) {
        id = (
          await trx
            .insertInto('medias')
            .values({ uuid, owner_id: owner.id, artist_id: artist.id, status: 'pending', file_name: 'new.jpg', created_at: now, updated_at: now })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id;
      },
      // Joined to the target, as the service's statements are: one deleted meanwhile is skipped.
      async rest(trx: Tx) {
        if ('gallery' in into) {
          await sql`SELECT id FROM galleries WHERE id = ${into.gallery} FOR UPDATE`.execute(trx);
          await sql`INSERT INTO media_galleries (gallery_id, media_id, position, published_at) SELECT id, ${id}, 100, ${now} FROM galleries WHERE id = ${into.gallery}`.execute(trx);
        } else {
          await sql`SELECT id FROM media_groups WHERE id = ${into.collection} FOR UPDATE`.execute(trx);
          await sql`INSERT INTO media_group_medias (group_id, media_id, position) SELECT id, ${id}, 100 FROM media_groups WHERE id = ${into.collection}`.execute(trx);
        }
      },
    };
  }

  /** Creates a media, publishes it into `into` beside the delete `del`; returns its UUID. */
  async function besidePublication(into: { gallery: number } | { collection: number }, del: () => Promise<unknown>, owner?: TestUser): Promise<string> {
    const p = await publication(into, owner);
    await interleaved(p, del);
    return p.uuid;
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

  it("a member deletes a gallery of a shared website while the website's owner creates a media and publishes it into it", async () => {
    const member = await w.svc.user();
    await w.svc.core.websites.share(w.urlname, member);
    // The owner's medias in the gallery: the delete's cascade writes the owner's stamp, not the member's.
    const { gallery, medias } = await galleryWithMedias(false);
    const created = await besidePublication({ gallery: await idOf('galleries', gallery) }, () => w.svc.client(w.app, member).deleteGallery(w.urlname, gallery));
    expect(await exists('galleries', gallery)).toBe(false);
    for (const m of [...medias, created]) expect(await exists('medias', m)).toBe(true);
  });

  // The order's first step: a delete with its medias locks them before any stamp. A media being
  // updated (MediaRepository.apply: its row locked, then its UPDATE, whose triggers write the
  // owner's stamp) then makes the delete wait at the media, holding no stamp.
  it('deletes a gallery with its medias while one of them is being updated', async () => {
    const { gallery, medias } = await galleryWithMedias(false);
    const id = await mediaId(w.svc.db, medias[1]);
    const update = {
      async first(trx: Tx) {
        await sql`SELECT id FROM medias WHERE id = ${id} FOR UPDATE`.execute(trx);
      },
      async rest(trx: Tx) {
        await trx.updateTable('medias').set({ title: 'Renamed', updated_at: nowIso() }).where('id', '=', id).execute();
      },
    };
    await interleaved(update, () => w.client.deleteGallery(w.urlname, gallery, { delete_medias: 1, medias_count: 2 }));
    expect(await exists('galleries', gallery)).toBe(false);
    for (const m of medias) expect(await exists('medias', m)).toBe(false);
  });
  // Issue 29, item 12. A delete of more than DELETE_IDS (500) medias runs in chunks; each chunk
  // locked its medias only after the chunk before had written the owner's stamp, so an update
  // holding a media of a later chunk (and waiting for that stamp at its UPDATE) met a delete
  // holding the stamp and waiting for the media: "deadlock detected". Every media first, then.
  it('deletes a collection with its 2000 medias while the last of them is being updated', async () => {
    const collection = await createCollection(w, `C ${randomUUID().slice(0, 8)}`);
    const cid = await idOf('media_groups', collection);
    const medias = await insertMedias(w.svc.db, w.user, 2000);
    const ids = (await w.svc.db.selectFrom('medias').select(['id', 'uuid']).where('uuid', 'in', medias).execute()).sort((a, b) => a.id - b.id);
    for (let i = 0; i < ids.length; i += 500) {
      await w.svc.db.insertInto('media_group_medias').values(ids.slice(i, i + 500).map((m, j) => ({ group_id: cid, media_id: m.id, position: i + j + 1 }))).execute();
    }
    const last = ids[ids.length - 1].id;
    await interleaved(updateOf(last), () => w.client.request('DELETE', `/medias_groups/${collection}.xml`, { delete_medias: 1 }));
    expect(await exists('media_groups', collection)).toBe(false);
    // Nothing half-deleted: every media went, with its memberships.
    const left = await w.svc.db.selectFrom('medias').select('id').where('uuid', 'in', medias).execute();
    expect(left.length).toBe(0);
  });

  // The sweep of abandoned uploads deleted never-live medias without locking them: it wrote the
  // owner's stamp (covers cleared), then its DELETE waited for a media an update held, which
  // waited for that stamp. It locks the medias first now.
  it('sweeps abandoned uploads while one of their pending medias is being updated', async () => {
    const medias = await insertMedias(w.svc.db, w.user, [{ status: 'pending' }, { status: 'pending' }, { status: 'pending' }]);
    const ids = await Promise.all(medias.map((m) => mediaId(w.svc.db, m)));
    const past = new Date(Date.now() - 60_000).toISOString();
    await w.svc.db
      .insertInto('uploads')
      .values(ids.map((id, i) => ({ media_id: id, location: 'local', storage_key: `incoming/${medias[i]}/x`, file_name: 'a.jpg', declared_size: 10, declared_mime: 'image/jpeg', expires_at: past, created_at: past })))
      .execute();
    let swept: { uploads: number; medias: number } | undefined;
    await interleaved(updateOf(ids[2]), async () => {
      swept = await w.svc.service.sweep();
    });
    // The sweep logs a failed part and goes on: its counts say whether the part ran through.
    expect({ uploads: swept?.uploads, medias: swept?.medias }).toEqual({ uploads: 3, medias: 3 });
    for (const m of medias) expect(await exists('medias', m)).toBe(false);
    expect(await w.svc.db.selectFrom('uploads').select('id').where('media_id', 'in', ids).execute()).toEqual([]);
  });

  /** An update of media `id` as MediaRepository.apply runs it: its row locked, then its UPDATE (whose triggers write the owner's stamp). */
  function updateOf(id: number) {
    return {
      async first(trx: Tx) {
        await sql`SELECT id FROM medias WHERE id = ${id} FOR UPDATE`.execute(trx);
      },
      async rest(trx: Tx) {
        await trx.updateTable('medias').set({ title: 'Renamed', updated_at: nowIso() }).where('id', '=', id).execute();
      },
    };
  }
});
