// A gallery's download controls (docs/delivery.md "Download controls"), over HTTP as a visitor
// and the photographer's API meet them, SQLite and PostgreSQL: the PIN asked before a download
// (single and archive, remembered by the pass, throttled), the limit of photos per client (at
// the download route, at /files with addresses taken directly, in archives), web size or the
// original (the file served, not only the button) — and none of them bypassed through /files.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { FileUrls } from '../../src/file-storage/file-urls.js';
import { create, failure } from '../api/galleries-fixtures.js';
import { eachDatabase } from '../support/service.js';
import type { World } from '../support/world.js';
import { fetchBytes, readZip } from './archive-support.js';
import { cookieOf, startSite, uploadPhoto, visit, waitForRenditions } from './site-support.js';

let addresses = 0;
/** Each visitor its own client address (TRUST_PROXY): the PIN throttle counts per address. */
const freshAddress = () => `10.77.${(addresses >> 8) & 255}.${addresses++ & 255}`;
const amp = (s: string) => s.replace(/&amp;/g, '&');
const downloadLinks = (html: string) => [...html.matchAll(/href="([^"]*(?:\/_download\/|d=1)[^"]*)"/g)].map((m) => amp(m[1]));
const hrefOf = (url: string) => (url.startsWith('http') ? new URL(url).pathname + new URL(url).search : url);

