// Being shared and found (docs/website.md): the canonical address of every
// gallery and media page, Open Graph and Twitter card tags with a public
// 1200-px-class rendition, and schema.org JSON-LD on pages anyone may open;
// none of it on pages behind a password or an access list. The credit line,
// capture time and position on the media page. Over HTTP, both databases.
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { create } from '../api/galleries-fixtures.js';
import { taggedJpeg } from '../support/file-metadata.js';
import { eachDatabase } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';
import { cookieOf, visit, waitForRenditions } from './site-support.js';

const LICENSE = 'https://creativecommons.org/licenses/by-nc/4.0/';

/** The attribute values of the head's meta tags, by property or name (HTML escapes undone). */
function metaTags(html: string): Map<string, string> {
  const head = html.slice(0, html.indexOf('</head>'));
  const out = new Map<string, string>();
  for (const m of head.matchAll(/<meta (?:property|name)="([^"]+)" content="([^"]*)"\/?>/g)) out.set(m[1], unescape(m[2]));
  return out;
}

function unescape(s: string): string {
  return s.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}

function canonicalOf(html: string): string | undefined {
  const m = /<link rel="canonical" href="([^"]+)"\/?>/.exec(html);
  return m ? unescape(m[1]) : undefined;
}

/** The JSON-LD blocks of a page, parsed (a block that is not JSON fails the test). */
function jsonLd(html: string): Array<Record<string, unknown>> {
  return [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map((m) => JSON.parse(m[1]) as Record<string, unknown>);
}

function hasShareTags(html: string): boolean {
  return /property="og:|name="twitter:|application\/ld\+json/.test(html);
}

eachDatabase((kind) => {
  let w: World;
  let home: string;
  let photo: string;
  let plain: string;
  const g: Record<'open' | 'hidden' | 'locked' | 'clients', string> = { open: '', hidden: '', locked: '', clients: '' };

  beforeAll(async () => {
    w = await startWorld(kind, { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0' });
    home = `/sites/${w.urlname}`;
    g.open = await create(w, 'Shared', w.rootUuid, { description: 'Sea & fog, from Brest' });
    g.hidden = await create(w, 'By link', w.rootUuid, { hidden: 1 });
    g.locked = await create(w, 'Locked', w.rootUuid, { password: 'pw' });
    g.clients = await create(w, 'Clients', w.rootUuid, {
      acl: [
        { email: 'DEFAULT', read: 0, comp_download: 0, hires_download: 0 },
        { email: 'client@example.com', read: 1, comp_download: 0, hires_download: 0 },
      ],
    });
    const upload = async (data: Buffer, fields: Record<string, string | string[]>) => {
      const r = await w.client.request('POST', '/medias.xml', fields, { file: { field: 'media[content]', fileName: 'photo.jpg', contentType: 'image/jpeg', data } });
      return text(r.doc, 'media/uuid')!;
    };
    photo = await upload(
      await taggedJpeg({
        width: 1600,
        height: 1067,
        xmp: { title: 'Harbour at dawn', description: 'Fog over the water', creator: 'Ann Lee', rights: '© 2026 Ann Lee', subject: ['fog', 'sea'], webStatement: LICENSE, city: 'Brest', country: 'France' },
        exif: { shot: '2024:05:06 07:08:09', offset: '+02:00', gps: { lat: [48, 23, 30], latRef: 'N', lon: [4, 29, 0], lonRef: 'W' } },
      }),
      { 'media[publish_to_galleries]': [g.open, g.hidden, g.locked, g.clients] },
    );
    plain = await upload(await taggedJpeg({ width: 1500, height: 1000, seed: 3 }), { 'media[title]': 'Plain', 'media[publish_to_galleries]': [g.open] });
    await waitForRenditions(w, [photo, plain]);
  }, 180_000);
  afterAll(() => w?.svc.close());

  describe('a public gallery', () => {
    it('has its canonical address, a large-image card with a public JPEG of the 1280 rung, and an ImageGallery', async () => {
      const page = await visit(w.svc, `${home}/-/shared`);
      expect(page.status).toBe(200);
      const url = `${w.svc.url}${home}/-/shared`;
      expect(canonicalOf(page.body)).toBe(url);
      const tags = metaTags(page.body);
      expect(tags.get('og:url')).toBe(url);
      expect(tags.get('og:title')).toBe('Shared');
      expect(tags.get('og:description')).toBe('Sea & fog, from Brest');
      expect(tags.get('og:site_name')).toBeTruthy();
      expect(tags.get('twitter:card')).toBe('summary_large_image');
      // The first photo is the card's: a public, permanent, absolute address (no signature).
      const image = tags.get('og:image')!;
      expect(image).toMatch(new RegExp(`^${w.svc.url}/files/[^?]+\\.jpg$`));
      expect(tags.get('twitter:image')).toBe(image);
      expect(tags.get('og:image:alt')).toBe('Harbour at dawn');
      const res = await fetch(image);
      expect([res.status, res.headers.get('content-type')]).toEqual([200, 'image/jpeg']);
      const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      expect([String(meta.width), String(meta.height)]).toEqual([tags.get('og:image:width'), tags.get('og:image:height')]);
      expect(Math.max(meta.width!, meta.height!)).toBe(1280);

      const [ld] = jsonLd(page.body);
      expect(ld).toMatchObject({ '@context': 'https://schema.org', '@type': 'ImageGallery', name: 'Shared', url, description: 'Sea & fog, from Brest' });
      const images = ld.image as Array<Record<string, unknown>>;
      expect(images.map((i) => i.name)).toEqual(['Harbour at dawn', 'Plain']);
      expect(images[0]).toMatchObject({
        '@type': 'ImageObject',
        url: `${url}/_/${photo}`,
        contentUrl: image,
        creator: { '@type': 'Person', name: 'Ann Lee' },
        copyrightNotice: '© 2026 Ann Lee',
        license: LICENSE,
        width: 1280,
      });
      // Brief in a gallery: the rest is on the photo's own page.
      expect(Object.keys(images[0])).not.toContain('keywords');
      // Only what is set: the plain photo has no credit.
      expect(Object.keys(images[1])).not.toContain('creator');
      expect(Object.keys(images[1])).not.toContain('license');
      // The page allows no inline script: the JSON-LD block is data, never run.
      expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");
      expect(page.body).not.toMatch(/<script(?![^>]*(?:src="|type="application\/ld\+json"))[^>]*>/);
    });

    it('shows the credit line, capture time and position on the media page, with an ImageObject', async () => {
      const page = await visit(w.svc, `${home}/-/shared/_/${photo}`);
      expect(page.status).toBe(200);
      const url = `${w.svc.url}${home}/-/shared/_/${photo}`;
      expect(canonicalOf(page.body)).toBe(url);
      const tags = metaTags(page.body);
      expect([tags.get('og:url'), tags.get('og:title'), tags.get('og:description'), tags.get('twitter:card')]).toEqual([url, 'Harbour at dawn', 'Fog over the water', 'summary_large_image']);
      const [ld] = jsonLd(page.body);
      expect(ld).toMatchObject({
        '@context': 'https://schema.org',
        '@type': 'ImageObject',
        url,
        contentUrl: tags.get('og:image'),
        encodingFormat: 'image/jpeg',
        description: 'Fog over the water',
        creator: { '@type': 'Person', name: 'Ann Lee' },
        creditText: 'Ann Lee',
        copyrightNotice: '© 2026 Ann Lee',
        license: LICENSE,
        keywords: 'fog, sea',
        dateCreated: '2024-05-06T05:08:09.000Z',
        contentLocation: { '@type': 'Place', name: 'Brest, France' },
      });
      // The camera's GPS position stays in the library: not on the page, not in the JSON-LD.
      expect((ld.contentLocation as Record<string, unknown>).geo).toBeUndefined();
      expect(page.body).not.toContain('openstreetmap');
      expect(page.body).toContain('<dt>Photographer</dt><dd>Ann Lee</dd>');
      expect(page.body).toContain('<dt>Copyright</dt><dd>© 2026 Ann Lee</dd>');
      expect(page.body).toContain(`<a href="${LICENSE}" rel="license noopener" referrerpolicy="no-referrer">`);
      expect(page.body).toContain('<time datetime="2024-05-06T05:08:09.000Z">6 May 2024, 05:08 UTC</time>');
      expect(page.body).toContain('<dd>Brest, France</dd>');
      expect(page.body).not.toContain('48.39167° N');
    });

    it('shows a position only once the photographer sets it, never the one the camera wrote', async () => {
      const media = await w.client.request('GET', `/medias/${photo}.xml`, { view: 'details' });
      expect(media.body).toContain('<latitude>48.391667</latitude>');
      await w.client.request('PUT', `/medias/${photo}.xml`, { 'media[latitude]': '48.391667', 'media[longitude]': '-4.483333' }, { multipart: true, methodOverride: true });
      const page = await visit(w.svc, `${home}/-/shared/_/${photo}`);
      const ld = jsonLd(page.body)[0];
      expect(ld.contentLocation).toEqual({ '@type': 'Place', name: 'Brest, France', geo: { '@type': 'GeoCoordinates', latitude: 48.391667, longitude: -4.483333 } });
      expect(page.body).toContain('48.39167° N, 4.48333° W');
    });

    it('escapes user text in the tags and in the JSON-LD, which still reads back exactly', async () => {
      const hostile = '</script><script>alert(1)</script> & "quotes" <b>';
      await w.client.request('PUT', `/medias/${plain}.xml`, { 'media[title]': hostile, 'media[author]': '<img src=x onerror=alert(2)>' }, { multipart: true, methodOverride: true });
      for (const path of [`${home}/-/shared/_/${plain}`, `${home}/-/shared`]) {
        const page = await visit(w.svc, path);
        expect(page.body).not.toContain('<script>alert');
        expect(page.body).not.toContain('<img src=x');
        // One `</script` per script element: none inside the JSON.
        expect(page.body.match(/<\/script/g)?.length).toBe(page.body.match(/<script/g)?.length);
        const ld = jsonLd(page.body)[0];
        const object = ld['@type'] === 'ImageObject' ? ld : (ld.image as Array<Record<string, unknown>>)[1];
        expect(object.name).toBe(hostile);
        expect(object.creator).toEqual({ '@type': 'Person', name: '<img src=x onerror=alert(2)>' });
      }
      expect(metaTags((await visit(w.svc, `${home}/-/shared/_/${plain}`)).body).get('og:title')).toBe(hostile);
    });
  });

  it('gives a hidden gallery its card (a link to it is meant to be passed on) but keeps it out of search engines', async () => {
    for (const path of [`${home}/-/by-link`, `${home}/-/by-link/_/${photo}`]) {
      const page = await visit(w.svc, path);
      expect(page.status).toBe(200);
      expect(metaTags(page.body).get('og:image')).toMatch(/\/files\/.+\.jpg$/);
      expect(page.body).toContain('<meta name="robots" content="noindex"/>');
      expect(page.headers['x-robots-tag']).toBe('noindex');
      expect(canonicalOf(page.body)).toBe(`${w.svc.url}${path}`);
    }
  });

  it('gives no card and no JSON-LD behind a password, before or after it is given', async () => {
    for (const path of [`${home}/-/locked`, `${home}/-/locked/_/${photo}`]) {
      const refused = await visit(w.svc, path);
      expect(refused.status).toBe(403);
      expect(hasShareTags(refused.body)).toBe(false);
    }
    const cookie = cookieOf(await visit(w.svc, `${home}/_password`, { form: { gallery: g.locked, password: 'pw', back: `${home}/-/locked` } }))!;
    for (const path of [`${home}/-/locked`, `${home}/-/locked/_/${photo}`]) {
      const page = await visit(w.svc, path, { cookie });
      expect(page.status).toBe(200);
      expect(page.body).toContain(photo);
      expect(hasShareTags(page.body)).toBe(false);
      // Still one canonical address, and the credit line for whoever may see it.
      expect(canonicalOf(page.body)).toBe(`${w.svc.url}${path}`);
      if (path.includes('/_/')) expect(page.body).toContain('<dd>Ann Lee</dd>');
    }
  });

  it('gives no card and no JSON-LD behind an access list, to a signed-in client either', async () => {
    expect(hasShareTags((await visit(w.svc, `${home}/-/clients`)).body)).toBe(false);
    const links = w.svc.core.visitorLinks;
    const link = await links.create(links.canonical((await links.site(w.urlname))!), 'client@example.com', `${home}/-/clients`);
    const used = await visit(w.svc, new URL(link.url).pathname);
    expect(used.status).toBe(303);
    for (const path of [`${home}/-/clients`, `${home}/-/clients/_/${photo}`]) {
      const page = await visit(w.svc, path, { cookie: cookieOf(used) });
      expect(page.status).toBe(200);
      expect(hasShareTags(page.body)).toBe(false);
    }
  });

  it("names the website's own host name in the canonical address and the card", async () => {
    const host = `photos-${randomBytes(3).toString('hex')}.example.test`;
    const site = await w.svc.core.websites.create(w.user, { urlname: `hn-${randomBytes(3).toString('hex')}`, title: 'By host', hostname: host });
    const gallery = text((await w.client.createGallery(site.urlname, { name: 'Coast', parent: site.rootGalleryUuid })).doc, 'gallery/uuid')!;
    await w.client.request('PUT', `/medias/${photo}.xml`, { 'media[publish_to_galleries]': gallery }, { multipart: true, methodOverride: true });
    for (const [path, viaHost] of [
      [`/-/coast/_/${photo}`, true],
      [`/sites/${site.urlname}/-/coast/_/${photo}`, false],
    ] as const) {
      const page = await visit(w.svc, path, viaHost ? { host } : {});
      expect(page.status).toBe(200);
      expect(canonicalOf(page.body)).toBe(`https://${host}/-/coast/_/${photo}`);
      const tags = metaTags(page.body);
      expect(tags.get('og:url')).toBe(`https://${host}/-/coast/_/${photo}`);
      expect(tags.get('og:site_name')).toBe('By host');
      // Its files are served at every address of the service: the card's image is on the website's own.
      expect(tags.get('og:image')).toMatch(new RegExp(`^https://${host.replace(/\./g, '\\.')}/files/[^?]+\\.jpg$`));
    }
  });
});
