// Shared setup of the gallery API tests: a service, a user with a website,
// a logged-in SDK client, and direct inserts for bulk data (medias before the
// media feature exists, many galleries without many HTTP calls).
import { randomUUID } from 'node:crypto';
import type { ApiResponse } from '../../src/client/index.js';
import { text } from '../../src/client/xml.js';
import { insertChildren } from '../support/gallery-seed.js';
import type { Db } from '../../src/database/db.js';
import { nowIso } from '../../src/database/db.js';
import type { TestUser } from '../support/service.js';
import { failure, startWorld, type World } from '../support/world.js';

export type GalleryWorld = World;
export { failure, startWorld };

/** Creates a gallery over HTTP and returns its UUID. */
export async function create(w: GalleryWorld, name: string, parent = w.rootUuid, attrs: Record<string, unknown> = {}): Promise<string> {
  const res = await w.client.createGallery(w.urlname, { name, parent, ...attrs });
  return text(res.doc, 'gallery/uuid')!;
}

export async function details(w: GalleryWorld, uuid: string, view?: 'details' | 'details_with_medias' | 'details_with_contents'): Promise<ApiResponse> {
  return w.client.gallery(w.urlname, uuid, view);
}

export async function galleryId(db: Db, uuid: string): Promise<number> {
  return (await db.selectFrom('galleries').select('id').where('uuid', '=', uuid).executeTakeFirstOrThrow()).id;
}

/** Live medias of the user's default library, published in the gallery in this order. */
export async function publishMedias(db: Db, user: TestUser, galleryUuid: string, files: Array<string | Partial<{ file_name: string; status: string; shot_at: string; artist_rating: number }>>): Promise<string[]> {
  const artist = await db.selectFrom('artists').select('id').where('uuid', '=', user.defaultArtistUuid).executeTakeFirstOrThrow();
  const gid = await galleryId(db, galleryUuid);
  const last = await db.selectFrom('media_galleries').select((eb) => eb.fn.max('position').as('p')).where('gallery_id', '=', gid).executeTakeFirst();
  let position = Number(last?.p ?? 0);
  const uuids: string[] = [];
  for (const f of files) {
    const spec = typeof f === 'string' ? { file_name: f } : f;
    const now = nowIso();
    const media = await db
      .insertInto('medias')
      .values({
        uuid: randomUUID(),
        owner_id: user.id,
        artist_id: artist.id,
        status: spec.status ?? 'live',
        file_name: spec.file_name ?? `${randomUUID()}.jpg`,
        shot_at: spec.shot_at ?? null,
        artist_rating: spec.artist_rating ?? null,
        created_at: now,
        updated_at: now,
      })
      .returning(['id', 'uuid'])
      .executeTakeFirstOrThrow();
    await db.insertInto('media_galleries').values({ gallery_id: gid, media_id: media.id, position: ++position, published_at: now }).execute();
    uuids.push(media.uuid);
  }
  return uuids;
}

/** Publishes already existing medias in another gallery too. */
export async function alsoPublish(db: Db, galleryUuid: string, mediaUuids: string[]): Promise<void> {
  const gid = await galleryId(db, galleryUuid);
  for (const [i, uuid] of mediaUuids.entries()) {
    const m = await db.selectFrom('medias').select('id').where('uuid', '=', uuid).executeTakeFirstOrThrow();
    await db.insertInto('media_galleries').values({ gallery_id: gid, media_id: m.id, position: 1000 + i, published_at: nowIso() }).execute();
  }
}

/** `count` sub-galleries under `parentUuid`, inserted in bulk. */
export async function bulkChildren(db: Db, parentUuid: string, count: number, prefix = 'Bulk'): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const parent = await trx.selectFrom('galleries').selectAll().where('uuid', '=', parentUuid).executeTakeFirstOrThrow();
    await insertChildren(
      trx,
      parent,
      Array.from({ length: count }, (_, i) => `${prefix} ${i + 1}`),
      nowIso(),
    );
  });
}
