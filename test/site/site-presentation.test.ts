// The website's presentation over HTTP: layouts the display styles choose
// (justified rows at each photo's true aspect by default, a grid that crops
// only when its style says so, masonry columns, filmstrip, slideshow with its
// progress), spacing and captions; images with srcset, sizes and their
// dimensions; the viewer's data on each link; the public cover a protected
// gallery shows (pages and /files); downloads named after the photo.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, text } from '../../src/client/xml.js';
import { FileUrls } from '../../src/file-storage/file-urls.js';
import { create, publishMedias } from '../api/galleries-fixtures.js';
import { eachDatabase } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';
import sharp from 'sharp';
import { photo, uploadJpeg, uploadPhoto, visit, waitForRenditions } from './site-support.js';

eachDatabase((kind) => {
  let w: World;
  let home: string;
  beforeAll(async () => {
    w = await startWorld(kind, { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0' });
    home = `/sites/${w.urlname}`;
  });
  afterAll(() => w?.svc.close());

  const styleUuid = async (layout: string) => {
    const styles = all((await w.client.request('GET', `/websites/${w.urlname}/gallery_display_styles.xml`, { view: 'details' })).doc, 'gallery-display-styles/gallery-display-style');
    return text(styles.find((s) => text(s, 'layout') === layout)!, 'uuid')!;
  };

  describe('layouts', () => {
    it('shows the default style as justified rows at each photo’s own aspect ratio, nothing cropped', async () => {
      const g = await create(w, 'Rows');
      // 3:2, 2:3, 1:1 and a 16:9 photo: each item's class is its ratio in hundredths.
      const ids = await publishMedias(w.svc.db, w.user, g, ['a.jpg', 'b.jpg', 'c.jpg', 'd.jpg']);
      const sizes: Array<[number, number]> = [
        [3000, 2000],
        [2000, 3000],
        [1000, 1000],
        [1920, 1080],
      ];
      for (const [i, [width, height]] of sizes.entries()) await w.svc.db.updateTable('medias').set({ width, height }).where('uuid', '=', ids[i]).execute();
      const page = await visit(w.svc, `${home}/-/rows`);
      expect(page.body).toContain('<ul class="media justified sp-normal" data-layout="justified">');
      expect([...page.body.matchAll(/<li class="(r\d+)">/g)].map((m) => m[1])).toEqual(['r150', 'r67', 'r100', 'r178']);
      // The placeholders hold each photo's shape before any rendition exists (no layout shift).
      expect(page.body).toContain('viewBox="0 0 3000 2000" width="3000" height="2000"');
      expect(page.body).not.toContain('class="media grid');
      // Every photo is a link to its media page, with the viewer's data on it.
      expect(page.body).toContain(`href="${home}/-/rows/_/${ids[0]}" data-uuid="${ids[0]}"`);
      // Untitled: no title for the viewer either (a file name is never shown: issue 30).
      expect(page.body).not.toContain('a.jpg');
      const css = await visit(w.svc, /href="(\/_site\/[A-Za-z0-9_-]+\.css)"/.exec(page.body)![1]);
      // Flex items grow in proportion to their ratio from a basis of ratio × row height: one height per row.
      expect(css.body).toContain('.justified li{flex-grow:calc(var(--r,1.5)*100);flex-shrink:1;flex-basis:calc(var(--h)*var(--r,1.5));min-width:0}');
      expect(css.body).toContain('.r150{--r:1.5}');
      expect(css.body).not.toMatch(/\.justified[^{]*img[^{]*\{[^}]*object-fit/);
    });

    it('crops a grid, spaces and captions the photos only when the display style says so', async () => {
      const g = await create(w, 'Squares');
      const [sq] = await publishMedias(w.svc.db, w.user, g, ['sq.jpg']);
      // A caption is the photographer's title (a file name is never one: issue 30).
      await w.svc.db.updateTable('medias').set({ title: 'Square' }).where('uuid', '=', sq).execute();
      await w.svc.core.websites.setDisplayStyle(w.urlname, 'Grid', { crop: true, spacing: 'wide', captions: true });
      try {
        const page = await visit(w.svc, `${home}/-/squares`);
        expect(page.body).toContain('<ul class="media grid sp-wide captions" data-layout="grid">');
        expect(page.body).toContain('<span class="cap">Square</span>');
        expect(page.body).not.toContain('sq.jpg');
      } finally {
        await w.svc.core.websites.setDisplayStyle(w.urlname, 'Grid', { crop: false, spacing: 'normal', captions: false });
      }
      const back = await visit(w.svc, `${home}/-/squares`);
      expect(back.body).toContain('<ul class="media justified sp-normal" data-layout="justified">');
      expect(back.body).not.toContain('class="cap"');
      await expect(w.svc.core.websites.setDisplayStyle(w.urlname, 'No such style', { crop: true })).rejects.toThrow(/display style/);
    });

    it('lays out masonry columns, a filmstrip and a slideshow with its progress', async () => {
      for (const layout of ['masonry', 'filmstrip', 'slideshow']) {
        const g = await create(w, `Layout ${layout}`, w.rootUuid, { display_style: await styleUuid(layout) });
        await publishMedias(w.svc.db, w.user, g, ['x.jpg', 'y.jpg']);
        const page = await visit(w.svc, `${home}/-/layout-${layout}`);
        expect(page.body).toContain(`<ul class="media ${layout} sp-normal" data-layout="${layout}">`);
        if (layout === 'slideshow') {
          expect(page.body).toContain('<progress max="2" value="1" aria-label="Photo"></progress> 1 / 2');
          expect(page.body).toContain('<button type="button" data-play="true" hidden>Play the slideshow</button>');
        }
      }
    });
  });

  describe('images', () => {
    it('gives every image its ladder, sizes true to its layout and its dimensions; the viewer its largest size', async () => {
      const g = await create(w, 'Ladder');
      const uuid = await uploadPhoto(w, g, 3, 1400);
      if (!(await waitForRenditions(w, [uuid]))) return;
      const page = (await visit(w.svc, `${home}/-/ladder`)).body.replace(/&amp;/g, '&');
      // The first photo of a page is loaded at once, first (issue 31): no sizes=auto then.
      const img = /<img src="([^"]+)" srcset="([^"]+)" sizes="([^"]+)" width="(\d+)" height="(\d+)" alt="Photo 4" loading="eager" fetchpriority="high"/.exec(page)!;
      const widths = img[2].split(', ').map((c) => Number(c.split(' ')[1].replace('w', '')));
      expect(widths).toEqual([...widths].sort((a, b) => a - b));
      expect(widths[0]).toBe(320);
      // The ladder's rungs up to the photo's size (320, 640, the phone's 1152, 1280 for a 1400-px photo).
      expect(widths).toEqual([320, 640, 1152, 1280]);
      // A landscape photo is full width on a phone.
      expect(img[3]).toBe('(min-width: 700px) 511px, calc(100vw - 1rem)');
      expect([img[4], img[5]]).toEqual(['1400', '933']);
      // The viewer may zoom up to the largest rendition's pixels.
      expect(page).toContain('data-width="1280" data-height="853"');
    });
  });

  describe('sizes of justified rows on a phone', () => {
    it('says what each photo is drawn at on a phone, row by row: a landscape or a lone portrait full width, two portraits half each, the first photo eager', async () => {
      const g = await create(w, 'Phone rows');
      // Landscape, portrait, portrait, landscape, portrait, landscape: rows of 1, 2, 1, 1 and the last.
      const shapes = ['L', 'P', 'P', 'L', 'P', 'L'];
      const uuids: string[] = [];
      for (const [i, shape] of shapes.entries()) {
        const data = shape === 'L' ? await photo(20 + i, 900) : await sharp(await photo(20 + i, 900)).rotate(90).jpeg().toBuffer();
        uuids.push(await uploadJpeg(w, g, data, `row-${i}.jpg`, `Row ${i + 1}`));
      }
      if (!(await waitForRenditions(w, uuids))) return;
      const page = (await visit(w.svc, `${home}/-/phone-rows`)).body;
      const sizes = [...page.matchAll(/<img [^>]*sizes="([^"]+)"[^>]*alt="Row \d"/g)].map((m) => m[1]);
      expect(sizes).toEqual([
        '(min-width: 700px) 510px, calc(100vw - 1rem)',
        'auto, (min-width: 700px) 227px, calc((100vw - 1rem - 8px) * 0.500)',
        'auto, (min-width: 700px) 227px, calc((100vw - 1rem - 8px) * 0.500)',
        'auto, (min-width: 700px) 510px, calc(100vw - 1rem)',
        'auto, (min-width: 700px) 227px, calc(100vw - 1rem)',
        'auto, (min-width: 700px) 510px, calc(100vw - 1rem)',
      ]);
      // Only the first is in the page as an image; the others wait for the loader (in <noscript>).
      expect(page.match(/<img [^>]*loading="eager" fetchpriority="high"/g)).toHaveLength(1);
      expect(page.match(/<noscript>/g)).toHaveLength(5);
    });
  });

  describe('public cover of a protected gallery', () => {
    it('shows the cover its photographer chose, with a lock, name and date, on the parent, the password and the sign-in pages; /files serves it to anyone', async () => {
      const open = await create(w, 'Portfolio');
      const cover = await uploadPhoto(w, open, 7, 900);
      const hidden = await create(w, 'Private work', w.rootUuid, { password: 'secret', public_cover_media: cover });
      const other = await uploadPhoto(w, hidden, 8, 900);
      await create(w, 'Clients only', w.rootUuid, { acl: [{ email: 'DEFAULT', read: 0 }], public_cover_media: cover });
      const bare = await create(w, 'No cover', w.rootUuid, { password: 'secret' });
      const made = await waitForRenditions(w, [cover, other]);
      // The API refuses a media that is not the owner's.
      await expect(w.client.request('PUT', `/websites/${w.urlname}/galleries/${bare}.xml`, { 'gallery[public_cover_media]': '00000000-0000-4000-8000-000000000000' })).rejects.toThrow(
        /gallery\[public_cover_media\]: .* is not a media of this website's owner/,
      );
      // Take the cover out of the public gallery: it is public only as the chosen cover now.
      await w.client.request('PUT', `/websites/${w.urlname}/galleries/${open}.xml`, { 'gallery[password]': 'elsewhere' });

      // Client galleries are on the home page when chosen as featured (issue 30).
      await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[featured][0][gallery]': hidden, 'website[featured][1][gallery]': bare });
      const root = await visit(w.svc, `${home}/`);
      await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[featured][0][gallery]': '' });
      const card = (name: string) => new RegExp(`<li><a href="${home}/-/${name}">(.*?)</a></li>`).exec(root.body)?.[1] ?? '';
      expect(card('private-work')).toContain('<svg class="lock"');
      expect(card('private-work')).toContain('Private work<span class="sr"> (protected)</span>');
      expect(card('private-work')).toMatch(/<span class="date">\d{1,2} \w+ \d{4}<\/span>/);
      expect(card('no-cover')).toContain('<span class="cover none"></span>');
      const password = await visit(w.svc, `${home}/-/private-work`);
      const signin = await visit(w.svc, `${home}/-/clients-only`);
      expect([password.status, signin.status]).toEqual([403, 403]);
      for (const p of [password, signin]) {
        expect(p.body).toContain('<svg class="lock"');
        expect(p.body).toMatch(/<p class="date"><time datetime="[^"]+">\d{1,2} \w+ \d{4}<\/time><\/p>/);
      }
      expect(password.body).toContain('Private work</h1>');
      expect(signin.body).toContain('Clients only</h1>');
      // The sign-in form that page links to shows the same gallery; a return address open to all shows none.
      const form = await visit(w.svc, `${home}/_signin?back=${encodeURIComponent(`${home}/-/clients-only`)}`);
      expect(form.status).toBe(200);
      expect(form.body).toContain('<svg class="lock"');
      expect(form.body).toContain('Clients only</h1>');
      const openForm = await visit(w.svc, `${home}/_signin?back=${encodeURIComponent(`${home}/`)}`);
      expect(openForm.status).toBe(200);
      expect(openForm.body).not.toContain('<svg class="lock"');
      expect(made).toBe(true);
      const coverImg = /<img [^>]*src="(\/files\/[^"?]+)"/.exec(card('private-work'))![1];
      expect(password.body).toContain(`<img src="${coverImg}"`);
      expect(signin.body).toContain(`<img src="${coverImg}"`);
      expect(form.body).toContain(`<img src="${coverImg}"`);
      // Anyone may fetch the chosen cover's renditions unsigned; never another photo of the gallery.
      expect((await fetch(w.svc.url + coverImg)).status).toBe(200);
      const otherKey = (await w.svc.db.selectFrom('renditions as r').innerJoin('medias as m', 'm.id', 'r.media_id').select('r.storage_key').where('m.uuid', '=', other).executeTakeFirstOrThrow()).storage_key;
      expect((await fetch(`${w.svc.url}/files/${otherKey}`)).status).toBe(404);
      expect(password.body).not.toContain(otherKey);
    });

    it('a blank public cover clears it, and deleting the media takes it away', async () => {
      const [a, b] = await publishMedias(w.svc.db, w.user, w.rootUuid, ['pc-a.jpg', 'pc-b.jpg']);
      const g = await create(w, 'Locked cover', w.rootUuid, { password: 'secret', public_cover_media: a });
      const cover = () => w.svc.db.selectFrom('galleries').select('public_cover_media_id').where('uuid', '=', g).executeTakeFirstOrThrow();
      const idOf = async (uuid: string) => (await w.svc.db.selectFrom('medias').select('id').where('uuid', '=', uuid).executeTakeFirstOrThrow()).id;
      expect((await cover()).public_cover_media_id).toBe(await idOf(a));
      await w.client.request('PUT', `/websites/${w.urlname}/galleries/${g}.xml`, { 'gallery[public_cover_media]': '' });
      expect((await cover()).public_cover_media_id).toBeNull();
      await w.client.request('PUT', `/websites/${w.urlname}/galleries/${g}.xml`, { 'gallery[public_cover_media]': b });
      expect((await cover()).public_cover_media_id).toBe(await idOf(b));
      await w.client.request('DELETE', `/medias/${b}.xml`);
      expect((await cover()).public_cover_media_id).toBeNull();
      expect((await visit(w.svc, `${home}/-/locked-cover`)).body).not.toContain('<img');
    });
  });

  describe('downloads', () => {
    it('names a downloaded rendition after the photo’s title, else its file name, never the hash', async () => {
      const g = await create(w, 'Downloads');
      const uuid = await uploadPhoto(w, g, 9, 700);
      if (!(await waitForRenditions(w, [uuid]))) return;
      const key = (await w.svc.db.selectFrom('renditions as r').innerJoin('medias as m', 'm.id', 'r.media_id').select(['r.storage_key', 'r.mime_type']).where('m.uuid', '=', uuid).executeTakeFirstOrThrow());
      const ext = key.mime_type === 'image/webp' ? 'webp' : 'jpg';
      const files = new FileUrls(w.svc.service.uploadSecret, w.svc.url);
      const fetchDownload = () => fetch(files.signed(key.storage_key, new Date(Date.now() + 3600_000), 'anonymous', g, true));
      const res = await fetchDownload();
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="Photo 10.${ext}"; filename*=UTF-8''Photo%2010.${ext}`);
      await w.svc.db.updateTable('medias').set({ title: null }).where('uuid', '=', uuid).execute();
      expect((await fetchDownload()).headers.get('content-disposition')).toBe(`attachment; filename="UPLOAD_0010.${ext}"; filename*=UTF-8''UPLOAD_0010.${ext}`);
      // Shown in place when not asked as a download.
      expect((await fetch(files.signed(key.storage_key, new Date(Date.now() + 3600_000), 'anonymous', g, false))).headers.get('content-disposition')).toBeNull();
    });

    it('puts the comp download on the photo links where the access list allows it, and the credit line', async () => {
      const g = await create(w, 'Comps', w.rootUuid, { acl: [{ email: 'DEFAULT', read: 1, comp_download: 1, hires_download: 0 }] });
      const none = await create(w, 'No comps', w.rootUuid, { acl: [{ email: 'DEFAULT', read: 1, comp_download: 0, hires_download: 0 }] });
      const [a] = await publishMedias(w.svc.db, w.user, g, ['a.jpg']);
      await publishMedias(w.svc.db, w.user, none, ['b.jpg']);
      await w.svc.db.updateTable('medias').set({ author: 'Ada Lens', copyright: '2026 Ada Lens' }).where('uuid', '=', a).execute();
      const page = await visit(w.svc, `${home}/-/comps`);
      expect(page.body).toContain('data-credit="© 2026 Ada Lens"');
      expect((await visit(w.svc, `${home}/-/no-comps`)).body).not.toContain('data-download');
      const media = await visit(w.svc, `${home}/-/comps/_/${a}`);
      // The media page shows the credit too (pages/media-facts.tsx).
      expect(media.body).toContain('Ada Lens');
    });
  });
});
