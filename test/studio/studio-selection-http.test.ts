// A client's selection and a collection open in the studio's grid (issue 30, defect 3), on
// SQLite and PostgreSQL: /studio/media?lightbox=<uuid> and ?group=<uuid> show that scope only
// (the page and its items.json), the client's notes beside each media, with the selection's
// client and state; another user's lightbox or collection, or a malformed UUID, is a 404; the
// batch edit's "select all" stays within the scope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eachDatabase } from '../support/service.js';
import { createCollection, insertLightbox, insertMedias, mediaId, updateMedia } from '../support/media.js';
import { startWorld, worldOn, type World } from '../support/world.js';
import { StudioBrowser } from './studio-support.js';

eachDatabase((kind) => {
  let w: World;
  let b: StudioBrowser;
  let medias: string[];
  let lightbox: string;
  let collection: string;
  let theirLightbox: string;
  let theirCollection: string;

  beforeAll(async () => {
    w = await startWorld(kind);
    medias = await insertMedias(w.svc.db, w.user, 20);
    lightbox = await insertLightbox(w.svc.db, w.user, [medias[3], medias[5], medias[7]]);
    const lb = await w.svc.db.selectFrom('lightboxes').select('id').where('uuid', '=', lightbox).executeTakeFirstOrThrow();
    // A client's selection as the website makes it: in a gallery, named after the client.
    const root = await w.svc.db.selectFrom('galleries').select('id').where('uuid', '=', w.rootUuid).executeTakeFirstOrThrow();
    await w.svc.db.updateTable('lightboxes').set({ gallery_id: root.id, client_key: 'ann@example.com', name: 'Ann Client — Wedding', client_email: 'ann@example.com', client_name: 'Ann Client', state: 'sent', sent_at: '2026-11-20T10:00:00.000Z' }).where('id', '=', lb.id).execute();
    await w.svc.db.updateTable('lightbox_medias').set({ note: 'Crop a little tighter <please>' }).where('lightbox_id', '=', lb.id).where('media_id', '=', await mediaId(w.svc.db, medias[5])).execute();
    await w.svc.db.updateTable('lightbox_medias').set({ note: 'For the album cover' }).where('lightbox_id', '=', lb.id).where('media_id', '=', await mediaId(w.svc.db, medias[7])).execute();
    collection = await createCollection(w, 'Prints');
    for (const m of [medias[0], medias[1]]) await updateMedia(w.client, m, { 'media[add_to_medias_collections]': [collection] });
    const them = await worldOn(w.svc);
    const theirs = await insertMedias(w.svc.db, them.user, 2);
    theirLightbox = await insertLightbox(w.svc.db, them.user, theirs);
    theirCollection = await createCollection(them, 'Theirs');
    b = await new StudioBrowser(w.svc).signIn(w.user);
  }, 60_000);
  afterAll(() => w?.svc.close());

  const json = async (path: string) => {
    const r = await b.get(path, { accept: 'application/json' });
    return { status: r.status, json: JSON.parse(r.body) };
  };

  describe('a client’s selection', () => {
    it('shows only the lightbox’s medias, with the client’s notes and the selection’s state', async () => {
      const page = await b.get(`/studio/media?lightbox=${lightbox}`);
      expect(page.status).toBe(200);
      expect(page.body).toContain('Selection: Ann Client — Wedding');
      expect(page.body).toContain('3 medias');
      expect(page.body).toContain('ann@example.com');
      expect(page.body).toContain('Sent 20 Nov 2026, 10:00 UTC');
      // The notes, escaped, next to their medias; the library's other medias are not there.
      expect(page.body).toContain('Note: Crop a little tighter &lt;please');
      expect(page.body).not.toContain('<please>');
      expect(page.body).toContain('For the album cover');
      for (const i of [3, 5, 7]) expect(page.body).toContain(medias[i]);
      for (const i of [0, 1, 2, 4, 19]) expect(page.body).not.toContain(medias[i]);
      // The batch form and the script's grid keep the scope.
      expect(page.body).toContain(`name="lightbox" value="${lightbox}"`);
      expect(page.body).toContain(`data-lightbox="${lightbox}"`);
    });

    it('gives the grid’s script the same scope and notes (items.json)', async () => {
      const r = await json(`/studio/media/items.json?lightbox=${lightbox}&offset=0&limit=100`);
      expect(r.status).toBe(200);
      expect(r.json.total).toBe(3);
      expect(r.json.items.map((i: { uuid: string }) => i.uuid).sort()).toEqual([medias[3], medias[5], medias[7]].sort());
      const notes = Object.fromEntries(r.json.items.map((i: { uuid: string; note?: string }) => [i.uuid, i.note ?? null]));
      expect(notes[medias[5]]).toBe('Crop a little tighter <please>');
      expect(notes[medias[7]]).toBe('For the album cover');
      expect(notes[medias[3]]).toBeNull();
    });

    it('answers 404 for another user’s lightbox and for a malformed one', async () => {
      for (const path of [`/studio/media?lightbox=${theirLightbox}`, '/studio/media?lightbox=nope', `/studio/media/items.json?lightbox=${theirLightbox}`]) {
        const r = await b.get(path);
        expect(r.status, path).toBe(404);
        expect(r.body, path).not.toContain(theirLightbox.slice(0, 8) + 'x');
      }
    });
  });

  describe('a collection', () => {
    it('shows only the collection’s medias', async () => {
      const page = await b.get(`/studio/media?group=${collection}`);
      expect(page.status).toBe(200);
      expect(page.body).toContain('Collection: Prints');
      expect(page.body).toContain('2 medias');
      for (const i of [0, 1]) expect(page.body).toContain(medias[i]);
      for (const i of [2, 3, 19]) expect(page.body).not.toContain(medias[i]);
      const r = await json(`/studio/media/items.json?group=${collection}&offset=0&limit=100`);
      expect(r.json.total).toBe(2);
    });

    it('answers 404 for another user’s collection', async () => {
      expect((await b.get(`/studio/media?group=${theirCollection}`)).status).toBe(404);
      expect((await b.get(`/studio/media/items.json?group=${theirCollection}`)).status).toBe(404);
    });

    it('keeps a batch edit’s "select all" within the collection', async () => {
      const page = await b.get(`/studio/media?group=${collection}`);
      const r = await b.post('/studio/media/batch', { csrf: StudioBrowser.csrf(page), group: collection, all: '1', count: '2', keywords: 'print', keywords_mode: 'add' });
      expect(r.status).toBe(303);
      // The job runs in the background: followed to its end, as the screen follows it.
      const job = /job=([0-9a-f-]{36})/.exec(r.headers.get('location') ?? '')![1];
      const deadline = Date.now() + 30_000;
      for (;;) {
        const state = (await json(`/studio/media/jobs/${job}`)).json.state;
        if (state === 'done' || state === 'failed') break;
        if (Date.now() > deadline) throw new Error(`job still ${state}`);
        await new Promise((res) => setTimeout(res, 50));
      }
      const ids = await w.svc.db.selectFrom('media_keywords').select('media_id').where('keyword', '=', 'print').execute();
      expect(ids.map((r) => r.media_id).sort()).toEqual([await mediaId(w.svc.db, medias[0]), await mediaId(w.svc.db, medias[1])].sort());
    });
  });
});
