// A gallery's photos as one streamed ZIP (`<gallery>/_archive.zip`,
// docs/delivery.md "Downloads"), over HTTP as a visitor gets it, on local
// files and on S3 (s3rver), SQLite and PostgreSQL: the archive holds what the
// visitor's rights give (watermarked comps or the originals, checked by reading
// the entries back with Python's zipfile and unzip and measuring the images),
// names unique, sub-galleries as folders when asked (never a hidden one), what
// could not be read listed in README.txt; no archive without a download right
// or without access; one archive at a time per address. ARCHIVE_BIG=1 adds a
// 5 GB archive from s3rver, which must be ZIP64 and read back whole.
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASS_COOKIE } from '../../src/site/signin/pass.js';
import { create, publishMedias } from '../api/galleries-fixtures.js';
import { postUpload, startS3, uploadParamsOf, type LocalS3 } from '../api/uploads-support.js';
import { eachDatabase, TestService } from '../support/service.js';
import { worldOn, type World } from '../support/world.js';
import { checkZipFile, fetchBytes, fetchToFile, open, readZip } from './archive-support.js';
import { find, int, items, text } from '../../src/client/xml.js';
import { photo, visit, waitForRenditions } from './site-support.js';

const BIG = process.env.ARCHIVE_BIG === '1';
let addresses = 0;
/** Each test its own client address (TRUST_PROXY), so their one-archive slots never meet. */
const freshAddress = () => `10.88.${(addresses >> 8) & 255}.${addresses++ & 255}`;

