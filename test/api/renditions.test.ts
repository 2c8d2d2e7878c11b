// Renditions (docs/renditions.md) through HTTP: the ladder made by the job
// after an upload, orientation, sRGB, metadata, watermarks, replace and
// delete, failures, video posters and document placeholders, and the
// /files/<key> route (caching, conditional GET, ranges, HEAD, who may fetch).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import exifr from 'exifr';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, find, text, type XmlNode } from '../../src/client/xml.js';
import { FileUrls } from '../../src/file-storage/file-urls.js';
import { nowIso } from '../../src/database/db.js';
import { createGallery } from '../support/media.js';
import { eachDatabase } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';
import { pdf } from './uploads-support.js';

interface Rendition {
  name: string;
  width: number;
  height: number;
  type: string;
  url: string;
}

function renditionsOf(media: XmlNode): Rendition[] {
  return all(media, 'renditions/rendition').map((r) => ({
    name: text(r, 'name')!,
    width: Number(text(r, 'width')),
    height: Number(text(r, 'height')),
    type: text(r, 'type')!,
    url: text(r, 'url')!,
  }));
}

const keyOf = (url: string) => new URL(url).pathname.replace(/^\/files\//, '');

async function upload(w: World, data: Buffer, fileName: string, params: Record<string, string | string[]> = {}): Promise<string> {
  const res = await w.client.request('POST', '/medias.xml', params, { file: { field: 'media[content]', fileName, data } });
  return text(res.doc, 'media/uuid')!;
}

async function replace(w: World, uuid: string, data: Buffer, fileName: string): Promise<void> {
  await w.client.request('PUT', `/medias/${uuid}.xml`, {}, { methodOverride: true, file: { field: 'media[content]', fileName, data } });
}

/** The media once its renditions job is over (state no longer processing). */
async function settled(w: World, uuid: string): Promise<XmlNode> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const media = find((await w.client.request('GET', `/medias/${uuid}.xml`)).doc, 'media')!;
    const state = text(media, 'renditions-state');
    if (state !== 'processing') return media;
    if (Date.now() > deadline) throw new Error(`renditions of ${uuid} still processing`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A photo-like JPEG: a gradient, with copyright, author and GPS in its EXIF. */
async function photo(width: number, height: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g"><stop offset="0" stop-color="#2060a0"/><stop offset="1" stop-color="#e0c040"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/></svg>`;
  return sharp(Buffer.from(svg))
    .jpeg({ quality: 85 })
    .withExif({
      IFD0: { Copyright: 'Copyright Jane Doe', Artist: 'Jane Doe', Make: 'TestCam' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 24/1', GPSLongitudeRef: 'E', GPSLongitude: '2/1 21/1 3/1' },
    })
    .toBuffer();
}

/** Stored 60 × 40 with the left half red and the right half blue, EXIF orientation 6 (rotate 90° clockwise to show). */
async function sideways(): Promise<Buffer> {
  const raw = Buffer.alloc(60 * 40 * 3);
  for (let y = 0; y < 40; y++) for (let x = 0; x < 60; x++) raw.set(x < 30 ? [220, 20, 20] : [20, 20, 220], (y * 60 + x) * 3);
  return sharp(raw, { raw: { width: 60, height: 40, channels: 3 } }).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }).toBuffer();
}

async function grey(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#808080' } }).jpeg({ quality: 95 }).toBuffer();
}

/** Spread of the pixel values in the middle fifth of a picture: 0 for a flat grey, large where a watermark is. */
async function centreSpread(bytes: Buffer): Promise<number> {
  const meta = await sharp(bytes).metadata();
  const w = meta.width!;
  const h = meta.height!;
  const region = await sharp(bytes).extract({ left: Math.floor(w * 0.4), top: Math.floor(h * 0.4), width: Math.ceil(w / 5), height: Math.ceil(h / 5) }).stats();
  return Math.max(...region.channels.map((c) => c.max - c.min));
}

/** The TIFF structure inside an EXIF block ('Exif\0\0' then II* or MM*). */
function tiffOf(exif: Buffer): Buffer {
  const at = [exif.indexOf('II*\0', 0, 'latin1'), exif.indexOf('MM\0*', 0, 'latin1')].filter((i) => i >= 0);
  return exif.subarray(Math.min(...at));
}

const ffmpeg = (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;

eachDatabase((kind) => {
  describe(`renditions (${kind})`, () => {
    let w: World;
    let scratch: string;
    let urls: FileUrls;
    let publicGallery: string;

    beforeAll(async () => {
      w = await startWorld(kind);
      scratch = await mkdtemp(join(tmpdir(), 'mps-renditions-'));
      urls = new FileUrls(w.svc.service.uploadSecret, w.svc.url);
      publicGallery = await createGallery(w, 'Open');
    });
    afterAll(async () => {
      await w?.svc.close();
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    const stored = (key: string) => join(w.svc.config.dataDir, 'media', ...key.split('/'));
    const get = (url: string, headers: Record<string, string> = {}, method = 'GET') => fetch(url, { method, headers });

    it('makes the ladder after a direct upload: sizes, types, sRGB, metadata stripped but copyright and author kept', async () => {
      const uuid = await upload(w, await photo(3000, 2000), 'photo.jpg', { 'media[publish_to_galleries]': [publicGallery] });
      const media = await settled(w, uuid);
      expect(text(media, 'renditions-state')).toBe('ready');
      const list = renditionsOf(media);
      expect(list.map((r) => `${r.name} ${r.width}x${r.height} ${r.type}`).sort()).toEqual(
        [
          '320 320x213 image/jpeg',
          '320 320x213 image/webp',
          '640 640x427 image/jpeg',
          '640 640x427 image/webp',
          '1280 1280x853 image/jpeg',
          '1280 1280x853 image/webp',
          '2048 2048x1365 image/jpeg',
          '2048 2048x1365 image/webp',
        ].sort(),
      );
      // The phone's rung (issue 31) is made in WebP only and stays out of API replies (the website's srcset has it).
      const phone = await w.svc.db.selectFrom('renditions as r').innerJoin('medias as m', 'm.id', 'r.media_id').select(['r.width', 'r.height', 'r.mime_type']).where('m.uuid', '=', uuid).where('r.name', '=', '1152').execute();
      expect(phone.map((r) => `${r.width}x${r.height} ${r.mime_type}`)).toEqual(['1152x768 image/webp']);
      for (const r of list) {
        expect(r.url).toMatch(new RegExp(`^${w.svc.url}/files/r/${uuid}/[0-9a-f]{16}-${r.name}\\.(webp|jpg)$`));
        const bytes = Buffer.from(await (await get(r.url)).arrayBuffer());
        const meta = await sharp(bytes).metadata();
        expect([meta.width, meta.height, meta.space]).toEqual([r.width, r.height, 'srgb']);
        expect(meta.format).toBe(r.type === 'image/webp' ? 'webp' : 'jpeg');
        // exifr reads no WebP container: read the EXIF block sharp finds (after its 'Exif\0\0' header).
        const tags = (await exifr.parse(tiffOf(meta.exif!), { gps: true })) as Record<string, unknown> | undefined;
        expect(tags?.Copyright).toBe('Copyright Jane Doe');
        expect(tags?.Artist).toBe('Jane Doe');
        expect(tags?.Make).toBeUndefined();
        expect(tags?.latitude).toBeUndefined();
        expect(tags?.GPSLatitude).toBeUndefined();
      }
      // The original keeps what it had: it is never rewritten.
      const original = await readFile(stored((await w.svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', uuid).executeTakeFirstOrThrow()).storage_key!));
      expect(((await exifr.parse(original, { gps: true })) as { latitude?: number }).latitude).toBeCloseTo(48.856, 2);
    });

    it('applies the EXIF orientation; a small original gets one rendition at its own size', async () => {
      const uuid = await upload(w, await sideways(), 'sideways.jpg');
      const list = renditionsOf(await settled(w, uuid));
      expect(list.map((r) => `${r.name} ${r.width}x${r.height}`)).toEqual(['60 40x60', '60 40x60']);
      const jpeg = list.find((r) => r.type === 'image/jpeg')!;
      // Unsigned fetches need a public gallery: read the stored file.
      const { data } = await sharp(await readFile(stored(keyOf(jpeg.url)))).raw().toBuffer({ resolveWithObject: true });
      // Top row red, bottom row blue once turned.
      expect(data[0]).toBeGreaterThan(150);
      expect(data[2]).toBeLessThan(100);
      const last = data.length - 3;
      expect(data[last + 2]).toBeGreaterThan(150);
      expect(data[last]).toBeLessThan(100);
    });

    it("watermarks the library's default on 1280 and up, never on 320 or 640, and says so", async () => {
      const artist = await w.svc.db.selectFrom('artists').select('id').where('uuid', '=', w.user.defaultArtistUuid).executeTakeFirstOrThrow();
      await w.svc.db
        .insertInto('watermarks')
        .values({ uuid: crypto.randomUUID(), artist_id: artist.id, text: 'PROOF', strength: 100, position: 'center', tile: 0, is_default: 1, created_at: nowIso() })
        .execute();
      try {
        const uuid = await upload(w, await grey(2100, 1400), 'grey.jpg');
        const list = renditionsOf(await settled(w, uuid));
        const bytesOf = (name: string) => readFile(stored(keyOf(list.find((r) => r.name === name && r.type === 'image/webp')!.url)));
        expect(await centreSpread(await bytesOf('320'))).toBeLessThan(12);
        expect(await centreSpread(await bytesOf('640'))).toBeLessThan(12);
        expect(await centreSpread(await bytesOf('1280'))).toBeGreaterThan(100);
        expect(await centreSpread(await bytesOf('2048'))).toBeGreaterThan(100);
        const flags = await w.svc.db.selectFrom('renditions as r').innerJoin('medias as m', 'm.id', 'r.media_id').select(['r.name', 'r.watermarked']).where('m.uuid', '=', uuid).execute();
        // The phone's rung (the website's only) is watermarked too: it is nearly the 1280.
        expect(Object.fromEntries(flags.map((f) => [f.name, f.watermarked]))).toEqual({ '320': 0, '640': 0, '1152': 1, '1280': 1, '2048': 1 });
      } finally {
        await w.svc.db.deleteFrom('watermarks').where('artist_id', '=', artist.id).execute();
      }
    });

    it("prefers the media's own watermark (an image, tiled); a watermark that cannot be read fails the renditions rather than leave them bare", async () => {
      const artist = await w.svc.db.selectFrom('artists').select('id').where('uuid', '=', w.user.defaultArtistUuid).executeTakeFirstOrThrow();
      const folder = join(w.svc.config.dataDir, 'watermarks');
      await mkdir(folder, { recursive: true });
      const mark = await sharp({ create: { width: 200, height: 100, channels: 4, background: '#ff0000ff' } }).png().toBuffer();
      await writeFile(join(folder, 'mark.png'), mark);
      const own = crypto.randomUUID();
      const broken = crypto.randomUUID();
      await w.svc.db
        .insertInto('watermarks')
        .values([
          { uuid: own, artist_id: artist.id, file_name: 'mark.png', storage_key: 'watermarks/mark.png', width: 200, height: 100, strength: 100, position: 'center', tile: 1, is_default: 0, created_at: nowIso() },
          { uuid: broken, artist_id: artist.id, file_name: 'gone.png', storage_key: 'watermarks/gone.png', width: 200, height: 100, strength: 100, position: 'center', tile: 0, is_default: 0, created_at: nowIso() },
        ])
        .execute();
      try {
        const uuid = await upload(w, await grey(1400, 1000), 'tiled.jpg', { 'media[watermark_uuid]': own });
        const list = renditionsOf(await settled(w, uuid));
        const big = await readFile(stored(keyOf(list.find((r) => r.name === '1280' && r.type === 'image/jpeg')!.url)));
        // Tiled red marks: the top-left corner is red too, not only the centre.
        const { data } = await sharp(big).extract({ left: 5, top: 5, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
        expect(data[0]).toBeGreaterThan(200);
        expect(data[1]).toBeLessThan(60);
        const small = await readFile(stored(keyOf(list.find((r) => r.name === '320' && r.type === 'image/jpeg')!.url)));
        expect(await centreSpread(small)).toBeLessThan(12);

        const failing = await upload(w, await grey(1400, 1000), 'unprotected.jpg', { 'media[watermark_uuid]': broken });
        const media = await settled(w, failing);
        expect(text(media, 'renditions-state')).toBe('failed');
        expect(text(media, 'renditions-error')).toBe('the watermark could not be applied');
        expect(renditionsOf(media)).toEqual([]);
      } finally {
        await w.svc.db.deleteFrom('watermarks').where('artist_id', '=', artist.id).execute();
      }
    });

    it('gives a replaced file new renditions under new keys and removes the old ones; deleting the media removes them too', async () => {
      const uuid = await upload(w, await photo(800, 600), 'replace.jpg');
      const before = renditionsOf(await settled(w, uuid));
      expect(before.map((r) => r.name)).toEqual(['320', '320', '640', '640']);
      // The same bytes again: still new keys (they follow the stored file).
      await replace(w, uuid, await photo(800, 600), 'replace.jpg');
      const after = renditionsOf(await settled(w, uuid));
      expect(after).toHaveLength(4);
      const oldKeys = before.map((r) => keyOf(r.url));
      for (const r of after) expect(oldKeys).not.toContain(keyOf(r.url));
      for (const key of oldKeys) expect(existsSync(stored(key))).toBe(false);
      for (const r of after) expect(existsSync(stored(keyOf(r.url)))).toBe(true);

      await w.client.request('DELETE', `/medias/${uuid}.xml`);
      for (const r of after) expect(existsSync(stored(keyOf(r.url)))).toBe(false);
    });

    it('marks a file that cannot be decoded as failed, visible in the media record, and the job ends', async () => {
      const good = await grey(64, 48);
      const corrupt = Buffer.concat([good.subarray(0, 20), Buffer.alloc(4000, 0x5a)]);
      const uuid = await upload(w, corrupt, 'corrupt.jpg');
      const media = await settled(w, uuid);
      expect(text(media, 'status')).toBe('live');
      expect(text(media, 'renditions-state')).toBe('failed');
      expect(text(media, 'renditions-error')).toMatch(/could not be decoded/);
      expect(text(media, 'renditions-error')).not.toContain('/');
      expect(renditionsOf(media)).toEqual([]);
      const job = await w.svc.db.selectFrom('jobs').select(['state', 'failed']).where('kind', '=', 'renditions').orderBy('id', 'desc').executeTakeFirstOrThrow();
      expect(job).toEqual({ state: 'done', failed: 1 });
    });

    it('makes a video poster frame with ffmpeg, and a placeholder for a document', async () => {
      const video = join(scratch, 'clip.mp4');
      const made = spawnSync(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10', '-t', '1', '-pix_fmt', 'yuv420p', '-c:v', 'mpeg4', '-f', 'mp4', '-y', video], { timeout: 30_000 });
      expect(made.status).toBe(0);
      const clip = await upload(w, await readFile(video), 'clip.mp4');
      const clipList = renditionsOf(await settled(w, clip));
      expect(clipList.map((r) => `${r.name} ${r.width}x${r.height} ${r.type}`).sort()).toEqual(['320 320x240 image/jpeg', '320 320x240 image/webp']);
      const frame = await sharp(await readFile(stored(keyOf(clipList[0].url)))).stats();
      // testsrc is colourful, not a blank frame.
      expect(Math.max(...frame.channels.map((c) => c.stdev))).toBeGreaterThan(30);

      const doc = await upload(w, pdf(), 'notes.pdf');
      const docMedia = await settled(w, doc);
      expect(text(docMedia, 'renditions-state')).toBe('ready');
      expect(renditionsOf(docMedia).map((r) => `${r.name} ${r.width}x${r.height}`).sort()).toEqual(['1280 1280x960', '1280 1280x960', '320 320x240', '320 320x240', '640 640x480', '640 640x480']);
    });

    describe('GET /files/<key>', () => {
      let publicUrl: string;
      let photoUuid: string;

      beforeAll(async () => {
        photoUuid = await upload(w, await photo(700, 500), 'served.jpg', { 'media[publish_to_galleries]': [publicGallery] });
        publicUrl = renditionsOf(await settled(w, photoUuid)).find((r) => r.name === '640' && r.type === 'image/webp')!.url;
      });

      it('serves a public rendition immutable, with a strong ETag, 304, ranges, 416 and HEAD', async () => {
        const res = await get(publicUrl);
        expect(res.status).toBe(200);
        const body = Buffer.from(await res.arrayBuffer());
        const hash = /\/([0-9a-f]{16})-640\.webp$/.exec(publicUrl)![1];
        expect(res.headers.get('etag')).toBe(`"${hash}"`);
        expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        expect(res.headers.get('content-type')).toBe('image/webp');
        expect(res.headers.get('content-length')).toBe(String(body.length));
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
        expect(res.headers.get('accept-ranges')).toBe('bytes');
        expect(res.headers.get('content-disposition')).toBeNull();

        const cached = await get(publicUrl, { 'if-none-match': `"${hash}"` });
        expect(cached.status).toBe(304);
        expect(await cached.text()).toBe('');

        const part = await get(publicUrl, { range: 'bytes=10-19' });
        expect(part.status).toBe(206);
        expect(part.headers.get('content-range')).toBe(`bytes 10-19/${body.length}`);
        expect(Buffer.from(await part.arrayBuffer())).toEqual(body.subarray(10, 20));
        const tail = await get(publicUrl, { range: 'bytes=-5' });
        expect(Buffer.from(await tail.arrayBuffer())).toEqual(body.subarray(body.length - 5));

        const beyond = await get(publicUrl, { range: `bytes=${body.length}-` });
        expect(beyond.status).toBe(416);
        expect(beyond.headers.get('content-range')).toBe(`bytes */${body.length}`);

        const head = await get(publicUrl, {}, 'HEAD');
        expect(head.status).toBe(200);
        expect(head.headers.get('content-length')).toBe(String(body.length));
        expect(head.headers.get('etag')).toBe(`"${hash}"`);
        expect(await head.text()).toBe('');
      });

      it('answers 404 for unknown keys, originals and renditions of medias that are not public', async () => {
        expect((await get(`${w.svc.url}/files/r/${photoUuid}/0123456789abcdef-640.webp`)).status).toBe(404);
        expect((await get(`${w.svc.url}/files/..%2f..%2fetc/passwd`)).status).toBe(404);
        const original = (await w.svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', photoUuid).executeTakeFirstOrThrow()).storage_key!;
        expect((await get(`${w.svc.url}/files/${original}`)).status).toBe(404);

        // Published only in a password-protected gallery: not public, whatever the key.
        const locked = text((await w.client.createGallery(w.urlname, { name: 'Locked', parent: w.rootUuid, password: 'secret' })).doc, 'gallery/uuid')!;
        const hidden = await upload(w, await photo(700, 500), 'locked.jpg', { 'media[publish_to_galleries]': [locked] });
        const url = renditionsOf(await settled(w, hidden))[0].url;
        const refused = await get(url);
        expect(refused.status).toBe(404);
        // Same answer as a key that does not exist.
        expect(await refused.text()).toBe(await (await get(`${w.svc.url}/files/r/${hidden}/0000000000000000-320.webp`)).text());

        // Unpublished: not public either.
        const unpublished = await upload(w, await photo(700, 500), 'unpublished.jpg');
        expect((await get(renditionsOf(await settled(w, unpublished))[0].url)).status).toBe(404);
      });

      it('serves signed addresses until they expire; a tampered one is a 404; originals only signed, as downloads', async () => {
        const locked = text((await w.client.createGallery(w.urlname, { name: 'Locked 2', parent: w.rootUuid, password: 'secret' })).doc, 'gallery/uuid')!;
        const uuid = await upload(w, await photo(700, 500), 'signed.jpg', { 'media[publish_to_galleries]': [locked] });
        const key = keyOf(renditionsOf(await settled(w, uuid))[0].url);

        const signed = urls.signed(key, new Date(Date.now() + 3600_000), 'visitor-1', locked);
        const ok = await get(signed);
        expect(ok.status).toBe(200);
        expect(ok.headers.get('cache-control')).toMatch(/^private, max-age=(35\d\d|3600)$/);

        const expired = await get(urls.signed(key, new Date(Date.now() - 1000), 'visitor-1', locked));
        expect(expired.status).toBe(403);
        expect(await expired.text()).toMatch(/expired/);

        expect((await get(signed.replace('v=visitor-1', 'v=visitor-2'))).status).toBe(404);
        expect((await get(signed.replace(/s=[^&]+/, 's=AAAA'))).status).toBe(404);
        // A signature for one key does not open another.
        const other = renditionsOf(await settled(w, uuid))[1];
        expect((await get(signed.replace(key, keyOf(other.url)))).status).toBe(404);

        const original = (await w.svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', uuid).executeTakeFirstOrThrow()).storage_key!;
        expect((await get(`${w.svc.url}/files/${original}`)).status).toBe(404);
        const download = await get(urls.signed(original, new Date(Date.now() + 600_000), 'visitor-1', locked, true));
        expect(download.status).toBe(200);
        expect(download.headers.get('content-disposition')).toBe('attachment; filename="signed.jpg"; filename*=UTF-8\'\'signed.jpg');
        expect(Buffer.from(await download.arrayBuffer())).toEqual(await readFile(stored(original)));
        const ranged = await get(urls.signed(original, new Date(Date.now() + 600_000), 'visitor-1', locked, true), { range: 'bytes=0-1' });
        expect(ranged.status).toBe(206);
        expect(Buffer.from(await ranged.arrayBuffer())).toEqual(Buffer.from([0xff, 0xd8]));
      });

      it('serves what is not a raster image or video as an attachment with nosniff (a PDF original); SVG is never accepted', async () => {
        const docs = text((await w.client.createGallery(w.urlname, { name: 'Docs', parent: w.rootUuid, password: 'secret' })).doc, 'gallery/uuid')!;
        const uuid = await upload(w, pdf(), 'doc.pdf', { 'media[publish_to_galleries]': [docs] });
        await settled(w, uuid);
        const original = (await w.svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', uuid).executeTakeFirstOrThrow()).storage_key!;
        const res = await get(urls.signed(original, new Date(Date.now() + 600_000), 'v', docs));
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/pdf');
        expect(res.headers.get('content-disposition')).toMatch(/^attachment/);
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");

        const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>');
        const refused = await w.client.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: 'x.svg', data: svg } }).then(
          () => 'accepted',
          (e: { status: number }) => e.status,
        );
        expect(refused).toBe(422);
      });
    });
  });
});
