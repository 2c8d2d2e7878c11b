// Finding galleries in the overview (docs/studio.md "The galleries' grid"), on SQLite and
// PostgreSQL: the GET form's search (part of the name, any case, `%` and `_` as themselves), its
// four orders and six state filters, alone and together; pages of 48 whose links keep the query;
// wrong values a 422 with the form and the message, as the orders' filters; another
// photographer's galleries never shown; what was typed shown back escaped. The header's
// Galleries opens the grid (the tree, when it was the view last opened in that browser).
// Then each card's state and the filter as the website enforces them, a protection above
// included, held gallery by gallery to what an anonymous visitor gets on the website; the tree too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishMedias } from '../api/galleries-fixtures.js';
import { createGallery } from '../support/media.js';
import { eachDatabase } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';
import { visit } from '../site/site-support.js';
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

// The effective state: a card's pill and the state filter say what the website enforces, a
// protection set on a gallery above included (src/site/access.ts, decide and closedBy), and name
// the gallery it comes from. Held to what an anonymous visitor gets at each gallery's page, so the
// studio's rule (GalleriesRepository, effectiveCte) and the website's cannot drift apart.
eachDatabase((kind) => {
  let w: World;
  let b: StudioBrowser;
  const g: Record<string, string> = {};
  const grid = (query = '') => `/studio/websites/${w.urlname}/galleries/grid${query}`;
  const settings = (uuid: string) => `/studio/galleries/${uuid}`;

  /** Each card's name and its pills' text (tags dropped), in page order. */
  const cards = (body: string) =>
    new Map(
      body
        .split('<li class="gcard')
        .slice(1)
        .map((card) => {
          const name = /<h2 class="gtitle"><a [^>]*>([^<]*)<\/a>/.exec(card)![1];
          const pills = [...card.matchAll(/<li class="state [^"]*"[^>]*>(.*?)<\/li>/g)].map((m) => m[1].replace(/<[^>]+>/g, ''));
          return [name, pills] as const;
        }),
    );
  const shown = async (query: string) => [...cards((await b.get(grid(`${query}&sort=name`))).body).keys()];

  beforeAll(async () => {
    w = await startWorld(kind, { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0' });
    b = await new StudioBrowser(w.svc).signIn(w.user);
    const make = async (key: string, name: string, parent?: string) => (g[key] = await createGallery(w, name, parent ? g[parent] : w.rootUuid));
    await make('smith', 'Smith wedding');
    await make('ceremony', 'Ceremony', 'smith');
    await make('vows', 'Vows', 'ceremony');
    await make('smithList', 'Smith guests', 'smith');
    await make('clients', 'Clients');
    await make('jones', 'Jones', 'clients');
    await make('jonesAlbum', 'Jones album', 'jones');
    await make('open', 'Open list');
    await make('openChild', 'Open child', 'open');
    await make('openDeep', 'Open deep', 'openChild');
    await make('archive', 'Archive');
    await make('archive19', 'Archive 2019', 'archive');
    await make('archiveDeep', 'Archive deep', 'archive19');
    await make('secret', 'Secret');
    await make('secretChild', 'Secret child', 'secret');
    await make('later', 'Later');
    const password = async (key: string) => expect((await b.submit(settings(g[key]), `${settings(g[key])}/password`, { password: 'open sesame' })).status).toBe(303);
    const list = async (key: string, everyone: '0' | '1') =>
      expect((await b.submit(settings(g[key]), `${settings(g[key])}/acl`, { default_read: everyone, new_email: 'ann@example.com', new_read: '1' })).status).toBe(303);
    // A password above an access list, and an access list above a password: the one nearer the root stops the visitor first.
    await password('smith');
    await list('smithList', '0');
    await list('clients', '0');
    await password('jones');
    // An access list every visitor may read: open to all; a password below it is that gallery's own.
    await list('open', '1');
    await password('openChild');
    // Expired above a password: closed, whatever the password.
    await password('archive19');
    await w.svc.db.updateTable('galleries').set({ expires_at: '2020-01-01T00:00:00.000Z' }).where('uuid', '=', g.archive).execute();
    await w.svc.db.updateTable('galleries').set({ expires_at: '2090-01-01T00:00:00.000Z' }).where('uuid', '=', g.later).execute();
    await w.svc.db.updateTable('galleries').set({ hidden: 1 }).where('uuid', '=', g.secret).execute();
  });
  afterAll(async () => {
    await w?.svc.close();
  });

  it('shows each card the state the website enforces, naming the gallery above it comes from', async () => {
    const shownCards = cards((await b.get(grid('?sort=name'))).body);
    expect(Object.fromEntries(shownCards)).toMatchObject({
      'Smith wedding': ['Password'],
      Ceremony: ['Password (from Smith wedding)'],
      Vows: ['Password (from Smith wedding)'],
      'Smith guests': ['Password (from Smith wedding)'],
      Clients: ['Access list'],
      Jones: ['Access list (from Clients)'],
      'Jones album': ['Access list (from Clients)'],
      'Open list': ['Public'],
      'Open child': ['Password'],
      'Open deep': ['Password (from Open child)'],
      Archive: ['Expired'],
      'Archive 2019': ['Expired (from Archive)'],
      'Archive deep': ['Expired (from Archive)'],
      Secret: ['Public', 'Hidden'],
      'Secret child': ['Public', 'Hidden (from Secret)'],
      Later: ['Public'],
    });
    // The whole name stays readable where a phone cuts the pill short.
    expect((await b.get(grid('?q=vows'))).body).toContain('<li class="state locked" title="Password, set on Smith wedding">');
  });

  it('filters by that state', async () => {
    expect(await shown('?state=password')).toEqual(['Ceremony', 'Open child', 'Open deep', 'Smith guests', 'Smith wedding', 'Vows']);
    expect(await shown('?state=access-list')).toEqual(['Clients', 'Jones', 'Jones album']);
    expect(await shown('?state=expired')).toEqual(['Archive', 'Archive 2019', 'Archive deep']);
    expect(await shown('?state=hidden')).toEqual(['Secret', 'Secret child']);
    expect((await shown('?state=public')).filter((n) => !n.endsWith('(home)'))).toEqual(['Later', 'Open list', 'Secret', 'Secret child']);
    // The most-photos order filters the same way (its own statement).
    expect((await b.get(grid('?state=password&sort=photos'))).body).toContain('6 galleries');
  });

  it('says, for every gallery, what an anonymous visitor gets at its page on the website', async () => {
    const rows = await w.svc.db.selectFrom('galleries').select(['name', 'full_url_path', 'parent_id']).where('uuid', 'in', Object.values(g)).execute();
    const studio = new Map<string, string>();
    for (const state of ['public', 'password', 'access-list', 'expired']) for (const name of await shown(`?state=${state}`)) studio.set(name, state);
    const home = `/sites/${w.urlname}`;
    const website = new Map<string, string>();
    for (const r of rows) {
      const page = await visit(w.svc, `${home}/-/${r.full_url_path}`);
      const met =
        page.status === 200 ? 'public'
        : page.status === 410 ? 'expired'
        : page.status === 403 && page.body.includes(`action="${home}/_password"`) ? 'password'
        : page.status === 403 && page.body.includes(`${home}/_signin?back=`) ? 'access-list'
        : `${page.status}`;
      website.set(r.name, met);
    }
    expect(website.size).toBe(16);
    expect(Object.fromEntries([...studio].filter(([n]) => website.has(n)))).toEqual(Object.fromEntries(website));
  });

  it('marks the tree the same way', async () => {
    const tree = (await b.get(`/studio/websites/${w.urlname}/galleries`)).body;
    const item = (uuid: string) => tree.slice(tree.indexOf(`id="g-${uuid}"`), tree.indexOf('class="actions"', tree.indexOf(`id="g-${uuid}"`)));
    expect(item(g.vows)).toContain('Password<span class="from"> (from Smith wedding)</span>');
    expect(item(g.jones)).toContain('Access list<span class="from"> (from Clients)</span>');
    expect(item(g.archiveDeep)).toContain('Closed<span class="from"> (from Archive)</span>');
    expect(item(g.secretChild)).toContain('Hidden<span class="from"> (from Secret)</span>');
    expect(item(g.later)).not.toContain('class="badge');
  });
});