eachDatabase((kind) => {
  for (const storage of ['local', 's3'] as const) {
    describe(`on ${storage} storage`, () => {
      let s3: LocalS3 | undefined;
      let w: World;
      let home: string;
      let put: (key: string, body: Buffer | (() => Readable), size: number) => Promise<void>;
      const g = { proofs: '', originals: '', dayTwo: '', secret: '', open: '', clients: '', broken: '', big: '' };
      const uploaded: string[] = [];

      const get = (path: string, headers: Record<string, string> = {}) => fetchBytes(w.svc.url, path, { 'x-forwarded-for': freshAddress(), ...headers });
      const mediaRow = (uuid: string) => w.svc.db.selectFrom('medias').select(['id', 'file_name', 'file_size']).where('uuid', '=', uuid).executeTakeFirstOrThrow();
      const publishTo = async (gallery: string, uuid: string) => {
        const res = await w.client.request('PUT', `/medias/${uuid}.xml`, { 'media[publish_to_galleries]': [gallery] }, { multipart: true, methodOverride: true });
        expect(res.status).toBe(200);
      };
      /** A media row (no upload) published to `gallery`, its original at `key` of `size` bytes. */
      const fileMedia = async (gallery: string, fileName: string, key: string | null, size: number | null) => {
        const [uuid] = await publishMedias(w.svc.db, w.user, gallery, [fileName]);
        await w.svc.db.updateTable('medias').set({ storage_key: key, file_size: size, renditions_state: 'ready' }).where('uuid', '=', uuid).execute();
        return uuid;
      };

      beforeAll(async () => {
        s3 = storage === 's3' ? await startS3() : undefined;
        w = await worldOn(await TestService.start(kind, { ...s3?.env, VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0', TRUST_PROXY: '1' }));
        home = `/sites/${w.urlname}`;
        if (s3) {
          const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
            // As the service's own client (src/file-storage/s3.ts): s3rver would store a streamed body's aws-chunked framing as its bytes.
            requestChecksumCalculation: 'WHEN_REQUIRED',
          });
          put = async (key, body, size) => {
            await client.send(new PutObjectCommand({ Bucket: s3!.bucket, Key: key, Body: Buffer.isBuffer(body) ? body : body(), ContentLength: size }));
          };
        } else {
          put = async (key, body, size) => {
            const path = join(w.svc.config.dataDir, 'media', ...key.split('/'));
            await mkdir(dirname(path), { recursive: true });
            if (Buffer.isBuffer(body)) await writeFile(path, body);
            else await writeFile(path, body());
            expect((await stat(path)).size).toBe(size);
          };
        }
        // Comps are the watermarked renditions: a default watermark on the library.
        await w.svc.core.artists.createWatermark({ artistUuid: w.user.defaultArtistUuid, isDefault: true, text: 'PROOF' });
        const rights = (comp: number, hires: number) => ({ acl: [{ email: 'DEFAULT', read: 1, comp_download: comp, hires_download: hires }] });
        g.proofs = await create(w, 'Proofs', w.rootUuid, rights(1, 0));
        g.originals = await create(w, 'Originals: day/one', w.rootUuid, rights(0, 1));
        g.dayTwo = await create(w, 'Day two', g.originals);
        g.secret = await create(w, 'Secret', g.originals, { hidden: 1 });
        g.open = await create(w, 'Open', w.rootUuid);
        g.clients = await create(w, 'Clients', w.rootUuid, { acl: [{ email: 'DEFAULT', read: 0, comp_download: 0, hires_download: 0 }, { email: 'client@example.com', read: 1, comp_download: 0, hires_download: 1 }] });
        g.broken = await create(w, 'Broken', w.rootUuid, rights(1, 1));
        g.big = await create(w, 'Big', w.rootUuid, rights(0, 1));
        const targets = [g.proofs, g.proofs, g.originals, g.originals, g.dayTwo, g.secret];
        for (const [i, target] of targets.entries()) uploaded.push(await upload(w, target, i));
        expect(await waitForRenditions(w, uploaded)).toBe(true);
        // Two proofs with one title: their names in the archive must differ.
        for (const uuid of uploaded.slice(0, 2)) {
          const res = await w.client.request('PUT', `/medias/${uuid}.xml`, { 'media[title]': 'Dune' }, { multipart: true, methodOverride: true });
          expect(res.status).toBe(200);
        }
        await publishTo(g.open, uploaded[0]);
        await publishTo(g.clients, uploaded[2]);
        await publishTo(g.broken, uploaded[3]);
      }, 240_000);
      afterAll(async () => {
        await w?.svc.close();
        await s3?.close();
      });

      it('gives the watermarked comps where the rights are comp_download, named after their titles, made unique', async () => {
        const res = await get(`${home}/-/proofs/_archive.zip`);
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('application/zip');
        expect(res.headers['content-disposition']).toBe(`attachment; filename="Proofs.zip"; filename*=UTF-8''Proofs.zip`);
        expect(res.headers['cache-control']).toBe('no-store');
        const { entries, files } = await readZip(res.body);
        expect(entries.map((e) => e.name)).toEqual(['Dune.jpg', 'Dune (2).jpg']);
        // Stored, not deflated again: JPEG does not shrink.
        expect(entries.every((e) => e.method === 0 && e.size === e.compressed)).toBe(true);
        for (const [i, name] of ['Dune.jpg', 'Dune (2).jpg'].entries()) {
          const meta = await sharp(files.get(name)!).metadata();
          expect(Math.max(meta.width!, meta.height!)).toBe(1280);
          // The very file a single download of the comp gives: the watermarked 1280.
          const { id } = await mediaRow(uploaded[i]);
          const comp = await w.svc.db.selectFrom('renditions').select(['bytes', 'watermarked']).where('media_id', '=', id).where('name', '=', '1280').where('mime_type', '=', 'image/jpeg').executeTakeFirstOrThrow();
          expect(comp.watermarked).toBe(1);
          expect(files.get(name)!.length).toBe(comp.bytes);
        }
        // HEAD: the headers only.
        const head = await fetchBytes(w.svc.url, `${home}/-/proofs/_archive.zip`, { 'x-forwarded-for': freshAddress() }, 'HEAD');
        expect([head.status, head.headers['content-type'], head.body.length]).toEqual([200, 'application/zip', 0]);
      });

      it('gives the originals, byte for byte, where the rights are hires_download; sub-galleries as folders when asked, never a hidden one', async () => {
        const res = await get(`${home}/-/originals-day-one/_archive.zip`);
        expect(res.status).toBe(200);
        // The gallery's name, made a safe file name.
        expect(res.headers['content-disposition']).toContain(`filename="Originals_ day_one.zip"`);
        const flat = await readZip(res.body);
        expect(flat.entries.map((e) => e.name)).toEqual(['UPLOAD_0003.jpg', 'UPLOAD_0004.jpg']);
        expect(flat.files.get('UPLOAD_0003.jpg')!.equals(await photo(2))).toBe(true);
        expect(flat.files.get('UPLOAD_0004.jpg')!.equals(await photo(3))).toBe(true);
        expect((await sharp(flat.files.get('UPLOAD_0003.jpg')!).metadata()).width).toBe(1800);

        const deep = await readZip((await get(`${home}/-/originals-day-one/_archive.zip?folders=1`)).body);
        expect(deep.entries.map((e) => e.name)).toEqual(['UPLOAD_0003.jpg', 'UPLOAD_0004.jpg', 'Day two/UPLOAD_0005.jpg']);
        expect(deep.files.get('Day two/UPLOAD_0005.jpg')!.equals(await photo(4))).toBe(true);
        // Another query goes to the archive's one address first.
        const other = await get(`${home}/-/originals-day-one/_archive.zip?folders=1&x=1`);
        expect([other.status, other.headers.location]).toEqual([301, `${home}/-/originals-day-one/_archive.zip?folders=1`]);

        // The gallery page offers both; a gallery without a download right offers none.
        const page = await visit(w.svc, `${home}/-/originals-day-one`, { headers: { 'x-forwarded-for': freshAddress() } });
        expect(page.body).toContain(`href="${home}/-/originals-day-one/_archive.zip" download>Download all (ZIP)</a>`);
        expect(page.body).toContain(`href="${home}/-/originals-day-one/_archive.zip?folders=1" download>`);
        const openPage = await visit(w.svc, `${home}/-/open`, { headers: { 'x-forwarded-for': freshAddress() } });
        expect(openPage.status).toBe(200);
        expect(openPage.body).not.toContain('_archive.zip');
      });

      it('gives no archive without a download right, nor without access; a pass with the listed address opens it', async () => {
        const refused = await get(`${home}/-/open/_archive.zip`);
        expect(refused.status).toBe(403);
        expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(refused.body.toString()).toContain('This gallery offers no downloads.');
        // The root has no right either, and with folders it holds only what the visitor may download below it.
        expect((await get(`${home}/_archive.zip`)).status).toBe(403);
        const everything = await readZip((await get(`${home}/_archive.zip?folders=1`)).body);
        expect(everything.entries.map((e) => e.name).filter((n) => !n.startsWith('Big/') && !n.startsWith('Broken/'))).toEqual([
          'Originals_ day_one/UPLOAD_0003.jpg',
          'Originals_ day_one/UPLOAD_0004.jpg',
          'Originals_ day_one/Day two/UPLOAD_0005.jpg',
          'Proofs/Dune.jpg',
          'Proofs/Dune (2).jpg',
        ]);

        const anonymous = await get(`${home}/-/clients/_archive.zip`);
        expect(anonymous.status).toBe(403);
        expect(anonymous.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(anonymous.body.toString()).toContain('_signin?back=');
        expect(anonymous.body.subarray(0, 2).toString()).not.toBe('PK');
        expect((await get(`${home}/-/nothing-here/_archive.zip`)).status).toBe(404);

        const passes = w.svc.service.visitors.passCodec;
        const site = await w.svc.db.selectFrom('websites').select('uuid').where('urlname', '=', w.urlname).executeTakeFirstOrThrow();
        const pass = passes.withEmail(passes.fresh(site.uuid), 'client@example.com');
        const signedIn = await get(`${home}/-/clients/_archive.zip`, { cookie: `${PASS_COOKIE}=${passes.encode(pass)}` });
        expect(signedIn.status).toBe(200);
        const { entries, files } = await readZip(signedIn.body);
        expect(entries.map((e) => e.name)).toEqual(['UPLOAD_0003.jpg']);
        expect(files.get('UPLOAD_0003.jpg')!.equals(await photo(2))).toBe(true);
      });

      it("gives a client's favourites as one archive, in the order picked, at their rights in that gallery", async () => {
        const passes = w.svc.service.visitors.passCodec;
        const site = await w.svc.db.selectFrom('websites').select(['uuid', 'owner_id']).where('urlname', '=', w.urlname).executeTakeFirstOrThrow();
        const cookie = `${PASS_COOKIE}=${passes.encode(passes.withEmail(passes.fresh(site.uuid), 'fan@example.com'))}`;
        const client = { key: 'fan@example.com', email: 'fan@example.com', name: null, verified: true };
        const galleryOf = async (uuid: string) => {
          const row = await w.svc.db.selectFrom('galleries').select(['id', 'name']).where('uuid', '=', uuid).executeTakeFirstOrThrow();
          return { id: row.id, ownerId: site.owner_id, name: row.name, pickLimit: null };
        };
        // Originals (hires_download): the second photo then the first, in that order, byte for byte.
        const originals = await galleryOf(g.originals);
        for (const uuid of [uploaded[3], uploaded[2]]) await w.svc.core.lightboxes.pick(originals, client, (await mediaRow(uuid)).id);
        const res = await get(`${home}/_favourites/${g.originals}/_archive.zip`, { cookie });
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('application/zip');
        const { entries, files } = await readZip(res.body);
        expect(entries.map((e) => e.name)).toEqual(['UPLOAD_0004.jpg', 'UPLOAD_0003.jpg']);
        expect(files.get('UPLOAD_0004.jpg')!.equals(await photo(3))).toBe(true);
        // What clients did (docs/delivery.md "Activity"): the archive, with the bytes it sent, under the client's proved address.
        let archived: { kind?: string; gallery?: string; bytes?: number }[] = [];
        for (let i = 0; i < 100 && archived.length === 0; i++) {
          if (i) await new Promise((r) => setTimeout(r, 100));
          const activity = await w.client.request('GET', '/activity.xml', { client: 'fan@example.com' });
          archived = items(activity.doc, 'events').map((e) => ({ kind: text(e, 'kind'), gallery: text(e, 'gallery-uuid'), bytes: int(e, 'bytes') })).filter((e) => e.kind === 'archive');
        }
        expect(archived).toEqual([{ kind: 'archive', gallery: g.originals, bytes: res.body.length }]);
        // Proofs (comp_download): the watermarked 1280 of the one picked.
        await w.svc.core.lightboxes.pick(await galleryOf(g.proofs), client, (await mediaRow(uploaded[1])).id);
        const comps = await readZip((await get(`${home}/_favourites/${g.proofs}/_archive.zip`, { cookie })).body);
        expect(comps.entries.map((e) => e.name)).toEqual(['Dune.jpg']);
        const meta = await sharp(comps.files.get('Dune.jpg')!).metadata();
        expect(Math.max(meta.width!, meta.height!)).toBe(1280);
        // The selection page links it.
        const page = await visit(w.svc, `${home}/_favourites/${g.originals}`, { headers: { cookie, 'x-forwarded-for': freshAddress() } });
        expect(page.body).toContain(`href="${home}/_favourites/${g.originals}/_archive.zip" download>`);
        // No download right: 403 and no ZIP; nothing picked there: 404; no one to pick as: not a ZIP.
        await w.svc.core.lightboxes.pick(await galleryOf(g.open), client, (await mediaRow(uploaded[0])).id);
        const refused = await get(`${home}/_favourites/${g.open}/_archive.zip`, { cookie });
        expect(refused.status).toBe(403);
        expect(refused.body.subarray(0, 2).toString()).not.toBe('PK');
        expect((await get(`${home}/_favourites/${g.dayTwo}/_archive.zip`, { cookie })).status).toBe(404);
        const anonymous = await get(`${home}/_favourites/${g.originals}/_archive.zip`);
        expect(anonymous.body.subarray(0, 2).toString()).not.toBe('PK');
      });

      it('leaves out what it cannot give and says so in README.txt', async () => {
        await fileMedia(g.broken, 'gone.jpg', 'media/zz/gone-original.jpg', 1234);
        await fileMedia(g.broken, 'never uploaded.jpg', null, null);
        const res = await get(`${home}/-/broken/_archive.zip`);
        expect(res.status).toBe(200);
        const { entries, files } = await readZip(res.body);
        expect(entries.map((e) => e.name)).toEqual(['UPLOAD_0004.jpg', 'README.txt']);
        const readme = files.get('README.txt')!.toString('utf8');
        expect(readme).toContain('- gone.jpg');
        expect(readme).toContain('- never uploaded.jpg');
      });

      it('streams one archive at a time per address: a second waits (429), another address does not', async () => {
        const size = 48 * 1024 * 1024 + 7;
        const key = `media/zz/big-${storage}-${kind}.bin`;
        await put(key, Buffer.alloc(size, 7), size);
        await fileMedia(g.big, 'big.bin', key, size);
        const address = freshAddress();
        const first = await open(w.svc.url, `${home}/-/big/_archive.zip`, { 'x-forwarded-for': address });
        expect(first.statusCode).toBe(200);
        // The first bytes come at once; then the visitor stops reading: the archive waits for them.
        const start = await new Promise<Buffer>((resolve) => first.once('data', resolve));
        expect(start.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
        first.pause();
        const second = await fetchBytes(w.svc.url, `${home}/-/proofs/_archive.zip`, { 'x-forwarded-for': address });
        expect(second.status).toBe(429);
        expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
        expect(second.body.toString()).toContain('already being downloaded');
        expect((await fetchBytes(w.svc.url, `${home}/-/proofs/_archive.zip`, { 'x-forwarded-for': freshAddress() })).status).toBe(200);
        // The visitor goes away: the slot is free again.
        first.destroy();
        await expect.poll(async () => (await fetchBytes(w.svc.url, `${home}/-/proofs/_archive.zip`, { 'x-forwarded-for': address })).status, { timeout: 10_000 }).toBe(200);
      });

      // Defined on S3 only (the case); behind ARCHIVE_BIG, which the run's first lines announce (global-setup.ts).
      if (storage === 's3') it.runIf(BIG)(
        'builds a 5 GB archive from S3 as ZIP64, which standard tools read back whole',
        async () => {
          const each = 1024 * 1024 * 1024 + 13;
          const gallery = await create(w, 'Huge', w.rootUuid, { acl: [{ email: 'DEFAULT', read: 1, comp_download: 0, hires_download: 1 }] });
          for (let i = 0; i < 5; i++) {
            const key = `media/zz/huge-${kind}-${i}.bin`;
            await put(key, () => Readable.from(chunks(each, i)), each);
            await fileMedia(gallery, `huge-${i}.bin`, key, each);
          }
          const dir = await mkdtemp(join(tmpdir(), 'mps-zip64-'));
          try {
            const file = join(dir, 'huge.zip');
            const res = await fetchToFile(w.svc.url, `${home}/-/huge/_archive.zip`, file, { 'x-forwarded-for': freshAddress() });
            expect(res.status).toBe(200);
            expect((await stat(file)).size).toBeGreaterThan(5 * 1024 ** 3);
            const entries = await checkZipFile(file);
            expect(entries.map((e) => [e.name, e.size])).toEqual(Array.from({ length: 5 }, (_, i) => [`huge-${i}.bin`, each]));
            // ZIP64: the end-of-central-directory record of ZIP64 is there.
            const tail = await new Promise<Buffer>((resolve, reject) => {
              const parts: Buffer[] = [];
              stat(file).then((s) =>
                createReadStream(file, { start: s.size - 200 })
                  .on('data', (c) => parts.push(c as Buffer))
                  .on('end', () => resolve(Buffer.concat(parts)))
                  .on('error', reject),
              );
            });
            expect(tail.includes(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBe(true);
          } finally {
            await rm(dir, { recursive: true, force: true });
          }
        },
        3_600_000,
      );
    });
  }
});

/**
 * Photo `i` (site-support's `photo`) through the three upload steps, to the store the service
 * uses (S3 answers step 2 with 204), published to a gallery; named UPLOAD_000<i+1>.jpg.
 */
async function upload(w: World, galleryUuid: string, i: number): Promise<string> {
  const data = await photo(i);
  const r1 = await w.client.request('POST', '/medias.xml', {
    'media[content][upload_location]': 'REQUEST',
    'media[content][file_name]': `UPLOAD_${String(i + 1).padStart(4, '0')}.jpg`,
    'media[content][file_size]': data.length,
    'media[content][mime_type]': 'image/jpeg',
    'media[title]': `Photo ${i + 1}`,
    'media[publish_to_galleries]': galleryUuid,
  });
  const media = find(r1.doc, 'media')!;
  const r2 = await postUpload(text(media, 'upload-url')!, uploadParamsOf(media), { field: text(media, 'upload-file-param')!, data, name: 'photo.jpg', type: 'image/jpeg' });
  expect(r2.status).toBeLessThan(300);
  await w.client.completeUpload(media, data.length);
  return text(media, 'uuid')!;
}

/** `size` bytes in 1 MiB chunks, not all alike. */
function* chunks(size: number, seed: number): Generator<Buffer> {
  const block = Buffer.alloc(1024 * 1024, seed + 1);
  for (let left = size, n = 0; left > 0; left -= block.length, n++) {
    block.writeUInt32LE(n, 0);
    yield left >= block.length ? Buffer.from(block) : block.subarray(0, left);
  }
}
