// Test data for the media, group and batch suites: a service with a user, a
// website and a logged-in client, plus bulk inserts of live medias and of the
// rows that have no API of their own (lightboxes, pricing profiles, watermarks).
import { randomUUID } from 'node:crypto';
import type { ApiResponse, MediaPortfolioClient } from '../../src/client/index.js';
import type { Params } from '../../src/client/params.js';
import { all, text } from '../../src/client/xml.js';
import type { Db } from '../../src/database/db.js';
import { nowIso } from '../../src/database/db.js';
import type { DbKind, TestUser } from './service.js';
import { failure, startWorld, worldOn, type World } from './world.js';

export type MediaWorld = World;
export { failure, worldOn };

export function startMediaWorld(kind: DbKind, env: Record<string, string> = {}): Promise<World> {
  return startWorld(kind, env);
}

export interface NewMedia {
  file_name?: string;
  status?: string;
  mime_type?: string;
  title?: string;
  artist_rating?: number | null;
  shot_at?: string | null;
  artist_uuid?: string;
  keywords?: string[];
}

/** Inserts live medias of the user (default library unless told), in order; returns their UUIDs. */
export async function insertMedias(db: Db, user: TestUser, list: NewMedia[] | number): Promise<string[]> {
  const items: NewMedia[] = typeof list === 'number' ? Array.from({ length: list }, () => ({})) : list;
  const artists = await db.selectFrom('artists').select(['id', 'uuid']).where('owner_id', '=', user.id).execute();
  const artistId = (uuid = user.defaultArtistUuid) => artists.find((a) => a.uuid === uuid)!.id;
  const now = nowIso();
  const uuids: string[] = [];
  for (let start = 0; start < items.length; start += 500) {
    const rows = items.slice(start, start + 500).map((m, i) => {
      const uuid = randomUUID();
      uuids.push(uuid);
      const n = start + i + 1;
      return {
        uuid,
        owner_id: user.id,
        artist_id: artistId(m.artist_uuid),
        status: m.status ?? 'live',
        file_name: m.file_name ?? `IMG_${String(n).padStart(5, '0')}.jpg`,
        file_size: 1000 + n,
        mime_type: m.mime_type ?? 'image/jpeg',
        storage_key: null,
        title: m.title ?? null,
        artist_rating: m.artist_rating ?? null,
        shot_at: m.shot_at ?? null,
        width: 40,
        height: 30,
        created_at: now,
        updated_at: now,
      };
    });
    const inserted = await db.insertInto('medias').values(rows).returning(['id', 'uuid']).execute();
    const keywordRows = inserted.flatMap((r) => {
      const m = items[start + rows.findIndex((x) => x.uuid === r.uuid)];
      return (m.keywords ?? []).map((keyword, i) => ({ media_id: r.id, position: i + 1, keyword }));
    });
    if (keywordRows.length) await db.insertInto('media_keywords').values(keywordRows).execute();
  }
  return uuids;
}

export async function mediaId(db: Db, uuid: string): Promise<number> {
  return (await db.selectFrom('medias').select('id').where('uuid', '=', uuid).executeTakeFirstOrThrow()).id;
}

export async function insertLightbox(db: Db, user: TestUser, mediaUuids: string[] = []): Promise<string> {
  const uuid = randomUUID();
  const lb = await db.insertInto('lightboxes').values({ uuid, owner_id: user.id, name: 'Lightbox', created_at: nowIso() }).returning('id').executeTakeFirstOrThrow();
  for (const [i, m] of mediaUuids.entries()) {
    await db.insertInto('lightbox_medias').values({ lightbox_id: lb.id, media_id: await mediaId(db, m), position: i + 1 }).execute();
  }
  return uuid;
}

export async function insertPricingProfile(db: Db, user: TestUser, name = 'Prints'): Promise<string> {
  const uuid = randomUUID();
  await db.insertInto('pricing_profiles').values({ uuid, owner_id: user.id, name, created_at: nowIso() }).execute();
  return uuid;
}

export async function insertWatermark(db: Db, artistUuid: string): Promise<string> {
  const uuid = randomUUID();
  const artist = await db.selectFrom('artists').select('id').where('uuid', '=', artistUuid).executeTakeFirstOrThrow();
  await db.insertInto('watermarks').values({ uuid, artist_id: artist.id, text: '© test', created_at: nowIso() }).execute();
  return uuid;
}

export async function insertArtist(db: Db, user: TestUser, name = 'Second library'): Promise<string> {
  const uuid = randomUUID();
  await db.insertInto('artists').values({ uuid, owner_id: user.id, name, is_default: 0, created_at: nowIso() }).execute();
  return uuid;
}

/** Creates a gallery under the root over HTTP and returns its UUID. */
export async function createGallery(w: MediaWorld, name: string, parent = w.rootUuid): Promise<string> {
  const res = await w.client.createGallery(w.urlname, { name, parent });
  return text(res.doc, 'gallery/uuid')!;
}

export async function createCollection(w: MediaWorld, name: string, extra: Params = {}): Promise<string> {
  const res = await w.client.request('POST', '/medias_groups.xml', { 'medias_collection[name]': name, ...extra });
  return text(res.doc, 'medias-collection/uuid')!;
}

/** PUT /medias/<uuid>.xml as clients send it: multipart POST with _method=PUT. */
export function updateMedia(client: MediaPortfolioClient, uuid: string, params: Params): Promise<ApiResponse> {
  return client.request('PUT', `/medias/${uuid}.xml`, params, { multipart: true, methodOverride: true });
}

export function getMedia(client: MediaPortfolioClient, uuid: string, view?: string): Promise<ApiResponse> {
  return client.request('GET', `/medias/${uuid}.xml`, { view });
}

/** UUIDs of the medias in a listing reply, in order. */
export function uuidsOf(res: ApiResponse, path = 'medias/media/uuid'): string[] {
  return all(res.doc, path).map((n) => n.text);
}

/** Polls the job resource until the job is done or failed. */
export async function waitForJob(client: MediaPortfolioClient, location: string, timeoutMs = 30_000): Promise<ApiResponse> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client.request('GET', location);
    const state = text(res.doc, 'job/state');
    if (state === 'done' || state === 'failed') return res;
    if (Date.now() > deadline) throw new Error(`job still ${state} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
