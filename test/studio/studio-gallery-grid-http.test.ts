// The galleries' overview (docs/studio.md "The galleries' grid"), on SQLite and PostgreSQL: every
// gallery a card with its cover, photo count and state (public, password, access list, expired),
// a sub-gallery naming the one it is in; its covers and states come from set-based queries, so
// the page sends the same statements for 6 galleries as for 26, searched, filtered and sorted
// or not; another owner's website a 404. (Finding: studio-gallery-grid-find-http.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { galleryId, publishMedias } from '../api/galleries-fixtures.js';
import { createGallery } from '../support/media.js';
import { eachDatabase } from '../support/service.js';
import { readsOf, shapeOf } from '../support/statements.js';
import { startWorld, type World } from '../support/world.js';
import { StudioBrowser } from './studio-support.js';

eachDatabase((kind) => {
  let w: World;
  let b: StudioBrowser;
  const g: Record<string, string> = {};
  const grid = () => `/studio/websites/${w.urlname}/galleries/grid`;

  /** Photos in a gallery, their renditions taken as made (a cover needs a rendition). */
  async function photos(gallery: string, n: number) {
    const uuids = await publishMedias(w.svc.db, w.user, gallery, Array.from({ length: n }, (_, i) => `p-${gallery.slice(0, 8)}-${i}.jpg`));
    await w.svc.db.updateTable('medias').set({ renditions_state: 'ready' }).where('uuid', 'in', uuids).execute();
    return uuids;
  }

  beforeAll(async () => {
    w = await startWorld(kind);
    b = await new StudioBrowser(w.svc).signIn(w.user);
    g.weddings = await createGallery(w, 'Weddings');
    g.june = await createGallery(w, 'June & July', g.weddings);
    g.portraits = await createGallery(w, 'Portraits');
    g.old = await createGallery(w, 'Old event');
    g.landscapes = await createGallery(w, 'Landscapes');
    await photos(g.june, 3);
    await photos(g.landscapes, 1);
    await photos(g.portraits, 2);
    const settings = (uuid: string) => `/studio/galleries/${uuid}`;
    expect((await b.submit(settings(g.portraits), `${settings(g.portraits)}/password`, { password: 'open sesame' })).status).toBe(303);
    expect((await b.submit(settings(g.june), `${settings(g.june)}/acl`, { default_read: '0', new_email: 'ann@example.com', new_read: '1' })).status).toBe(303);
    // Past its expiry (the form takes future dates only): visitors see the closed page.
    await w.svc.db.updateTable('galleries').set({ expires_at: '2020-01-01T00:00:00.000Z' }).where('uuid', '=', g.old).execute();
  });
  afterAll(async () => {
    await w?.svc.close();
  });

  /** One card's text, by the gallery's settings link. */
  const card = (body: string, uuid: string) => {
    const at = body.indexOf(`<a href="/studio/galleries/${uuid}">`);
    expect(at, uuid).toBeGreaterThan(0);
    const start = body.lastIndexOf('<li class="gcard', at);
    return body.slice(start, body.indexOf('</li><li class="gcard', at) > 0 ? body.indexOf('</li><li class="gcard', at) : undefined);
  };

  describe('the overview', () => {
    it('shows each gallery with its cover, count and state; a sub-gallery names its parent', async () => {
      const page = await b.get(grid());
      expect(page.status).toBe(200);
      const june = card(page.body, g.june);
      expect(june).toContain('June &amp; July');
      expect(june).toMatch(/Inside <\/span><span aria-hidden="true">↳ <\/span>Weddings/);
      expect(june).toContain('3 photos');
      expect(june).toContain('<li class="state acl">Access list</li>');
      expect(june).toMatch(/<img class="thumb" src="\/studio\/thumbs\/[0-9a-f-]{36}" alt width="320" height="240" loading="lazy"/);
      expect(june).toContain(`href="/studio/galleries/${g.june}/proofing"`);
      // Weddings holds no photo of its own: its cover comes from June, its count says what is inside.
      const weddings = card(page.body, g.weddings);
      expect(weddings).toContain('3 photos · 1 gallery inside');
      expect(weddings).toContain('/studio/thumbs/');
      expect(weddings).toContain('<li class="state public">Public</li>');
      const portraits = card(page.body, g.portraits);
      expect(portraits).toContain('<li class="state locked">Password</li>');
      expect(portraits).not.toContain('state public');
      const old = card(page.body, g.old);
      expect(old).toContain('<li class="state closed">Expired</li>');
      expect(old).toContain('<span class="thumb none">');
      // The switch between the two views, the current one marked.
      expect(page.body).toContain('<a href="/studio/websites/' + w.urlname + '/galleries/grid" aria-current="page">Grid</a>');
      const tree = await b.get(`/studio/websites/${w.urlname}/galleries`);
      expect(tree.body).toContain('<a href="/studio/websites/' + w.urlname + '/galleries" aria-current="page">Tree</a>');
    });

    it('sends the same statements for twenty more galleries (covers and access lists as sets, none per gallery)', async () => {
      // The reads of one grid page (test/support/statements.ts: on SQLite the handle's too).
      const statements = async (path = grid()): Promise<string[]> => {
        const { answer, statements: seen } = await readsOf(kind, w.svc.db, () => b.get(path));
        expect(answer.status).toBe(200);
        return seen;
      };
      const shape = shapeOf;
      // Searched, filtered and sorted by photos too: the search, the state and the order are SQL.
      const found = grid() + '?q=e&state=public&sort=photos';
      await statements();
      const small = await statements();
      await statements(found);
      const smallFound = await statements(found);
      for (let i = 0; i < 20; i++) {
        const more = await createGallery(w, `More ${i}`, i % 2 ? g.weddings : w.rootUuid);
        await photos(more, 2);
        if (i % 3 === 0) await w.svc.db.insertInto('gallery_acl').values({ gallery_id: await galleryId(w.svc.db, more), position: 0, email: 'DEFAULT', can_read: 0, created_at: new Date().toISOString() }).execute();
      }
      await statements();
      const big = await statements();
      await statements(found);
      const bigFound = await statements(found);
      expect((await b.get(grid())).body.match(/<li class="gcard/g)!.length).toBe(26);
      expect((await b.get(found)).body.match(/<li class="gcard/g)!.length).toBeGreaterThan(10);
      // No statement repeats per gallery: each one runs at most as often as with five galleries (or once).
      const times = (qs: string[]) => shape(qs).reduce((m, q) => m.set(q, (m.get(q) ?? 0) + 1), new Map<string, number>());
      for (const [few, many] of [
        [small, big],
        [smallFound, bigFound],
      ]) {
        const before = times(few);
        for (const [q, n] of times(many)) expect(n, q).toBeLessThanOrEqual(Math.max(before.get(q) ?? 0, 1));
        expect(shape(many)).toEqual(shape(few));
        expect(many.length).toBeLessThanOrEqual(15);
      }
      // The access lists are one statement over the whole set.
      expect(big.filter((q) => /from "gallery_acl"/.test(q))).toHaveLength(1);
    });

    it('answers another owner’s website with a 404', async () => {
      const stranger = await w.svc.user();
      const theirs = await w.svc.website(stranger);
      expect((await b.get(`/studio/websites/${theirs.urlname}/galleries/grid`)).status).toBe(404);
    });
  });
});
