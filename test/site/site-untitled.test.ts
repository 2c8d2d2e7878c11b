// File names are not titles (issue 30, defect 8), on SQLite and PostgreSQL: a photo without a
// title shows no file name on the public website — not as its page's heading, its caption, the
// page's <title>, the share card, the JSON-LD or an image's alt text; it is named by its place
// in the gallery instead ("Photo 2 of 3", for screen readers and the browser's tab). A photo
// with a title keeps it everywhere. Alt text set through the API (media[alt_text], an extension)
// is the image's alt in the gallery and on the photo's page, before the title.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create, galleryId, publishMedias } from '../api/galleries-fixtures.js';
import { updateMedia } from '../support/media.js';
import { eachDatabase } from '../support/service.js';
import type { World } from '../support/world.js';
import { startSite, visit } from './site-support.js';

eachDatabase((kind) => {
  let w: World;
  let home: string;
  let medias: string[];

  beforeAll(async () => {
    ({ w, home } = await startSite(kind, { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0' }));
    const g = await create(w, 'Ridge');
    medias = await publishMedias(w.svc.db, w.user, g, ['00-first-light.jpg', '01-dawn-over-the-ridge.jpg', '02-named.jpg']);
    await w.svc.db.updateTable('medias').set({ title: 'Blue hour' }).where('uuid', '=', medias[2]).execute();
    // Captions on, as a photographer would set them to show titles.
    const style = await w.svc.db.selectFrom('galleries').select('display_style_id').where('id', '=', await galleryId(w.svc.db, g)).executeTakeFirstOrThrow();
    await w.svc.db.updateTable('display_styles').set({ captions: 1 }).where('id', '=', style.display_style_id!).execute();
  }, 60_000);
  afterAll(() => w?.svc.close());

  describe('a photo without a title', () => {
    it('has no file name on its page: the heading, <title>, card and JSON-LD name its place in the gallery', async () => {
      const page = await visit(w.svc, `${home}/-/ridge/_/${medias[1]}`);
      expect(page.status).toBe(200);
      expect(page.body).not.toContain('dawn-over-the-ridge');
      expect(page.body).toContain('<title>Ridge: photo 2 of 3 ·');
      expect(page.body).toMatch(/<h1 class="sr">Ridge: photo 2 of 3<\/h1>/);
      // The image's text (an <img>'s alt, or its placeholder's label while it has no renditions).
      expect(page.body).toMatch(/(alt|aria-label)="Ridge: photo 2 of 3"/);
    });

    it('has no caption and no file name in the gallery', async () => {
      const page = await visit(w.svc, `${home}/-/ridge`);
      expect(page.status).toBe(200);
      for (const name of ['first-light', 'dawn-over-the-ridge', '02-named']) expect(page.body).not.toContain(name);
      // The titled photo's caption, and no empty caption for the others.
      expect(page.body).toContain('<span class="cap">Blue hour</span>');
      expect(page.body.match(/<span class="cap">/g)).toHaveLength(1);
      // The links are named for screen readers all the same.
      expect(page.body).toMatch(/(alt|aria-label)="Ridge: photo 1 of 3"/);
      expect(page.body).toMatch(/(alt|aria-label)="Ridge: photo 2 of 3"/);
    });
  });

  describe('a photo with a title', () => {
    it('keeps it as its heading, <title> and alt text', async () => {
      const page = await visit(w.svc, `${home}/-/ridge/_/${medias[2]}`);
      expect(page.status).toBe(200);
      expect(page.body).toContain('<h1>Blue hour</h1>');
      expect(page.body).toContain('<title>Blue hour ·');
      expect(page.body).not.toContain('02-named');
    });
  });

  describe('a photo with alt text', () => {
    it("uses it as the image's alt in the gallery and on its page, never the file name", async () => {
      await updateMedia(w.client, medias[0], { 'media[alt_text]': 'Frost on a fence "at" dawn' });
      await updateMedia(w.client, medias[2], { 'media[alt_text]': 'A lake under a blue sky' });
      const page = await visit(w.svc, `${home}/-/ridge/_/${medias[0]}`);
      expect(page.status).toBe(200);
      expect(page.body).toMatch(/(alt|aria-label)="Frost on a fence &quot;at&quot; dawn"/);
      expect(page.body).not.toContain('first-light');
      const titled = await visit(w.svc, `${home}/-/ridge/_/${medias[2]}`);
      expect(titled.body).toMatch(/(alt|aria-label)="A lake under a blue sky"/);
      // The title stays the heading.
      expect(titled.body).toContain('<h1>Blue hour</h1>');
      const gallery = await visit(w.svc, `${home}/-/ridge`);
      expect(gallery.body).toMatch(/(alt|aria-label)="Frost on a fence &quot;at&quot; dawn"/);
      expect(gallery.body).toMatch(/(alt|aria-label)="A lake under a blue sky"/);
      for (const name of ['first-light', 'dawn-over-the-ridge', '02-named']) expect(gallery.body).not.toContain(name);
    });
  });
});