eachDatabase((kind) => {
  let w: World;
  let home: string;
  let photos: string[];
  const galleries = { pin: '', limit: '', web: '', throttle: '' };
  const allRights = { acl: [{ email: 'DEFAULT', read: 1, comp_download: 1, hires_download: 1 }] };
  const as = (address: string, cookie?: string) => ({ headers: { 'x-forwarded-for': address }, cookie });
  /** The media page's download links of photo i in a gallery. */
  const linksOf = async (path: string, i: number, address: string, cookie?: string) => downloadLinks((await visit(w.svc, `${home}/-/${path}/_/${photos[i]}`, as(address, cookie))).body);

  beforeAll(async () => {
    ({ w, home } = await startSite(kind, { VISITOR_RATE_LIMIT: 'off', VISITOR_FILES_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0', TRUST_PROXY: '1' }));
    galleries.pin = await create(w, 'Pin', w.rootUuid, allRights);
    galleries.limit = await create(w, 'Limit', w.rootUuid, allRights);
    galleries.web = await create(w, 'Web', w.rootUuid, allRights);
    galleries.throttle = await create(w, 'Throttle', w.rootUuid, { ...allRights, download_pin: '2468' });
    photos = [await uploadPhoto(w, galleries.pin, 1, 2400), await uploadPhoto(w, galleries.pin, 2, 2400), await uploadPhoto(w, galleries.pin, 3, 2400)];
    for (const p of photos) {
      const res = await w.client.request('PUT', `/medias/${p}.xml`, { 'media[publish_to_galleries]': [galleries.pin, galleries.limit, galleries.web, galleries.throttle] }, { multipart: true, methodOverride: true });
      expect(res.status).toBe(200);
    }
    expect(await waitForRenditions(w, photos)).toBe(true);
  }, 240_000);
  afterAll(() => w?.svc.close());

  describe('the API', () => {
    it('shows the controls in <gallery> (view=details), writable on create and PUT, blank clearing', async () => {
      const g = await create(w, 'Controls', w.rootUuid, { download_pin: '0042', download_limit: 30, download_size: 'web', pick_limit: 12 });
      let res = await w.client.gallery(w.urlname, g, 'details');
      expect(text(res.doc, 'gallery/download-pin')).toBe('0042');
      expect(text(res.doc, 'gallery/download-limit')).toBe('30');
      expect(text(res.doc, 'gallery/download-size')).toBe('web');
      expect(text(res.doc, 'gallery/pick-limit')).toBe('12');
      await w.client.updateGallery(w.urlname, g, { download_pin: '', download_limit: '', download_size: 'original' });
      res = await w.client.gallery(w.urlname, g, 'details');
      expect(text(res.doc, 'gallery/download-pin')).toBeUndefined();
      expect(text(res.doc, 'gallery/download-limit')).toBeUndefined();
      expect(text(res.doc, 'gallery/download-size')).toBe('original');
      expect(text(res.doc, 'gallery/pick-limit')).toBe('12');
    });

    it('refuses bad values with a 422 naming the field, changing nothing', async () => {
      const g = await create(w, 'Refusals', w.rootUuid, { download_pin: '1234' });
      const cases: Array<[string, string]> = [
        ['download_pin', '123'],
        ['download_pin', '123456789'],
        ['download_pin', '12a4'],
        ['download_pin', '１２３４'],
        ['download_limit', '0'],
        ['download_limit', '100001'],
        ['download_limit', '2.5'],
        ['download_size', 'huge'],
        ['pick_limit', '0'],
      ];
      for (const [field, value] of cases) {
        const f = await failure(w.client.request('PUT', `/websites/${w.urlname}/galleries/${g}.xml`, { [`gallery[${field}]`]: value }));
        expect(f.status, `${field}=${value}`).toBe(422);
        expect(f.message, `${field}=${value}`).toContain(`gallery[${field}]`);
      }
      expect(text((await w.client.gallery(w.urlname, g, 'details')).doc, 'gallery/download-pin')).toBe('1234');
    });
  });

  describe('a download PIN', () => {
    let before: string[];
    beforeAll(async () => {
      // Addresses given before the PIN was set: signed downloads as any gallery's.
      before = await linksOf('pin', 0, freshAddress());
      // No watermark on this library: no comp, only the original.
      expect(before.length).toBe(1);
      expect(before.every((l) => l.includes('d=1'))).toBe(true);
      await w.client.updateGallery(w.urlname, galleries.pin, { download_pin: '4821' });
    });

    it('revokes the download addresses given before it was set, at /files', async () => {
      for (const l of before) expect((await visit(w.svc, hrefOf(l), as(freshAddress()))).status, l).toBe(404);
    });

    it('sends the page’s downloads through the PIN page; a wrong PIN is told, the right one remembered by the pass', async () => {
      const address = freshAddress();
      const links = await linksOf('pin', 0, address);
      expect(links.length).toBe(1);
      expect(links.every((l) => l.includes('/_download/') && !l.includes('/files/'))).toBe(true);
      const asked = await visit(w.svc, links[0], as(address));
      expect(asked.status).toBe(403);
      expect(asked.body).toContain('Enter the download PIN');
      expect(asked.body).toContain('name="pin"');
      const wrong = await visit(w.svc, `${home}/_download/pin`, { ...as(address), form: { gallery: galleries.pin, pin: '1111', back: links[0] } });
      expect(wrong.status).toBe(403);
      expect(wrong.body).toContain('That PIN is not right');
      const right = await visit(w.svc, `${home}/_download/pin`, { ...as(address), form: { gallery: galleries.pin, pin: '4821', back: links[0] } });
      expect(right.status).toBe(303);
      expect(right.headers.location).toBe(links[0]);
      const cookie = cookieOf(right)!;
      const on = await visit(w.svc, links[0], as(address, cookie));
      expect(on.status).toBe(303);
      const file = await fetchBytes(w.svc.url, hrefOf(on.headers.location as string), { 'x-forwarded-for': address });
      expect(file.status).toBe(200);
      const original = await w.svc.db.selectFrom('medias').select('file_size').where('uuid', '=', photos[0]).executeTakeFirstOrThrow();
      expect(file.body.length).toBe(original.file_size);
      // Remembered: the next photo needs no PIN.
      const next = await linksOf('pin', 1, address, cookie);
      expect((await visit(w.svc, next[0], as(address, cookie))).status).toBe(303);
    });

    it('guards the archive too: the PIN page first, the ZIP once given', async () => {
      const address = freshAddress();
      const asked = await visit(w.svc, `${home}/-/pin/_archive.zip`, as(address));
      expect(asked.status).toBe(403);
      expect(asked.body).toContain('Enter the download PIN');
      const right = await visit(w.svc, `${home}/_download/pin`, { ...as(address), form: { gallery: galleries.pin, pin: '4821', back: `${home}/-/pin/_archive.zip` } });
      const zip = await fetchBytes(w.svc.url, `${home}/-/pin/_archive.zip`, { 'x-forwarded-for': address, cookie: cookieOf(right)! });
      expect(zip.status).toBe(200);
      expect((await readZip(zip.body)).entries.length).toBe(3);
    });

    it('forgets the PIN given when the photographer changes it', async () => {
      const address = freshAddress();
      const right = await visit(w.svc, `${home}/_download/pin`, { ...as(address), form: { gallery: galleries.pin, pin: '4821', back: `${home}/-/pin` } });
      const cookie = cookieOf(right)!;
      const links = await linksOf('pin', 0, address, cookie);
      const signed = (await visit(w.svc, links[0], as(address, cookie))).headers.location as string;
      await w.client.updateGallery(w.urlname, galleries.pin, { download_pin: '93715' });
      expect((await visit(w.svc, links[0], as(address, cookie))).status).toBe(403);
      expect((await visit(w.svc, hrefOf(signed), as(address))).status).toBe(404);
      await w.client.updateGallery(w.urlname, galleries.pin, { download_pin: '4821' });
    });

    it('bounds wrong PINs per visitor and gallery (429), and refuses a form from another site', async () => {
      const address = freshAddress();
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await visit(w.svc, `${home}/_download/pin`, { ...as(address), form: { gallery: galleries.throttle, pin: String(1000 + i), back: `${home}/-/throttle` } })).status);
      expect(statuses.slice(0, 5)).toEqual([403, 403, 403, 403, 403]);
      expect(statuses.slice(5)).toEqual([429, 429]);
      // Even the right PIN waits now.
      expect((await visit(w.svc, `${home}/_download/pin`, { ...as(address), form: { gallery: galleries.throttle, pin: '2468', back: `${home}/-/throttle` } })).status).toBe(429);
      const cross = await visit(w.svc, `${home}/_download/pin`, { headers: { 'x-forwarded-for': freshAddress(), origin: 'https://evil.example' }, form: { gallery: galleries.throttle, pin: '2468', back: '/' } });
      expect(cross.status).toBe(403);
      expect(cross.headers['set-cookie']).toBeUndefined();
    });
  });

  describe('a download limit per client', () => {
    beforeAll(async () => {
      await w.client.updateGallery(w.urlname, galleries.limit, { download_limit: 2 });
    });

    it('counts distinct photos per visitor session at /files, addresses taken directly included; a photo again is free', async () => {
      const address = freshAddress();
      const first = await visit(w.svc, (await linksOf('limit', 0, address))!.at(-1)!, as(address));
      expect(first.status).toBe(303);
      const cookie = cookieOf(first)!;
      expect(cookie).toBeDefined();
      // Three signed addresses taken before any file is fetched: the route does not spend, /files does.
      const signed = [hrefOf(first.headers.location as string)];
      for (const i of [1, 2]) signed.push(hrefOf((await visit(w.svc, (await linksOf('limit', i, address, cookie))!.at(-1)!, as(address, cookie))).headers.location as string));
      expect((await fetchBytes(w.svc.url, signed[0], { 'x-forwarded-for': address })).status).toBe(200);
      expect((await fetchBytes(w.svc.url, signed[1], { 'x-forwarded-for': address })).status).toBe(200);
      const third = await fetchBytes(w.svc.url, signed[2], { 'x-forwarded-for': address });
      expect(third.status).toBe(403);
      expect(third.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(third.body.toString()).toContain('Download limit reached');
      // A range from the middle is a download too; HEAD spends nothing and says the same.
      expect((await fetchBytes(w.svc.url, signed[2], { 'x-forwarded-for': address, range: 'bytes=100-' })).status).toBe(403);
      expect((await fetchBytes(w.svc.url, signed[2], { 'x-forwarded-for': address }, 'HEAD')).status).toBe(403);
      // The same photo again costs nothing.
      expect((await fetchBytes(w.svc.url, signed[0], { 'x-forwarded-for': address })).status).toBe(200);
      // The route now shows the friendly page for a new photo, and still lets an old one through.
      const page = await visit(w.svc, (await linksOf('limit', 2, address, cookie))!.at(-1)!, as(address, cookie));
      expect(page.status).toBe(403);
      expect(page.body).toContain('reached this gallery’s download limit');
      expect(page.body).toContain('allows 2 photos');
      expect((await visit(w.svc, (await linksOf('limit', 0, address, cookie))!.at(-1)!, as(address, cookie))).status).toBe(303);
      // Another visitor has their own count.
      const other = freshAddress();
      expect((await visit(w.svc, (await linksOf('limit', 2, other))!.at(-1)!, as(other))).status).toBe(303);
    });

    it('never passes the limit with simultaneous downloads of one visitor', async () => {
      const address = freshAddress();
      const first = await visit(w.svc, (await linksOf('limit', 0, address))!.at(-1)!, as(address));
      const cookie = cookieOf(first)!;
      const signed = [hrefOf(first.headers.location as string)];
      for (const i of [1, 2]) signed.push(hrefOf((await visit(w.svc, (await linksOf('limit', i, address, cookie))!.at(-1)!, as(address, cookie))).headers.location as string));
      const statuses = (await Promise.all(signed.map((u) => fetchBytes(w.svc.url, u, { 'x-forwarded-for': address })))).map((r) => r.status).sort();
      expect(statuses).toEqual([200, 200, 403]);
    });

    it('counts a signed-in client by their address, across their sessions', async () => {
      const links = w.svc.core.visitorLinks;
      const site = links.canonical((await links.site(w.urlname))!);
      const session = async () => {
        const link = await links.create(site, 'ann.client@example.com', `${home}/-/limit`);
        const used = await visit(w.svc, new URL(link.url).pathname, as(freshAddress()));
        expect(used.status).toBe(303);
        return cookieOf(used)!;
      };
      const [phone, laptop] = [await session(), await session()];
      for (const i of [0, 1]) {
        const on = await visit(w.svc, (await linksOf('limit', i, freshAddress(), phone))!.at(-1)!, as(freshAddress(), phone));
        expect(on.status).toBe(303);
        expect((await fetchBytes(w.svc.url, hrefOf(on.headers.location as string), { 'x-forwarded-for': freshAddress() })).status).toBe(200);
      }
      const other = await visit(w.svc, (await linksOf('limit', 2, freshAddress(), laptop))!.at(-1)!, as(freshAddress(), laptop));
      expect(other.status).toBe(403);
      expect(other.body).toContain('download limit');
      expect((await visit(w.svc, (await linksOf('limit', 0, freshAddress(), laptop))!.at(-1)!, as(freshAddress(), laptop))).status).toBe(303);
      // The client's data on request goes with their activity: the ledger too.
      const erased = await w.client.request('DELETE', '/activity.xml', { client: 'ann.client@example.com' });
      expect(text(erased.doc, 'deleted-downloads')).toBe('2');
      expect((await visit(w.svc, (await linksOf('limit', 2, freshAddress(), laptop))!.at(-1)!, as(freshAddress(), laptop))).status).toBe(303);
    });

    it('counts an archive’s photos as downloads: what is left goes in, the rest is named in README.txt; then the limit page', async () => {
      const address = freshAddress();
      const first = await visit(w.svc, (await linksOf('limit', 0, address)).at(-1)!, as(address));
      const cookie = cookieOf(first)!;
      expect((await fetchBytes(w.svc.url, hrefOf(first.headers.location as string), { 'x-forwarded-for': address })).status).toBe(200);
      const zip = await fetchBytes(w.svc.url, `${home}/-/limit/_archive.zip`, { 'x-forwarded-for': address, cookie });
      expect(zip.status).toBe(200);
      const { files } = await readZip(zip.body);
      const names = [...files.keys()];
      expect(names.filter((n) => n !== 'README.txt').length).toBe(2);
      expect(files.get('README.txt')!.toString()).toContain('reached the number of downloads this gallery allows');
      const again = await visit(w.svc, `${home}/-/limit/_archive.zip`, as(address, cookie));
      expect(again.status).toBe(403);
      expect(again.body).toContain('download limit');
    });

    it('refuses a download address of the gallery made for no one (no pass) at /files', async () => {
      const urls = new FileUrls(w.svc.service.uploadSecret, '');
      const key = (await w.svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', photos[0]).executeTakeFirstOrThrow()).storage_key!;
      const link = (await linksOf('limit', 0, freshAddress())).at(-1)!;
      expect(link).toContain('/_download/');
      // Unsigned: the original is never public.
      expect((await visit(w.svc, `/files/${key}`)).status).toBe(404);
      // Signed without the controls' stamp (as before a limit): not served.
      expect((await visit(w.svc, hrefOf(urls.signed(key, new Date(Date.now() + 600_000), 'anonymous', galleries.limit, true)))).status).toBe(404);
    });
  });

  describe('web-size downloads', () => {
    let original: string;
    beforeAll(async () => {
      // The original's address is the page's last download (after the comp).
      original = (await linksOf('web', 0, freshAddress())).at(-1)!;
      expect(original).toContain('d=1');
      await w.client.updateGallery(w.urlname, galleries.web, { download_size: 'web' });
    });

    it('offers and serves the 2048 rendition, never the original, and revokes the original’s address given before', async () => {
      const address = freshAddress();
      const page = (await visit(w.svc, `${home}/-/web/_/${photos[0]}`, as(address))).body;
      expect(page).toContain('Download (web size, 2048');
      expect(page).not.toContain('Download the original');
      const links = downloadLinks(page);
      const on = await visit(w.svc, links[links.length - 1], as(address));
      expect(on.status).toBe(303);
      const file = await fetchBytes(w.svc.url, hrefOf(on.headers.location as string), { 'x-forwarded-for': address });
      expect(file.status).toBe(200);
      const meta = await sharp(file.body).metadata();
      expect(meta.format).toBe('jpeg');
      expect(Math.max(meta.width!, meta.height!)).toBe(2048);
      expect(meta.exif === undefined || !meta.exif.includes(Buffer.from('GPS'))).toBe(true);
      expect((await visit(w.svc, hrefOf(original), as(address))).status).toBe(404);
    });

    it('refuses the original at /files even under an address stamped as the gallery is now', async () => {
      const urls = new FileUrls(w.svc.service.uploadSecret, '');
      const key = (await w.svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', photos[0]).executeTakeFirstOrThrow()).storage_key!;
      // The stamp of a web-size download of this gallery, taken from the address the route gives.
      const address = freshAddress();
      const links = downloadLinks((await visit(w.svc, `${home}/-/web/_/${photos[0]}`, as(address))).body);
      const given = new URL((await visit(w.svc, links[links.length - 1], as(address))).headers.location as string, w.svc.url);
      const stamp = given.searchParams.get('a')!;
      const forged = new URL(urls.signed(key, new Date(Date.now() + 600_000), given.searchParams.get('v')!, galleries.web, true, stamp), w.svc.url);
      const res = await visit(w.svc, forged.pathname + forged.search, as(address));
      expect(res.status).toBe(403);
      expect(res.body).toContain('Web-size downloads only');
    });

    it('puts web sizes in the archive', async () => {
      const zip = await fetchBytes(w.svc.url, `${home}/-/web/_archive.zip`, { 'x-forwarded-for': freshAddress() });
      expect(zip.status).toBe(200);
      const { files } = await readZip(zip.body);
      const images = [...files.entries()].filter(([n]) => n !== 'README.txt');
      // Each photo once: the comp (1280) and the web size (2048) are the two rights' files; the web one wins.
      expect(images.length).toBe(3);
      for (const [, bytes] of images) expect(Math.max(...(await sharp(bytes).metadata().then((m) => [m.width!, m.height!])))).toBe(2048);
    });
  });

  describe('the favourites limit', () => {
    it('says "n of N" and refuses one more with a 409 naming the field, server-side', async () => {
      await w.client.updateGallery(w.urlname, galleries.limit, { pick_limit: 2 });
      const headers = { origin: w.svc.url, 'x-forwarded-for': freshAddress() };
      const who = await visit(w.svc, `${home}/_favourites/identify`, { form: { name: 'Ann', email: 'ann@example.com', back: `${home}/` }, headers });
      const cookie = cookieOf(who)!;
      const pick = (i: number) => visit(w.svc, `${home}/_favourites/pick`, { cookie, form: { gallery: galleries.limit, pick: photos[i], back: `${home}/-/limit` }, headers: { ...headers, accept: 'application/json' } });
      expect(JSON.parse((await pick(0)).body)).toMatchObject({ count: 1, limit: 2, picked: true });
      expect(JSON.parse((await pick(1)).body)).toMatchObject({ count: 2, limit: 2 });
      const third = await pick(2);
      expect(third.status).toBe(409);
      expect(JSON.parse(third.body)).toMatchObject({ field: 'pick_limit' });
      expect(JSON.parse(third.body).error).toContain('the most this gallery allows is 2');
      expect((await visit(w.svc, `${home}/-/limit`, { cookie, headers })).body).toMatch(/2 of 2/);
    });
  });
});
