// The studio's resumable uploads over HTTP (docs/studio.md, Uploads), on SQLite and PostgreSQL,
// with the local store and with S3 (s3rver): tus creation, resume (HEAD, PATCH from the offset),
// the end through the API's own pipeline (the media read back through the signed API, published
// in the gallery), another user's upload a 404, CSRF and origin refused, the size limit, a bogus
// file refused by sniffing, a duplicate skipped, the end exactly once, an abandoned upload swept.
import { HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, find, text } from '../../src/client/xml.js';
import { eachDatabase, TestService } from '../support/service.js';
import { startWorld, worldOn, type World } from '../support/world.js';
import { uuidsOf } from '../support/media.js';
import { jpegWithExif, openMultipartUploads, plainText, png, startS3, type LocalS3 } from '../api/uploads-support.js';
import { StudioBrowser } from './studio-support.js';
import { TUS, TusSession, wholeProbe } from './studio-upload-support.js';

const MAX = 3 * 1024 * 1024;

async function mediaCount(w: World): Promise<number> {
  return uuidsOf(await w.client.request('GET', '/medias.xml', { per_page: 100 })).length;
}

/** Every media row of the service, live or not: a refused upload must leave none behind for the sweep. */
async function mediaRows(w: World): Promise<number> {
  return (await w.svc.db.selectFrom('medias').select('id').execute()).length;
}

async function galleriesOf(w: World, uuid: string): Promise<string[]> {
  const r = await w.client.request('GET', `/medias/${uuid}.xml`);
  const media = find(r.doc, 'media')!;
  expect(text(media, 'status')).toBe('live');
  return all(media, 'galleries/gallery/uuid').map((g) => g.text);
}

