// The website's home page, an API extension (docs/website.md "Home page"; issue 30 item 6): the
// hero's photos and the featured galleries as `website[hero][<n>][media]` and
// `website[featured][<n>][gallery]`, their refusals (422 naming the field, foreign medias and
// galleries refused as unknown, nothing written), and what a visitor then sees, on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, find, text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { readsOf, shapeOf } from '../support/statements.js';
import { failure, startWorld, type World } from '../support/world.js';
import { create, publishMedias } from './galleries-fixtures.js';
import { uploadPhoto, visit, waitForRenditions } from '../site/site-support.js';

eachDatabase((kind) => {
  let w: World;
  const home = () => `/sites/${w.urlname}`;
  const g: Record<'travels' | 'family' | 'proofs' | 'weddings' | 'anna', string> = { travels: '', family: '', proofs: '', weddings: '', anna: '' };
  let photos: string[] = [];
  const put = (params: Record<string, string | string[]>) => w.client.request('PUT', `/websites/${w.urlname}.xml`, params);
  const details = async () => find((await w.client.request('GET', `/websites/${w.urlname}.xml`)).doc, 'website')!;

  beforeAll(async () => {
    w = await startWorld(kind, { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0' });
    g.travels = await create(w, 'Travels');
    g.family = await create(w, 'Family', w.rootUuid, { password: 'let me in' });
    g.proofs = await create(w, 'Proofs', w.rootUuid, { acl: [{ email: 'DEFAULT', read: 0, comp_download: 0, hires_download: 0 }, { email: 'c@example.com', read: 1, comp_download: 0, hires_download: 0 }] });
    g.weddings = await create(w, 'Weddings');
    g.anna = await create(w, 'Anna and Ben', g.weddings);
    // Two photos in Travels, one behind Family's password: a hero photo need not be public before.
    photos = [await uploadPhoto(w, g.travels, 1, 900), await uploadPhoto(w, g.travels, 2, 900), await uploadPhoto(w, g.family, 3, 900), await uploadPhoto(w, g.anna, 4, 900)];
    expect(await waitForRenditions(w, photos)).toBe(true);
  }, 180_000);
  afterAll(() => w?.svc.close());

  it('has no hero and no featured galleries by default; the home page shows the top-level galleries open to everyone', async () => {
    const site = await details();
    expect(all(site, 'hero/media')).toHaveLength(0);
    expect(text(site, 'hero-fit')).toBe('fill');
    expect(all(site, 'featured/gallery')).toHaveLength(0);
    const page = await visit(w.svc, `${home()}/`);
    expect(page.status).toBe(200);
    expect(page.body).not.toContain('class="hero');
    // Client galleries (a password, an access list) stay off the home page unless chosen.
    const cards = [...page.body.matchAll(/<ul class="subs featured">([\s\S]*?)<\/ul>/g)].map((m) => m[1]).join('');
    expect(cards).toContain('Travels');
    expect(cards).toContain('Weddings');
    expect(cards).not.toContain('Family');
    expect(cards).not.toContain('Proofs');
    // Photo counts; a gallery of galleries takes its cover from below (issue 30, defect 6).
    expect(cards).toMatch(/Travels<\/span><span class="count">2 photos<\/span>/);
    expect(/href="[^"]*\/-\/weddings">(.*?)<\/a>/.exec(cards)![1]).toContain('<img');
    // A client gallery is still at its address.
    expect((await visit(w.svc, `${home()}/-/family`)).status).toBe(403);
  });

  it('sets the hero and the featured galleries in the order of their numbers, and the details show them', async () => {
    const res = await put({
      'website[hero][5][media]': photos[1],
      'website[hero][2][media]': photos[2],
      'website[hero_fit]': 'FIT',
      'website[hero_headline]': 'Ann Lee <Photography>',
      'website[hero_tagline]': 'Weddings & light',
      'website[featured][1][gallery]': g.travels,
      'website[featured][0][gallery]': g.family,
      'website[featured][7][gallery]': g.anna.toUpperCase(),
    });
    const s = find(res.doc, 'website')!;
    expect(all(s, 'hero/media').map((m) => m.text)).toEqual([photos[2], photos[1]]);
    expect(text(s, 'hero-fit')).toBe('fit');
    expect(text(s, 'hero-headline')).toBe('Ann Lee <Photography>');
    expect(text(s, 'hero-tagline')).toBe('Weddings & light');
    expect(all(s, 'featured/gallery').map((m) => m.text)).toEqual([g.family, g.travels, g.anna]);
    // Other settings are left as they were; a PUT of the title leaves the lists.
    const again = find((await put({ 'website[title]': 'Ann Lee' })).doc, 'website')!;
    expect(all(again, 'hero/media')).toHaveLength(2);
    expect(all(again, 'featured/gallery')).toHaveLength(3);
  });

  it('shows the hero full-bleed (the first image eager and high priority, the rest lazy, every size in srcset) and the chosen galleries in order', async () => {
    const page = await visit(w.svc, `${home()}/`);
    const hero = /<section class="hero fit worded"[^>]*>([\s\S]*?)<\/section>/.exec(page.body);
    expect(hero).not.toBeNull();
    expect(hero![0]).toContain('aria-roledescription="carousel"');
    expect(hero![1]).toContain('Ann Lee &lt;Photography>');
    const imgs = [...hero![1].matchAll(/<img [^>]*>/g)].map((m) => m[0]);
    expect(imgs).toHaveLength(2);
    expect(imgs[0]).toMatch(/loading="eager"/);
    expect(imgs[0]).toMatch(/fetchpriority="high"/);
    expect(imgs[0]).toMatch(/sizes="100vw"/);
    expect(imgs[1]).toMatch(/loading="lazy"/);
    expect(/srcset="([^"]*)"/.exec(imgs[0])![1].split(',').length).toBeGreaterThanOrEqual(2);
    // The photo behind Family's password is public as a hero photo: /files serves it unsigned.
    const src = /src="([^"]+)"/.exec(imgs[0])![1].replace(/&amp;/g, '&');
    expect(src).not.toContain('?');
    expect((await visit(w.svc, src.replace(/^https?:\/\/[^/]+/, ''))).status).toBe(200);
    // Featured: Family (chosen: shown locked, no photo of it), Travels, Anna and Ben (a sub-gallery), in that order.
    const cards = /<ul class="subs featured">([\s\S]*?)<\/ul>/.exec(page.body)![1];
    const order = [...cards.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1].replace(`${home()}/-/`, ''));
    expect(order).toEqual(['family', 'travels', 'weddings/anna-and-ben']);
    expect(cards).toContain('(protected)');
    // The page's other pages have no hero.
    expect((await visit(w.svc, `${home()}/-/travels`)).body).not.toContain('class="hero');
  });

  it('refuses wrong values with a 422 naming the field, writing nothing', async () => {
    const before = (await w.client.request('GET', `/websites/${w.urlname}.xml`)).body.replace(/<request>[\s\S]*$/, '');
    const other = await w.svc.user();
    const theirSite = await w.svc.website(other);
    const theirs = await uploadPhoto({ client: w.svc.client(w.app, other) }, theirSite.rootGalleryUuid, 5, 400);
    const theirGallery = text((await w.svc.client(w.app, other).createGallery(theirSite.urlname, { name: 'Theirs', parent: theirSite.rootGalleryUuid })).doc, 'gallery/uuid')!;
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'website[hero][0][media]': 'not-a-uuid' }, 'website[hero]'],
      [{ 'website[hero][0][media]': theirs }, 'website[hero]'],
      [{ 'website[hero][0][media]': photos[0], 'website[hero][1][media]': photos[0] }, 'website[hero]'],
      [{ 'website[hero][x][media]': photos[0] }, 'website[hero]'],
      [Object.fromEntries(Array.from({ length: 13 }, (_, i) => [`website[hero][${i}][media]`, `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`])), 'website[hero]'],
      [{ 'website[hero_fit]': 'stretch' }, 'website[hero_fit]'],
      [{ 'website[hero_headline]': 'x'.repeat(121) }, 'website[hero_headline]'],
      [{ 'website[featured][0][gallery]': theirGallery }, 'website[featured]'],
      [{ 'website[featured][0][gallery]': photos[0] }, 'website[featured]'],
      // A valid list with a bad one beside it: nothing of it is written.
      [{ 'website[hero][0][media]': photos[0], 'website[featured][0][gallery]': theirGallery }, 'website[featured]'],
    ];
    for (const [params, name] of cases) {
      const f = await failure(put(params));
      expect([f.status, f.message.includes(name)], JSON.stringify(params).slice(0, 200)).toEqual([422, true]);
    }
    expect((await w.client.request('GET', `/websites/${w.urlname}.xml`)).body.replace(/<request>[\s\S]*$/, '')).toBe(before);
    // An unknown sub-field is a 400, as everywhere.
    expect((await failure(put({ 'website[hero][0][gallery]': g.travels }))).status).toBe(400);
    // Another owner's website is a 404 whatever the values.
    expect((await failure(w.client.request('PUT', `/websites/${theirSite.urlname}.xml`, { 'website[hero][0][media]': photos[0] }))).status).toBe(404);
  });

  it('clears the hero with one blank entry, and the featured galleries the same way', async () => {
    const s = find((await put({ 'website[hero][0][media]': '', 'website[featured][0][gallery]': '' })).doc, 'website')!;
    expect(all(s, 'hero/media')).toHaveLength(0);
    expect(all(s, 'featured/gallery')).toHaveLength(0);
    const page = await visit(w.svc, `${home()}/`);
    expect(page.body).not.toContain('class="hero');
    expect(page.body).not.toContain('>Family<');
  });

  describe('a deleted media or gallery', () => {
    it('is simply not shown, and the details no longer list it', async () => {
      await put({ 'website[hero][0][media]': photos[3], 'website[hero][1][media]': photos[0], 'website[featured][0][gallery]': g.anna, 'website[featured][1][gallery]': g.travels });
      await w.client.deleteGallery(w.urlname, g.anna);
      await w.svc.db.updateTable('medias').set({ status: 'pending' }).where('uuid', '=', photos[3]).execute();
      const page = await visit(w.svc, `${home()}/`);
      const hero = /<section class="hero[^"]*"[^>]*>([\s\S]*?)<\/section>/.exec(page.body)![1];
      expect([...hero.matchAll(/<img /g)]).toHaveLength(1);
      expect(hero).not.toContain('aria-roledescription');
    });
  });

  it('costs the same statements whatever the library holds (pages cost their slice)', async () => {
    /** The statements one anonymous visit of the home page sends (test/support/statements.ts: on SQLite the handle's too). */
    const statements = async (): Promise<string[]> => {
      const { answer, statements: seen } = await readsOf(kind, w.svc.db, () => visit(w.svc, `${home()}/`));
      expect(answer.status).toBe(200);
      return seen;
    };
    const featured = { 'website[hero][0][media]': photos[0], 'website[hero][1][media]': photos[1], 'website[featured][0][gallery]': g.travels, 'website[featured][1][gallery]': g.weddings, 'website[featured][2][gallery]': g.family };
    const byDefault = { 'website[featured][0][gallery]': '' };
    const measure = async () => {
      await put(featured);
      await statements();
      const chosen = await statements();
      await put(byDefault);
      await statements();
      return { chosen, byDefault: await statements() };
    };
    const small = await measure();
    // Twenty more top-level galleries of thirty photos each (the depth of covers from below is bounded apart: four levels).
    for (let i = 0; i < 20; i++) await publishMedias(w.svc.db, w.user, await create(w, `More ${i}`), Array.from({ length: 30 }, (_, k) => `more-${i}-${k}.jpg`));
    const big = await measure();
    // The same statements (a list's length aside: `in ($1, $2…)`).
    const shape = shapeOf;
    expect(shape(big.chosen)).toEqual(shape(small.chosen));
    expect(shape(big.byDefault)).toEqual(shape(small.byDefault));
    // Bounded: a home page is a handful of statements, none of them a gallery's whole list of medias.
    expect(big.byDefault.length).toBeLessThanOrEqual(30);
    for (const q of [...big.chosen, ...big.byDefault]) expect(q).not.toMatch(/from "media_galleries"(?![\s\S]*"gallery_id" in)/);
  });
});
