// The page micro-cache is keyed on what names a page (website, path, page
// number, media UUID in lower case), never on whatever else a visitor adds:
// unknown query parameters are sent to the page's own address instead of
// rendering a new page (and evicting popular ones). SQLite and PostgreSQL.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { create, publishMedias } from '../api/galleries-fixtures.js';
import { eachDatabase } from '../support/service.js';
import type { World } from '../support/world.js';
import { cookieOf, mediaLinks, startSite, visit } from './site-support.js';

eachDatabase((kind) => {
  describe('page micro-cache keys', () => {
    let w: World;
    let home: string;
    beforeAll(async () => void ({ w, home } = await startSite(kind, { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '60' })));
    afterAll(() => w?.svc.close());

    it('sends a gallery address with unknown parameters to the page itself, without rendering it', async () => {
      const g = await create(w, 'Keyed');
      const [a] = await publishMedias(w.svc.db, w.user, g, ['a.jpg']);
      expect(mediaLinks((await visit(w.svc, `${home}/-/keyed`)).body)).toEqual([a]);
      // A new media: a page rendered now would show it; the cached one does not.
      await publishMedias(w.svc.db, w.user, g, ['b.jpg']);
      for (const [query, to] of [
        ['?x=1', `${home}/-/keyed`],
        ['?utm_source=mail&fbclid=abc', `${home}/-/keyed`],
        ['?page=1', `${home}/-/keyed`],
        ['?x=%22%3E&page=2', `${home}/-/keyed?page=2`],
        ['?page=2&page=3', `${home}/-/keyed?page=2`],
      ] as const) {
        const res = await visit(w.svc, `${home}/-/keyed${query}`);
        expect([query, res.status, res.headers.location]).toEqual([query, 301, to]);
        expect(res.body).toBe('');
      }
      expect(mediaLinks((await visit(w.svc, `${home}/-/keyed`)).body)).toEqual([a]);
      // A page number that is not one is still not found; the root gallery keeps its slash.
      expect((await visit(w.svc, `${home}/-/keyed?page=x&y=1`)).status).toBe(404);
      const root = await visit(w.svc, `${home}/?ref=1`);
      expect([root.status, root.headers.location]).toEqual([301, `${home}/`]);
      // The home without its slash goes straight to the page's address, unknown parameters left out.
      for (const [query, to] of [
        ['?ref=1', `${home}/`],
        ['?page=2&ref=1', `${home}/?page=2`],
        ['', `${home}/`],
      ] as const) {
        const bare = await visit(w.svc, `${home}${query}`);
        expect([query, bare.status, bare.headers.location]).toEqual([query, 301, to]);
      }
    });

    it('sends a media address with any parameter to the page itself, and keys it on the UUID in lower case', async () => {
      const g = await create(w, 'Media keyed');
      const [m] = await publishMedias(w.svc.db, w.user, g, ['m.jpg']);
      await w.svc.db.updateTable('medias').set({ title: 'First title' }).where('uuid', '=', m).execute();
      const path = `${home}/-/media-keyed/_/${m}`;
      const first = await visit(w.svc, path);
      expect(first.status).toBe(200);
      expect(first.body).toContain('<h1>First title</h1>');
      await w.svc.db.updateTable('medias').set({ title: 'Renamed' }).where('uuid', '=', m).execute();
      const odd = await visit(w.svc, `${path}?v=2`);
      expect([odd.status, odd.headers.location]).toEqual([301, path]);
      // Another spelling of the same UUID is the same page, served from memory.
      const upper = await visit(w.svc, `${home}/-/media-keyed/_/${m.toUpperCase()}`);
      expect(upper.status).toBe(200);
      expect(upper.body).toContain('<h1>First title</h1>');
    });

    it('redirects at a website’s own hostname too, and for visitors with a pass', async () => {
      const host = `keys-${randomBytes(3).toString('hex')}.example.test`;
      const site = await w.svc.core.websites.create(w.user, { urlname: `keys-${randomBytes(3).toString('hex')}`, title: 'Keys', hostname: host });
      const locked = text((await w.client.createGallery(site.urlname, { name: 'Private', parent: site.rootGalleryUuid, password: 'pw' })).doc, 'gallery/uuid')!;
      const atHost = await visit(w.svc, '/?fbclid=1', { host });
      expect([atHost.status, atHost.headers.location]).toEqual([301, '/']);
      const cookie = cookieOf(await visit(w.svc, '/_password', { host, form: { gallery: locked, password: 'pw', back: '/-/private' } }))!;
      const withPass = await visit(w.svc, '/-/private?x=1', { host, cookie });
      expect([withPass.status, withPass.headers.location]).toEqual([301, '/-/private']);
      expect((await visit(w.svc, '/-/private', { host, cookie })).status).toBe(200);
    });
  });
});
