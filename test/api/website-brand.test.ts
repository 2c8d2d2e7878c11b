// The website's brand and pages, an API extension (docs/website.md "Brand and pages"):
// settings over HTTP, their refusals, pages in Markdown (sanitised), and what a visitor
// then sees (header, navigation, footer, theme, logo), on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, find, int, isNil, text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { failure, startWorld, type World } from '../support/world.js';
import { uploadLogo } from '../site/brand-support.js';
import { uploadPhoto, visit, waitForRenditions } from '../site/site-support.js';
import { contrast, readableOn, textOn } from '../../src/site/look/theme.js';

describe('the accent colour reads on its background (WCAG AA)', () => {
  it('keeps a readable accent, darkens a pale one on light, lightens a dark one on dark, and picks the text on it', () => {
    expect(readableOn('#0b57d0', '#ffffff')).toBe('#0b57d0');
    for (const accent of ['#ffff00', '#f0c000', '#88ccff', '#777777', '#000000', '#1020a0', '#ff0000']) {
      for (const bg of ['#ffffff', '#111213']) expect(contrast(readableOn(accent, bg), bg)).toBeGreaterThanOrEqual(4.5);
      expect(contrast(textOn(accent), accent)).toBeGreaterThanOrEqual(4.5);
    }
  });
});

