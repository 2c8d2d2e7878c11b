// Issue 30's smaller studio defects over HTTP, on SQLite and PostgreSQL: the logo and favicon
// pickers offer the latest images first, with a way to older ones (defect 4); an invitation
// without a mail server says so and shows the link to copy (defect 5); every studio page names
// an icon, and /favicon.ico answers one (defect 7).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eachDatabase } from '../support/service.js';
import { insertMedias } from '../support/media.js';
import { startWorld, type World } from '../support/world.js';
import { StudioBrowser } from './studio-support.js';

eachDatabase((kind) => {
  let w: World;
  let b: StudioBrowser;
  let photos: string[];
  let logo: string;

  beforeAll(async () => {
    w = await startWorld(kind);
    // 30 photos, then the logo: the 31st image of the library, the latest.
    photos = await insertMedias(w.svc.db, w.user, Array.from({ length: 30 }, (_, i) => ({ title: `Photo ${i + 1}` })));
    [logo] = await insertMedias(w.svc.db, w.user, [{ title: 'Studio logo', file_name: 'logo.png', mime_type: 'image/png' }]);
    b = await new StudioBrowser(w.svc).signIn(w.user);
  }, 60_000);
  afterAll(() => w?.svc.close());

  describe('the logo and favicon pickers', () => {
    it('offer the latest images first: a logo uploaded after 30 photos can be chosen', async () => {
      const page = await b.get(`/studio/websites/${w.urlname}`);
      expect(page.status).toBe(200);
      expect(page.body).toContain(`name="logo" value="${logo}"`);
      expect(page.body).toContain(`name="favicon" value="${logo}"`);
      // The latest first: the logo before the photos, the newest photo before older ones.
      expect(page.body.indexOf('Studio logo')).toBeLessThan(page.body.indexOf('Photo 30'));
      expect(page.body.indexOf('Photo 30')).toBeLessThan(page.body.indexOf('Photo 29'));
      // The oldest are a link away.
      expect(page.body).not.toContain(`value="${photos[0]}"`);
      expect(page.body).toContain(`href="/studio/websites/${w.urlname}?images=2#logo-picker"`);
      const older = await b.get(`/studio/websites/${w.urlname}?images=2`);
      expect(older.status).toBe(200);
      expect(older.body).toContain(`name="logo" value="${photos[0]}"`);
      expect(older.body).toContain(`href="/studio/websites/${w.urlname}#logo-picker"`);
    });

    it('keeps a chosen image that is not among those offered, and a bad page number is the first page', async () => {
      const page = await b.get(`/studio/websites/${w.urlname}`);
      const saved = await b.post(`/studio/websites/${w.urlname}`, { csrf: StudioBrowser.csrf(page), title: 'My photos', color_scheme: 'light', theme: 'classic', logo: photos[0], favicon: '', indexing: '1' });
      expect(saved.status).toBe(303);
      const again = await b.get(`/studio/websites/${w.urlname}`);
      expect(again.body).toMatch(new RegExp(`name="logo" value="${photos[0]}" checked`));
      expect((await b.get(`/studio/websites/${w.urlname}?images=nope`)).status).toBe(200);
    });
  });

  describe('an invitation without a mail server', () => {
    it('says no mail server is set up and shows the link to copy, instead of "invited"', async () => {
      const path = `/studio/galleries/${w.rootUuid}`;
      const res = await b.submit(path, `${path}/invite`, { email: 'Client@Example.com', message: 'Your photos' });
      expect(res.status).toBe(200);
      expect(res.body).toContain('No mail server is set up');
      expect(res.body).not.toContain('added to the access list and invited');
      const link = /<code class="secret"[^>]*>(https?:\/\/[^<]+\/_signin\/[A-Za-z0-9_-]{43})<\/code>/.exec(res.body);
      expect(link, 'the sign-in link on the page').not.toBeNull();
      expect(res.body).toContain('client@example.com');
      // The link works: it signs the client in to the gallery.
      const visit = await fetch(link![1].replace(/^https?:\/\/[^/]+/, w.svc.url), { redirect: 'manual' });
      expect(visit.status).toBeLessThan(400);
    });
  });

  describe('the icon', () => {
    it('names an icon on every studio page, and /favicon.ico answers one', async () => {
      const page = await b.get('/studio/media');
      const href = /<link rel="icon" type="image\/svg\+xml" href="(\/studio\/_assets\/[A-Za-z0-9_-]+\.svg)"/.exec(page.body);
      expect(href, 'the icon link').not.toBeNull();
      const icon = await b.get(href![1]);
      expect(icon.status).toBe(200);
      expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      const signin = await new StudioBrowser(w.svc).get('/studio/signin');
      expect(signin.body).toContain('<link rel="icon"');
      const ico = await fetch(`${w.svc.url}/favicon.ico`, { redirect: 'manual' });
      expect(ico.status).toBe(200);
      expect(ico.headers.get('content-type')).toMatch(/^image\//);
    });
  });
});
