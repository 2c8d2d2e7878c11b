// A user sees and changes only the websites they own or were given access
// to: anything else answers 404, exactly as for something that does not
// exist, on every gallery endpoint, and nothing is changed.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MediaPortfolioClient } from '../../src/client/index.js';
import { all, text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { create, failure, startWorld, type GalleryWorld } from './galleries-fixtures.js';

eachDatabase((kind) => {
  let w: GalleryWorld;
  let gallery: string;
  let stranger: MediaPortfolioClient;
  let strangerSite: string;
  beforeAll(async () => {
    w = await startWorld(kind);
    gallery = await create(w, 'Private');
    await create(w, 'Private child', gallery);
    const other = await w.svc.user();
    strangerSite = (await w.svc.website(other)).urlname;
    stranger = w.svc.client(w.app, other);
  });
  afterAll(() => w?.svc.close());

  function everyEndpoint(urlname: string, uuid: string): Array<[string, () => Promise<unknown>]> {
    return [
      ['list', () => stranger.galleries(urlname, { view: 'details' })],
      ['details', () => stranger.gallery(urlname, uuid)],
      ['details_with_medias', () => stranger.gallery(urlname, uuid, 'details_with_medias')],
      ['details_with_contents', () => stranger.gallery(urlname, uuid, 'details_with_contents')],
      ['subgalleries', () => stranger.request('GET', `/websites/${urlname}/galleries/${uuid}/subgalleries.xml`)],
      ['create', () => stranger.createGallery(urlname, { name: 'Intruder', parent: uuid })],
      ['update', () => stranger.updateGallery(urlname, uuid, { name: 'Hacked' })],
      ['delete', () => stranger.deleteGallery(urlname, uuid, { delete_medias: 1 })],
      ['display styles', () => stranger.request('GET', `/websites/${urlname}/gallery_display_styles.xml`)],
    ];
  }

  it("answers 404 on every gallery endpoint of another user's website, and changes nothing", async () => {
    const before = await w.svc.db.selectFrom('galleries').selectAll().orderBy('id').execute();
    const notThere = 'no-such-website';
    for (const [name, call] of everyEndpoint(w.urlname, gallery)) {
      const f = await failure(call());
      expect(f.status, name).toBe(404);
      // The same answer as for a website that does not exist: nothing leaks.
      const g = everyEndpoint(notThere, gallery).find(([n]) => n === name)![1];
      const missing = await failure(g());
      expect(missing.status, name).toBe(404);
      expect(f.message.replace(w.urlname, notThere), name).toBe(missing.message);
    }
    expect(await w.svc.db.selectFrom('galleries').selectAll().orderBy('id').execute()).toEqual(before);
  });

  it("answers 404 for another website's gallery addressed through one's own website", async () => {
    for (const [name, call] of everyEndpoint(strangerSite, gallery)) {
      if (name === 'list' || name === 'display styles') continue;
      const f = await failure(call());
      if (name === 'create') {
        // The parent is an attribute there: refused like any unknown parent UUID.
        expect(f.status).toBe(422);
        expect(f.message).toBe(`gallery[parent]: ${gallery} is not a gallery of this website`);
        continue;
      }
      expect(f.status, name).toBe(404);
      expect(f.message, name).toBe(`gallery ${gallery} not found`);
    }
    // …and its own UUIDs for unknown ones, with the same message.
    const unknown = randomUUID();
    expect((await failure(stranger.gallery(strangerSite, unknown))).message).toBe(`gallery ${unknown} not found`);
    expect(text((await w.client.gallery(w.urlname, gallery)).doc, 'gallery/name')).toBe('Private');
  });

  it('lets a user given access to the website read and change its galleries', async () => {
    const member = await w.svc.user();
    await w.svc.core.websites.share(w.urlname, member);
    const c = w.svc.client(w.app, member);
    expect(all((await c.galleries(w.urlname)).doc, 'galleries/gallery').length).toBeGreaterThanOrEqual(3);
    const created = await c.createGallery(w.urlname, { name: 'By a member', parent: gallery });
    expect(text(created.doc, 'gallery/full-url-path')).toBe('private/by-a-member');
    await c.updateGallery(w.urlname, gallery, { description: 'Edited by a member' });
    expect(text((await w.client.gallery(w.urlname, gallery)).doc, 'gallery/description')).toBe('Edited by a member');
  });
});