eachDatabase((kind) => {
  let w: World;
  const site = () => `/sites/${w.urlname}`;
  beforeAll(async () => {
    w = await startWorld(kind);
  });
  afterAll(() => w?.svc.close());

  it('has defaults, and a client that knows nothing of the extension sees the websites as before', async () => {
    const res = await w.client.request('GET', `/websites/${w.urlname}.xml`);
    const site = find(res.doc, 'website')!;
    expect(text(site, 'urlname')).toBe(w.urlname);
    expect(text(site, 'root-gallery-uuid')).toBe(w.rootUuid);
    expect(text(site, 'theme')).toBe('modern');
    expect(text(site, 'color-scheme')).toBe('light');
    expect(isNil(find(site, 'accent-color')!)).toBe(true);
    expect(isNil(find(site, 'logo')!)).toBe(true);
    expect(all(site, 'pages/page')).toHaveLength(0);
    const list = await w.client.request('GET', '/websites.xml', { view: 'details' });
    const listed = all(list.doc, 'websites/website');
    expect(listed.map((x) => x.children.map((c) => c.name))).toEqual([['uuid', 'urlname', 'title', 'hostname', 'home-url', 'root-gallery-uuid', 'created-at', 'updated-at']]);
  });

  it('sets every setting, shows them in the details, and the site shows them', async () => {
    const logo = await uploadLogo(w);
    const res = await w.client.request('PUT', `/websites/${w.urlname}.xml`, {
      'website[title]': 'Ann Lee <Photography>',
      'website[tagline]': 'Weddings & portraits',
      'website[logo]': logo,
      'website[favicon]': logo,
      'website[color_scheme]': 'dark',
      'website[accent_color]': '#C2410C',
      'website[theme]': 'editorial',
      'website[credit]': 'Photographs by Ann Lee',
      'website[copyright]': '© 2026 Ann Lee. All rights reserved.',
      'website[contact_email]': 'ann@example.com',
      'website[social_links][]': ['https://www.instagram.com/annlee', 'https://example.org/blog'],
    });
    const s = find(res.doc, 'website')!;
    expect(text(res.doc, 'location')).toBe(`/websites/${w.urlname}.xml`);
    expect(text(s, 'title')).toBe('Ann Lee <Photography>');
    expect(text(s, 'tagline')).toBe('Weddings & portraits');
    expect(text(s, 'logo')).toBe(logo);
    expect(text(s, 'favicon')).toBe(logo);
    expect(text(s, 'color-scheme')).toBe('dark');
    expect(text(s, 'accent-color')).toBe('#c2410c');
    expect(text(s, 'theme')).toBe('editorial');
    expect(text(s, 'contact-email')).toBe('ann@example.com');
    expect(all(s, 'social-links/social-link').map((n) => n.text)).toEqual(['https://www.instagram.com/annlee', 'https://example.org/blog']);
    const again = find((await w.client.request('GET', `/websites/${w.urlname}.xml`)).doc, 'website')!;
    expect(text(again, 'credit')).toBe('Photographs by Ann Lee');
    // The list's title follows.
    expect(text((await w.client.request('GET', '/websites.xml')).doc, 'websites/website/title')).toBe('Ann Lee <Photography>');

    await waitForRenditions(w, [logo]);
    const home = await visit(w.svc, `${site()}/`);
    expect(home.status).toBe(200);
    const b = home.body;
    // Escaped, in the header; the logo stands for the name.
    expect(b).toContain('alt="Ann Lee &lt;Photography>"');
    expect(b).not.toContain('<Photography>');
    expect(b).toContain('<span class="tagline">Weddings &amp; portraits</span>');
    expect(b).toMatch(/<img src="\/files\/[^"]+" srcset="[^"]+ 320w, [^"]+ 640w" sizes="\d+px" width="\d+" height="48"/);
    expect(b).toMatch(/<link rel="icon" href="\/files\/[^"]+" type="image\/webp"/);
    const theme = /<link rel="stylesheet" href="(\/_site\/theme-editorial-dark-c2410c-[0-9a-f]{16}\.css)"/.exec(b)?.[1];
    expect(theme).toBeDefined();
    expect(b).toContain('<p>© 2026 Ann Lee. All rights reserved.</p>');
    expect(b).toContain('<p>Photographs by Ann Lee</p>');
    expect(b).toContain('<a href="mailto:ann@example.com">ann@example.com</a>');
    expect(b).toContain('<a href="https://www.instagram.com/annlee" rel="me noopener noreferrer">Instagram</a>');
    expect(b).toContain('<a href="https://example.org/blog" rel="me noopener noreferrer">example.org</a>');
    // The theme stylesheet and its fonts: immutable, from this service only.
    const css = await fetch(w.svc.url + theme!);
    expect(css.status).toBe(200);
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const sheet = await css.text();
    expect(sheet).toContain('"Playfair Display Variable"');
    expect(sheet).toContain('--accent:#c2410c');
    const fonts = [...sheet.matchAll(/url\(([0-9a-f]{16}\.woff2)\)/g)].map((m) => m[1]);
    expect(new Set(fonts).size).toBe(2);
    for (const f of new Set(fonts)) {
      const font = await fetch(`${w.svc.url}/_site/${f}`);
      expect(font.status).toBe(200);
      expect(font.headers.get('content-type')).toBe('font/woff2');
      expect((await font.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
    }
    expect(sheet).not.toMatch(/https?:\/\//);
    expect(String(home.headers['content-security-policy'])).toContain("font-src 'self'");
    // A made-up or altered stylesheet address is a 404, not another stylesheet.
    expect((await fetch(w.svc.url + theme!.replace(/-[0-9a-f]{16}\.css$/, '-0000000000000000.css'))).status).toBe(404);
    // The logo's renditions are public though the media is in no gallery.
    const logoSrc = /<img src="(\/files\/[^"]+)"/.exec(b)![1];
    expect((await fetch(w.svc.url + logoSrc)).status).toBe(200);
  });

  it('refuses wrong values with a 422 naming them, and changes nothing', async () => {
    const before = (await w.client.request('GET', `/websites/${w.urlname}.xml`)).body.replace(/<request>[\s\S]*$/, '');
    const other = await w.svc.user();
    const otherWorld = { client: w.svc.client(w.app, other) };
    const theirs = await uploadPhoto(otherWorld, (await w.svc.website(other)).rootGalleryUuid, 3, 400);
    const cases: Array<[Record<string, string | string[]>, string]> = [
      [{ 'website[accent_color]': 'red' }, 'website[accent_color]'],
      [{ 'website[accent_color]': '#12345' }, 'website[accent_color]'],
      [{ 'website[accent_color]': '#1234567' }, 'website[accent_color]'],
      [{ 'website[color_scheme]': 'sepia' }, 'website[color_scheme]'],
      [{ 'website[theme]': 'comic-sans' }, 'website[theme]'],
      [{ 'website[title]': '   ' }, 'website[title]'],
      [{ 'website[title]': 'x'.repeat(256) }, 'website[title]'],
      [{ 'website[tagline]': 'two\nlines' }, 'website[tagline]'],
      [{ 'website[contact_email]': 'not an address' }, 'website[contact_email]'],
      [{ 'website[social_links][]': ['javascript:alert(1)'] }, 'website[social_links]'],
      [{ 'website[social_links][]': ['//evil.example/x'] }, 'website[social_links]'],
      [{ 'website[social_links][]': Array.from({ length: 9 }, (_, i) => `https://e.example/${i}`) }, 'website[social_links]'],
      [{ 'website[logo]': 'not-a-uuid' }, 'website[logo]'],
      [{ 'website[logo]': theirs }, 'website[logo]'],
      [{ 'website[theme]': 'classic', 'website[accent_color]': 'blue' }, 'website[accent_color]'],
    ];
    for (const [params, name] of cases) {
      const f = await failure(w.client.request('PUT', `/websites/${w.urlname}.xml`, params));
      expect([f.status, f.message.includes(name)], JSON.stringify(params)).toEqual([422, true]);
    }
    const after = (await w.client.request('GET', `/websites/${w.urlname}.xml`)).body.replace(/<request>[\s\S]*$/, '');
    expect(after).toBe(before);
    // An unknown parameter is a 400, as everywhere.
    expect((await failure(w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[font]': 'x' }))).status).toBe(400);
  });

  it("answers 404 for another owner's website, whatever the parameters, and for its pages", async () => {
    const other = await w.svc.user();
    const theirs = await w.svc.website(other);
    for (const [method, path, params] of [
      ['GET', `/websites/${theirs.urlname}.xml`, {}],
      ['PUT', `/websites/${theirs.urlname}.xml`, { 'website[title]': 'Mine now' }],
      ['PUT', `/websites/${theirs.urlname}.xml`, { 'website[accent_color]': 'wrong' }],
      ['GET', `/websites/${theirs.urlname}/pages.xml`, {}],
      ['PUT', `/websites/${theirs.urlname}/pages/about.xml`, { 'page[title]': 'About' }],
      ['PUT', `/websites/${theirs.urlname}/pages/about.xml`, { 'page[position]': 'x' }],
      ['GET', `/websites/${theirs.urlname}/pages/about.xml`, {}],
      ['DELETE', `/websites/${theirs.urlname}/pages/about.xml`, {}],
      ['GET', `/websites/no-such-site.xml`, {}],
    ] as const) {
      expect((await failure(w.client.request(method, path, params))).status, `${method} ${path}`).toBe(404);
    }
    const row = await w.svc.db.selectFrom('websites').select('title').where('urlname', '=', theirs.urlname).executeTakeFirstOrThrow();
    expect(row.title).not.toBe('Mine now');
  });

  it('writes Markdown pages, sanitised, shown in the navigation in their order; deletes them', async () => {
    const body = [
      '# Hello',
      '',
      'I photograph **weddings**. <script>alert("x")</script> <img src=x onerror="alert(1)">',
      '',
      '[bad](javascript:alert(1)) [data](data:text/html;base64,PHNjcmlwdD4=) [mail](mailto:ann@example.com) [site](https://example.org)',
      '',
      '<a href="javascript:alert(2)">raw</a> <iframe src="https://evil.example"></iframe>',
      '',
      '![pic](https://tracker.example/p.png)',
    ].join('\n');
    const put = await w.client.request('PUT', `/websites/${w.urlname}/pages/about.xml`, { 'page[title]': 'About me', 'page[body]': body, 'page[position]': 2 });
    expect(text(put.doc, 'message')).toBe('Page created.');
    expect(text(put.doc, 'page/home-url')).toBe(`${w.svc.url}${site()}/p/about`);
    await w.client.request('PUT', `/websites/${w.urlname}/pages/contact.xml`, { 'page[title]': 'Contact', 'page[body]': 'Write to [ann@example.com](mailto:ann@example.com).', 'page[position]': 1 });
    const changed = await w.client.request('PUT', `/websites/${w.urlname}/pages/contact.xml`, { 'page[position]': 1 });
    expect(text(changed.doc, 'message')).toBe('Page updated.');
    expect(text(changed.doc, 'page/body')).toBe('Write to [ann@example.com](mailto:ann@example.com).');
    const list = await w.client.request('GET', `/websites/${w.urlname}/pages.xml`);
    expect(all(list.doc, 'pages/page').map((p) => text(p, 'slug'))).toEqual(['contact', 'about']);
    expect(int(list.doc, 'pages/page/position')).toBe(1);
    expect(text((await w.client.request('GET', `/websites/${w.urlname}/pages/about.xml`)).doc, 'page/body')).toBe(body);

    const page = await visit(w.svc, `${site()}/p/about`);
    expect(page.status).toBe(200);
    const main = page.body.slice(page.body.indexOf('<main'), page.body.indexOf('</main>'));
    expect(main).toContain('<h1>About me</h1>');
    expect(main).toContain('<h2>Hello</h2>');
    expect(main).toContain('<strong>weddings</strong>');
    // Raw HTML is text, not markup: no element, attribute or link of it survives.
    const tags = [...main.matchAll(/<([a-z0-9]+)((?:\s[^>]*)?)>/gi)];
    expect(new Set(tags.map((t) => t[1]))).toEqual(new Set(['main', 'article', 'h1', 'div', 'h2', 'p', 'strong', 'a']));
    expect(new Set(tags.flatMap((t) => [...t[2].matchAll(/\s([a-z-]+)=/gi)].map((a) => a[1])))).toEqual(new Set(['id', 'class', 'href', 'rel']));
    expect([...main.matchAll(/href="([^"]*)"/g)].map((m) => m[1])).toEqual(['mailto:ann@example.com', 'https://example.org', 'https://evil.example']);
    expect(main).toContain('&lt;script&gt;');
    expect(main).toContain('href="mailto:ann@example.com"');
    expect(main).toContain('<a href="https://example.org" rel="noopener noreferrer nofollow">site</a>');
    // The whole page: no script at all (the CSP would refuse an inline one anyway).
    expect(page.body).not.toContain('<script');
    const nav = page.body.slice(page.body.indexOf('<nav class="site-nav"'), page.body.indexOf('</nav>'));
    expect([...nav.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1])).toEqual([`${site()}/`, `${site()}/p/contact`, `${site()}/p/about`]);
    expect(nav).toContain(`<a href="${site()}/p/about" aria-current="page">About me</a>`);
    // A query is sent to the page's one address; an unknown page or a bad slug is a 404 page.
    const q = await visit(w.svc, `${site()}/p/about?utm_source=x`);
    expect([q.status, q.headers.location]).toEqual([301, `${site()}/p/about`]);
    expect((await visit(w.svc, `${site()}/p/nope`)).status).toBe(404);
    expect((await visit(w.svc, `${site()}/p/Bad_Slug`)).status).toBe(404);
    // In the sitemap beside the galleries.
    const map = await visit(w.svc, `${site()}/sitemap.xml`);
    expect(map.status).toBe(200);
    expect(map.body).toContain(`<loc>${w.svc.url}${site()}/p/about</loc>`);
    expect(map.body).toContain(`<loc>${w.svc.url}${site()}/p/contact</loc>`);
    // Refusals of pages.
    expect((await failure(w.client.request('PUT', `/websites/${w.urlname}/pages/new-one.xml`, { 'page[body]': 'no title' }))).status).toBe(422);
    expect((await failure(w.client.request('PUT', `/websites/${w.urlname}/pages/Bad_Slug.xml`, { 'page[title]': 'x' }))).status).toBe(422);
    expect((await failure(w.client.request('PUT', `/websites/${w.urlname}/pages/about.xml`, { 'page[position]': '-1' }))).status).toBe(422);
    expect((await failure(w.client.request('PUT', `/websites/${w.urlname}/pages/about.xml`, { 'page[body]': 'x'.repeat(100_001) }))).status).toBe(422);
    expect((await failure(w.client.request('GET', `/websites/${w.urlname}/pages/nope.xml`))).status).toBe(404);

    await w.client.request('DELETE', `/websites/${w.urlname}/pages/about.xml`);
    expect((await visit(w.svc, `${site()}/p/about`)).status).toBe(404);
    expect((await visit(w.svc, `${site()}/`)).body).not.toContain('/p/about');
    expect((await visit(w.svc, `${site()}/sitemap.xml`)).body).not.toContain('/p/about');
    expect((await failure(w.client.request('DELETE', `/websites/${w.urlname}/pages/about.xml`))).status).toBe(404);
  });

  it("serves pages at a website's own host name too", async () => {
    const own = await w.svc.core.websites.create(w.user, { urlname: `own-${Date.now()}`, title: 'Own host', hostname: 'ann-photos.example' });
    await w.client.request('PUT', `/websites/${own.urlname}/pages/about.xml`, { 'page[title]': 'About', 'page[body]': 'Hi.' });
    const page = await visit(w.svc, '/p/about', { host: 'ann-photos.example' });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<link rel="canonical" href="https://ann-photos.example/p/about"/>');
    const nav = page.body.slice(page.body.indexOf('<nav class="site-nav"'), page.body.indexOf('</nav>'));
    expect([...nav.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1])).toEqual(['/', '/p/about']);
    expect((await visit(w.svc, '/p/nope', { host: 'ann-photos.example' })).status).toBe(404);
  });

  it('shows a new title and a renamed root gallery at once (the page cache follows)', async () => {
    const { svc } = w;
    // Served once, so the micro-cache holds it.
    const first = await visit(svc, `${site()}/`);
    expect(first.status).toBe(200);
    await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[title]': 'Renamed Studio', 'website[logo]': '' });
    const renamed = await visit(svc, `${site()}/`);
    expect(renamed.body).toContain('<span class="brand-title">Renamed Studio</span>');
    await w.client.request('PUT', `/websites/${w.urlname}/galleries/${w.rootUuid}.xml`, { 'gallery[name]': 'Portfolio' });
    const root = await visit(svc, `${site()}/`);
    expect(root.body).toContain('<h1>Portfolio</h1>');
    expect(root.body).toContain(`<a href="${site()}/" aria-current="page">Portfolio</a>`);
    expect(root.body).toContain('<title>Portfolio · Renamed Studio</title>');
  });
});