eachDatabase((kind) => {
  describe('local store', () => {
    let w: World;
    let tus: TusSession;
    let jpeg: Buffer;
    beforeAll(async () => {
      w = await startWorld(kind, { MAX_UPLOAD_BYTES: String(MAX), UPLOAD_EXPIRY_SECONDS: '3600' });
      tus = await TusSession.of(await new StudioBrowser(w.svc).signIn(w.user));
      jpeg = await jpegWithExif();
    });
    afterAll(() => w?.svc.close());

    it('takes a file in pieces, resumes from the offset, and ends in the API pipeline, published in the gallery', async () => {
      const page = await tus.b.get('/studio/upload');
      expect(page.body).toContain(w.rootUuid);
      const url = await tus.created({ filename: 'IMG_0001.jpg', size: jpeg.length, gallery: w.rootUuid });
      expect(url).toMatch(new RegExp(`^${TUS}/${w.user.id}-[0-9a-f]{32}$`));
      const half = Math.floor(jpeg.length / 2);
      expect((await tus.patch(url, 0, jpeg.subarray(0, half))).status).toBe(204);
      // The dropped connection: the client asks where to go on.
      const head = await tus.head(url);
      expect(head.status).toBe(200);
      expect(Number(head.headers.get('upload-offset'))).toBe(half);
      expect(Number(head.headers.get('upload-length'))).toBe(jpeg.length);
      // A PATCH from a wrong offset changes nothing.
      expect((await tus.patch(url, 0, jpeg.subarray(0, 10))).status).toBe(409);
      // Private file modes, like every stored file.
      const id = url.split('/').pop()!;
      const dir = join(w.svc.config.dataDir, 'uploads-tus');
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
      expect((await stat(join(dir, id))).mode & 0o777).toBe(0o600);
      expect((await stat(join(dir, `${id}.json`))).mode & 0o777).toBe(0o600);
      const last = await tus.patch(url, half, jpeg.subarray(half));
      expect(last.status).toBe(204);
      expect(last.headers.get('x-studio-upload-state')).toBe('done');
      const outcome = await tus.finish(id);
      expect(outcome.status).toBe(200);
      expect(outcome.body.state).toBe('done');
      const uuid = outcome.body.media!;
      expect(last.headers.get('x-studio-media')).toBe(uuid);
      // Read back through the signed API: the sniffed type, the size, the EXIF title, the gallery.
      const r = await w.client.request('GET', `/medias/${uuid}.xml`);
      const media = find(r.doc, 'media')!;
      expect(text(media, 'mime-type')).toBe('image/jpeg');
      expect(Number(text(media, 'file-size'))).toBe(jpeg.length);
      expect(text(media, 'file-name')).toBe('IMG_0001.jpg');
      expect(await galleriesOf(w, uuid)).toEqual([w.rootUuid]);
      // What tus kept is gone (the file moved into the store).
      await expect(stat(join(dir, id))).rejects.toThrow();
      await expect(stat(join(dir, `${id}.json`))).rejects.toThrow();
      // The renditions job of the API's pipeline runs.
      await w.svc.jobsSettled();
      const ready = find((await w.client.request('GET', `/medias/${uuid}.xml`)).doc, 'media')!;
      expect(all(find(ready, 'renditions')!, 'rendition').length).toBeGreaterThan(0);
    });

    it('ends an upload exactly once, whatever the client repeats', async () => {
      const before = await mediaCount(w);
      const data = await png(31, 17);
      const url = await tus.created({ filename: 'once.png', size: data.length });
      const id = url.split('/').pop()!;
      // The finish before the last byte: nothing yet.
      expect((await tus.finish(id)).body.state).toBe('receiving');
      expect((await tus.patch(url, 0, data)).status).toBe(204);
      const answers = await Promise.all([tus.finish(id), tus.finish(id), tus.finish(id), tus.finish(id)]);
      const uuid = answers[0].body.media!;
      for (const a of answers) expect(a.body).toMatchObject({ state: 'done', media: uuid });
      // The last answer lost: the client asks the offset (whole, so it asks the outcome) or repeats the PATCH; nothing is taken twice.
      const head = await tus.head(url);
      expect(head.status).toBe(200);
      expect(head.headers.get('upload-offset')).toBe(String(data.length));
      expect((await tus.patch(url, data.length, Buffer.alloc(0))).status).toBe(204);
      expect((await tus.patch(url, 0, data)).status).toBe(409);
      expect((await tus.finish(id)).body).toMatchObject({ state: 'done', media: uuid });
      expect(await mediaCount(w)).toBe(before + 1);
    });

    it('skips a file already in the library: asked before, and checked again from the bytes', async () => {
      const data = await png(40, 23);
      const first = await tus.upload({ filename: 'dup-a.png' }, data);
      expect(first.state).toBe('done');
      const other = await png(41, 23);
      const asked = await tus.check([
        { size: data.length, probe: wholeProbe(data) },
        { size: other.length, probe: wholeProbe(other) },
        // The same bytes' probe with another size is another file.
        { size: data.length + 1, probe: wholeProbe(data) },
      ]);
      expect(asked.status).toBe(200);
      expect(asked.body.media).toEqual([first.media, null, null]);
      // Sent anyway (another name): recognised at the end, no second media.
      const before = await mediaCount(w);
      const again = await tus.upload({ filename: 'dup-b.png' }, data);
      expect(again).toMatchObject({ state: 'duplicate', media: first.media });
      expect(await mediaCount(w)).toBe(before);
      // A malformed check is a 422, not a 5xx.
      expect((await tus.check([{ size: 1, probe: 'nope' }])).status).toBe(422);
    });

    it('refuses what sniffing refuses, with the reason, and keeps nothing', async () => {
      const before = await mediaCount(w);
      const rows = await mediaRows(w);
      const bogus = plainText();
      const r = await tus.upload({ filename: 'photo.jpg' }, bogus, 1);
      expect(r.state).toBe('refused');
      expect(r.reason).toMatch(/not an image, video or PDF/);
      expect(await mediaCount(w)).toBe(before);
      // The media the file's life made for it went with the refusal.
      expect(await mediaRows(w)).toBe(rows);
      await expect(stat(join(w.svc.config.dataDir, 'uploads-tus', r.id))).rejects.toThrow();
      // Asked again: the same refusal.
      expect((await tus.finish(r.id)).body).toMatchObject({ state: 'refused', reason: r.reason });
    });

    it('refuses the end when the chosen gallery went meanwhile, and leaves no media', async () => {
      const gallery = text((await w.client.createGallery(w.urlname, { name: 'Gone soon', parent: w.rootUuid })).doc, 'gallery/uuid')!;
      const before = await mediaRows(w);
      // Other bytes than the first test's photo, which would be "already in the library".
      const late = Buffer.concat([jpeg, Buffer.from('late')]);
      const url = await tus.created({ filename: 'late.jpg', size: late.length, gallery });
      const id = url.split('/').pop()!;
      await w.client.deleteGallery(w.urlname, gallery);
      expect((await tus.patch(url, 0, late)).status).toBe(204);
      const end = await tus.finish(id);
      expect(end.status).toBe(200);
      expect(end.body).toMatchObject({ state: 'refused' });
      expect(end.body.reason).toMatch(/gallery/);
      expect(await mediaRows(w)).toBe(before);
    });

    it('refuses a file over the upload limit at creation, and a body beyond the declared length', async () => {
      const big = await tus.create({ filename: 'huge.mov', size: MAX + 1 });
      expect(big.status).toBe(413);
      const url = await tus.created({ filename: 'small.png', size: 10 });
      expect((await tus.patch(url, 0, Buffer.alloc(20))).status).toBe(413);
      // No length at all (deferred): refused, nothing recorded.
      const deferred = await tus.request('POST', TUS, tus.headers({ 'upload-defer-length': '1', 'upload-metadata': `filename ${Buffer.from('x.jpg').toString('base64')}` }));
      expect(deferred.status).toBe(422);
    });

    it("answers 404 for another user's upload, whatever the method", async () => {
      const url = await tus.created({ filename: 'mine.jpg', size: jpeg.length });
      const id = url.split('/').pop()!;
      const stranger = await worldOn(w.svc);
      const them = await TusSession.of(await new StudioBrowser(w.svc).signIn(stranger.user));
      expect((await them.head(url)).status).toBe(404);
      expect((await them.patch(url, 0, jpeg)).status).toBe(404);
      expect((await them.request('DELETE', url, them.headers())).status).toBe(404);
      expect((await them.finish(id)).status).toBe(404);
      // An id of theirs with my random part, or a made-up one: 404 too.
      expect((await them.head(`${TUS}/${stranger.user.id}-${id.split('-')[1]}`)).status).toBe(404);
      expect((await them.head(`${TUS}/../../etc/passwd`)).status).toBe(404);
      // A gallery they may not see is refused at creation.
      const refused = await them.create({ filename: 'x.jpg', size: 10, gallery: w.rootUuid });
      expect(refused.status).toBe(422);
      // Mine is untouched.
      expect(Number((await tus.head(url)).headers.get('upload-offset'))).toBe(0);
    });

    it('refuses tus requests without the CSRF header, with a foreign Origin, or without a session', async () => {
      expect((await tus.create({ filename: 'a.jpg', size: 10 }, { csrf: null })).status).toBe(403);
      expect((await tus.create({ filename: 'a.jpg', size: 10 }, { csrf: tus.csrf.slice(0, -2) + 'xx' })).status).toBe(403);
      expect((await tus.create({ filename: 'a.jpg', size: 10 }, { origin: 'https://evil.example' })).status).toBe(403);
      const url = await tus.created({ filename: 'b.png', size: 10 });
      expect((await tus.patch(url, 0, Buffer.alloc(10), { csrf: null })).status).toBe(403);
      expect(Number((await tus.head(url)).headers.get('upload-offset'))).toBe(0);
      const anonymous = await fetch(w.svc.url + TUS, { method: 'POST', headers: { 'tus-resumable': '1.0.0', 'upload-length': '10', origin: w.svc.url } });
      expect(anonymous.status).toBe(401);
      const finish = await fetch(w.svc.url + '/studio/uploads/finish', { method: 'POST', headers: tus.headers({ 'content-type': 'application/json' }, { csrf: null }), body: '{"id":"1-00000000000000000000000000000000"}' });
      expect(finish.status).toBe(403);
    });

    it('sweeps an abandoned upload with its bytes once it expires', async () => {
      const url = await tus.created({ filename: 'left.jpg', size: jpeg.length });
      const id = url.split('/').pop()!;
      expect((await tus.patch(url, 0, jpeg.subarray(0, 100))).status).toBe(204);
      const file = join(w.svc.config.dataDir, 'uploads-tus', id);
      expect((await stat(file)).size).toBe(100);
      await w.svc.service.sweep(new Date());
      expect((await stat(file)).size).toBe(100);
      const swept = await w.svc.service.sweep(new Date(Date.now() + 3601 * 1000));
      expect(swept.resumable).toBeGreaterThanOrEqual(1);
      await expect(stat(file)).rejects.toThrow();
      expect((await tus.head(url)).status).toBe(404);
      expect((await tus.finish(id)).status).toBe(404);
    });

    it('bounds the uploads a user keeps open', async () => {
      const u = await worldOn(w.svc);
      const t = await TusSession.of(await new StudioBrowser(w.svc).signIn(u.user));
      for (let i = 0; i < 24; i++) expect((await t.create({ filename: `f${i}.jpg`, size: 10 })).status).toBe(201);
      const over = await t.create({ filename: 'one-more.jpg', size: 10 });
      expect(over.status).toBe(429);
    });
  });

  describe('S3 store', () => {
    let s3: LocalS3;
    let w: World;
    let tus: TusSession;
    beforeAll(async () => {
      s3 = await startS3();
      w = await worldOn(await TestService.start(kind, s3.env));
      tus = await TusSession.of(await new StudioBrowser(w.svc).signIn(w.user));
    });
    afterAll(async () => {
      await w?.svc.close();
      await s3?.close();
    });

    it('takes a file in pieces into the bucket (an S3 multipart upload, nothing on disk) and ends it in the API pipeline; a duplicate and a bogus file are refused', async () => {
      const jpeg = await jpegWithExif();
      const url = await tus.created({ filename: 'bucket.jpg', size: jpeg.length, gallery: w.rootUuid });
      const id = url.split('/').pop()!;
      const half = Math.floor(jpeg.length / 2);
      expect((await tus.patch(url, 0, jpeg.subarray(0, half))).status).toBe(204);
      expect(await openMultipartUploads(s3)).toContain(`resumable/${id}`);
      await expect(stat(join(w.svc.config.dataDir, 'uploads-tus', id))).rejects.toThrow();
      expect(Number((await tus.head(url)).headers.get('upload-offset'))).toBe(half);
      expect((await tus.patch(url, half, jpeg.subarray(half))).status).toBe(204);
      const done = await tus.finish(id);
      expect(done.body.state).toBe('done');
      expect(await galleriesOf(w, done.body.media!)).toEqual([w.rootUuid]);
      // The file went into the bucket under an original key; the multipart upload is over.
      const stored = await w.svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', done.body.media!).executeTakeFirstOrThrow();
      expect(stored.storage_key).toMatch(/^originals\//);
      const reader = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
      const head = await reader.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: stored.storage_key! }));
      expect(head.ContentLength).toBe(jpeg.length);
      expect(head.ContentType).toBe('image/jpeg');
      expect(await openMultipartUploads(s3)).not.toContain(`resumable/${id}`);
      const again = await tus.upload({ filename: 'again.jpg' }, jpeg);
      expect(again).toMatchObject({ state: 'duplicate', media: done.body.media });
      const bogus = await tus.upload({ filename: 'b.jpg' }, plainText(), 1);
      expect(bogus.state).toBe('refused');
      expect(await mediaCount(w)).toBe(1);
      // Whatever the end (a media, a duplicate, a refusal), nothing of the uploads stays in the bucket.
      const left = await reader.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'resumable/' }));
      reader.destroy();
      expect(left.Contents ?? []).toEqual([]);
      expect(await openMultipartUploads(s3)).toEqual([]);
    });
  });
});
