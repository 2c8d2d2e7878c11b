// Finding galleries in the overview (docs/studio.md "The galleries' grid"), on SQLite and
// PostgreSQL: the GET form's search (part of the name, any case, `%` and `_` as themselves), its
// four orders and six state filters, alone and together; pages of 48 whose links keep the query;
// wrong values a 422 with the form and the message, as the orders' filters; another
// photographer's galleries never shown; what was typed shown back escaped. The header's
// Galleries opens the grid (the tree, when it was the view last opened in that browser).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishMedias } from '../api/galleries-fixtures.js';
import { createGallery } from '../support/media.js';
import { eachDatabase } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';
import { fieldError, StudioBrowser } from './studio-support.js';

eachDatabase((kind) => {
  let w: World;
  let b: StudioBrowser;
  const g: Record<string, string> = {};
  const grid = (query = '') => `/studio/websites/${w.urlname}/galleries/grid${query}`;

  /** The galleries' names on a page, in its order (a card's title link; the home gallery says so). */
  const names = (body: string) => [...body.matchAll(/<h2 class="gtitle"><a href="\/studio\/galleries\/[0-9a-f-]{36}">([^<]*)<\/a>/g)].map((m) => m[1]);
  const shown = async (query: string) => {
    const page = await b.get(grid(query));
    expect(page.status, query).toBe(200);
    return names(page.body);
  };

  beforeAll(async () => {
    w = await startWorld(kind);
    b = await new StudioBrowser(w.svc).signIn(w.user);
    g.weddings = await createGallery(w, 'Weddings');
    g.anna = await createGallery(w, 'Anna & Ben wedding', g.weddings);
    g.carla = await createGallery(w, 'Carla WEDDING', g.weddings);
    g.portraits = await createGallery(w, 'Portraits');
    g.old = await createGallery(w, 'Old event');
    g.sale = await createGallery(w, 'Prints 50%_off');
    g.quoted = await createGallery(w, 'Ann\'s "big" day');
    // Creation days set apart, so that the orders by age are certain: the home first, then in this order.
    const order = [w.rootUuid, g.weddings, g.anna, g.carla, g.portraits, g.old, g.sale, g.quoted];
    for (const [i, uuid] of order.entries()) {
      await w.svc.db.updateTable('galleries').set({ created_at: `2026-01-${String(i + 1).padStart(2, '0')}T10:00:00.000Z` }).where('uuid', '=', uuid).execute();
    }
    const photos = async (gallery: string, n: number) => publishMedias(w.svc.db, w.user, gallery, Array.from({ length: n }, (_, i) => `p-${gallery.slice(0, 8)}-${i}.jpg`));
    await photos(g.anna, 3);
    await photos(g.carla, 1);
    await photos(g.portraits, 2);
    const settings = (uuid: string) => `/studio/galleries/${uuid}`;
    expect((await b.submit(settings(g.anna), `${settings(g.anna)}/password`, { password: 'open sesame' })).status).toBe(303);
    expect((await b.submit(settings(g.carla), `${settings(g.carla)}/acl`, { default_read: '0', new_email: 'ann@example.com', new_read: '1' })).status).toBe(303);
    await w.svc.db.updateTable('galleries').set({ hidden: 1 }).where('uuid', '=', g.portraits).execute();
    await w.svc.db.updateTable('galleries').set({ expires_at: '2020-01-01T00:00:00.000Z' }).where('uuid', '=', g.old).execute();
    // Another photographer's website, whose galleries would match every search below.
    const stranger = await w.svc.user();
    const theirs = await w.svc.website(stranger);
    await w.svc.db.updateTable('galleries').set({ name: 'Stranger wedding 50%_off' }).where('website_id', '=', (await w.svc.db.selectFrom('websites').select('id').where('urlname', '=', theirs.urlname).executeTakeFirstOrThrow()).id).execute();
    g.strangerSite = theirs.urlname;
    homeName = (await w.svc.db.selectFrom('galleries').select('name').where('uuid', '=', w.rootUuid).executeTakeFirstOrThrow()).name;
  });
  afterAll(async () => {
    await w?.svc.close();
  });

  let homeName = '';
  /** A name with quotes, as the page writes it. */
  const ANN = 'Ann\'s &quot;big&quot; day';
  const home = () => `${homeName} (home)`;

  describe('the order', () => {
    it('is newest first by default and when asked; oldest first; by name; most photos first', async () => {
      const newest = [ANN, 'Prints 50%_off', 'Old event', 'Portraits', 'Carla WEDDING', 'Anna &amp; Ben wedding', 'Weddings', home()];
      expect(await shown('')).toEqual(newest);
      expect(await shown('?sort=newest')).toEqual(newest);
      expect(await shown('?sort=oldest')).toEqual([...newest].reverse());
      expect(await shown('?sort=name')).toEqual([ANN, 'Anna &amp; Ben wedding', 'Carla WEDDING', home(), 'Old event', 'Portraits', 'Prints 50%_off', 'Weddings'].sort(byName));
      // The home holds all six photos, Weddings the four of its two galleries; no photo: by name.
      expect(await shown('?sort=photos')).toEqual([home(), 'Weddings', 'Anna &amp; Ben wedding', 'Portraits', 'Carla WEDDING', ANN, 'Old event', 'Prints 50%_off']);
      const page = await b.get(grid('?sort=photos'));
      expect(page.body).toContain('<option value="photos" selected>Most photos</option>');
      expect(page.body).toContain('8 galleries');
    });
  });

  // Names as the database's LOWER() sorts them (ASCII here): case-insensitive, punctuation first.
  const byName = (a: string, b: string) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0);

  describe('the search', () => {
    it('finds a part of the name in any case, trimmed; % and _ are themselves', async () => {
      expect(await shown('?q=WEDDING')).toEqual(['Carla WEDDING', 'Anna &amp; Ben wedding', 'Weddings']);
      expect(await shown('?q=%20%20wedd%20')).toEqual(['Carla WEDDING', 'Anna &amp; Ben wedding', 'Weddings']);
      expect(await shown('?q=%25')).toEqual(['Prints 50%_off']);
      expect(await shown('?q=_')).toEqual(['Prints 50%_off']);
      expect(await shown('?q=0%25_o')).toEqual(['Prints 50%_off']);
      expect(await shown('?q=%22big%22')).toEqual([ANN]);
      expect(await shown('?q=nothing+like+this')).toEqual([]);
      expect((await b.get(grid('?q=nothing+like+this'))).body).toContain('No gallery matches.');
      // Blank asks for nothing.
      expect(await shown('?q=&sort=&state=')).toHaveLength(8);
    });

    it('shows back what was typed escaped, a script and quotes included', async () => {
      const typed = '<script>alert("x")</script>\'';
      const page = await b.get(grid(`?q=${encodeURIComponent(typed)}`));
      expect(page.status).toBe(200);
      expect(page.body).not.toContain('<script>alert');
      expect(page.body).toContain(`value="&lt;script>alert(&quot;x&quot;)&lt;/script>'"`);
      // A refused order is quoted in its message, escaped too.
      const refused = await b.get(grid(`?sort=${encodeURIComponent('"><script>x</script>')}`));
      expect(refused.status).toBe(422);
      expect(refused.body).not.toContain('<script>x');
      expect(fieldError(refused.body, 'sort')).toContain('&lt;script>x&lt;/script>');
    });
  });

  describe('the state filter', () => {
    it('shows the galleries in each state, as their cards say it', async () => {
      expect(await shown('?state=all')).toHaveLength(8);
      // Public: no password, no access list, not expired; hidden or not (Portraits says Public and Hidden).
      expect(await shown('?state=public')).toEqual([ANN, 'Prints 50%_off', 'Portraits', 'Weddings', home()]);
      expect(await shown('?state=password')).toEqual(['Anna &amp; Ben wedding']);
      expect(await shown('?state=access-list')).toEqual(['Carla WEDDING']);
      expect(await shown('?state=expired')).toEqual(['Old event']);
      expect(await shown('?state=hidden')).toEqual(['Portraits']);
      const page = await b.get(grid('?state=hidden'));
      expect(page.body).toContain('<option value="hidden" selected>Hidden</option>');
      expect(page.body).toMatch(/<li class="state public">Public<\/li><li class="state hidden">Hidden<\/li>/);
    });

    it('combines with the search and the order', async () => {
      expect(await shown('?q=wedding&state=password')).toEqual(['Anna &amp; Ben wedding']);
      expect(await shown('?q=wedding&state=public&sort=name')).toEqual(['Weddings']);
      expect(await shown('?q=wedding&state=all&sort=photos')).toEqual(['Weddings', 'Anna &amp; Ben wedding', 'Carla WEDDING']);
      expect(await shown('?q=wedding&sort=oldest')).toEqual(['Weddings', 'Anna &amp; Ben wedding', 'Carla WEDDING']);
      expect(await shown('?q=s&state=public&sort=photos')).toEqual([home(), 'Weddings', 'Portraits', ANN, 'Prints 50%_off']);
      expect(await shown('?q=wedding&state=expired')).toEqual([]);
    });
  });

  describe('wrong values', () => {
    it('answers a wrong order, state or search with a 422 naming the field, the form kept, nothing listed', async () => {
      for (const [query, field, words] of [
        ['?sort=largest', 'sort', 'The order must be one of newest, oldest, name, photos'],
        ['?state=secret&q=wedding', 'state', 'The state must be one of all, public, password, access-list, expired, hidden'],
        [`?q=${'x'.repeat(101)}`, 'q', 'The search must be at most 100 characters'],
        ['?q=a%01b', 'q', 'The search must be one line of text'],
      ] as const) {
        const page = await b.get(grid(query));
        expect(page.status, query).toBe(422);
        expect(fieldError(page.body, field), query).toContain(words);
        expect(page.body).toContain(`aria-invalid="true"`);
        expect(names(page.body), query).toEqual([]);
        expect(page.body).toContain('The search could not be read: nothing is shown.');
      }
      // The search typed beside a wrong state stays in its box.
      expect((await b.get(grid('?state=secret&q=wedding'))).body).toContain('name="q" value="wedding"');
    });

    it('reads a page number that is not one as the first page, and ignores names it does not know, as the other lists', async () => {
      for (const page of ['abc', '-3', '0', '1.5e9', '']) expect(await shown(`?page=${page}`), page).toHaveLength(8);
      expect(await shown('?colour=red&sort=name')).toHaveLength(8);
      // Far past the end: an empty page, not an error.
      const far = await b.get(grid('?page=100000000'));
      expect(far.status).toBe(200);
      expect(names(far.body)).toEqual([]);
    });
  });

  describe('another photographer', () => {
    it('never shows their galleries, whatever the query, and their grid is a 404', async () => {
      for (const query of ['?q=stranger', '?q=%25_off', '?sort=photos&state=public', '?sort=name&page=1']) {
        expect((await shown(query)).join('|'), query).not.toContain('Stranger');
      }
      expect((await b.get(`/studio/websites/${g.strangerSite}/galleries/grid?q=stranger&sort=name`)).status).toBe(404);
      expect((await b.get(`/studio/websites/${g.strangerSite}/galleries/grid?sort=bogus`)).status).toBe(404);
    });
  });

  describe('the header', () => {
    it('opens the grid from Galleries (one website), the switch still there', async () => {
      const res = await b.get('/studio/galleries');
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`/studio/websites/${w.urlname}/galleries/grid`);
      const page = await b.get(res.headers.get('location')!);
      expect(page.body).toContain(`<a href="/studio/websites/${w.urlname}/galleries">Tree</a>`);
    });

    it('opens the tree instead once the tree was the view opened last in this browser, the grid again after the grid', async () => {
      const tree = await b.get(`/studio/websites/${w.urlname}/galleries`);
      expect(tree.setCookies.join('\n')).toMatch(/studio_galleries_view=tree;.*HttpOnly/i);
      expect((await b.get('/studio/galleries')).headers.get('location')).toBe(`/studio/websites/${w.urlname}/galleries`);
      expect((await b.get(`/studio/galleries?website=${w.urlname}`)).headers.get('location')).toBe(`/studio/websites/${w.urlname}/galleries`);
      // Only a change is sent: the tree again sets nothing.
      expect((await b.get(`/studio/websites/${w.urlname}/galleries`)).setCookies).toEqual([]);
      const grid_ = await b.get(grid('?sort=name'));
      expect(grid_.setCookies.join('\n')).toMatch(/studio_galleries_view=;.*Max-Age=0/i);
      expect((await b.get('/studio/galleries')).headers.get('location')).toBe(`/studio/websites/${w.urlname}/galleries/grid`);
      expect((await b.get(grid())).setCookies).toEqual([]);
    });
  });

  describe('pages', () => {
    it('shows 48 cards a page, its links keeping the search, the order and the filter', async () => {
      for (let i = 0; i < 50; i++) await createGallery(w, `Batch ${String(i).padStart(2, '0')}`);
      const first = await b.get(grid('?q=batch&sort=name&state=public'));
      const names1 = names(first.body);
      expect(names1).toHaveLength(48);
      expect(names1[0]).toBe('Batch 00');
      expect(names1[47]).toBe('Batch 47');
      expect(first.body).toContain('50 galleries, page 1 of 2');
      const next = /<a href="([^"]+)" rel="next">/.exec(first.body)![1].replace(/&amp;/g, '&');
      expect(next).toBe(grid('?q=batch&sort=name&state=public&page=2'));
      expect(first.body).not.toContain('rel="prev"');
      const second = await b.get(next);
      expect(names(second.body)).toEqual(['Batch 48', 'Batch 49']);
      expect(second.body).toContain('<option value="name" selected>');
      expect(second.body).toContain('name="q" value="batch"');
      const prev = /<a href="([^"]+)" rel="prev">/.exec(second.body)![1].replace(/&amp;/g, '&');
      expect(prev).toBe(grid('?q=batch&sort=name&state=public&page=1'));
      expect(second.body).not.toContain('rel="next"');
      // A search typed with characters a URL must carry encoded keeps them.
      const odd = await b.get(grid(`?q=${encodeURIComponent('a&b=c')}&page=2`));
      expect(odd.status).toBe(200);
      // Unfiltered: the 58 galleries over two pages, newest first.
      const all = await b.get(grid());
      expect(all.body).toContain('58 galleries, page 1 of 2');
      expect(/<a href="([^"]+)" rel="next">/.exec(all.body)![1]).toBe(grid('?page=2'));
      expect(names((await b.get(grid('?page=2'))).body)).toHaveLength(10);
    });
  });
});
