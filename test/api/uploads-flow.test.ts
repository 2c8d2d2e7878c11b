// The three upload steps of spec 4.7 end to end over HTTP, as existing clients
// run them (client-compat "Uploads"), on local storage: SQLite and PostgreSQL.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MediaPortfolioClient } from '../../src/client/index.js';
import { find, text, type XmlNode } from '../../src/client/xml.js';
import { eachDatabase, TestService, type TestApp, type TestUser } from '../support/service.js';
import { rejection as failure } from '../support/world.js';
import { errorOf, jpegWithExif, mp4, pdf, plainText, png, postUpload, putRaw, uploadParamsOf } from './uploads-support.js';


function step1(c: MediaPortfolioClient, fields: Record<string, string | number>) {
  return c.request('POST', '/medias.xml', { 'media[content][upload_location]': 'REQUEST', ...fields });
}


/** Step 2 the way clients do it: POST whatever upload-method says, params in the order given, the file last. */
function step2(media: XmlNode, data: Buffer, fileName = 'upload.bin') {
  const fileParam = text(media, 'upload-file-param') ?? '';
  const url = text(media, 'upload-url')!;
  if (fileParam === '') return putRaw(url, data);
  return postUpload(url, uploadParamsOf(media), { field: fileParam, data, name: fileName, type: text(media, 'mime-type') });
}

eachDatabase((kind) => {
  let svc: TestService;
  let app: TestApp;
  let user: TestUser;
  let c: MediaPortfolioClient;
  let jpeg: Buffer;

  beforeAll(async () => {
    svc = await TestService.start(kind);
    app = await svc.app();
    user = await svc.user();
    c = svc.client(app, user);
    jpeg = await jpegWithExif();
  });
  afterAll(() => svc?.close());

  const storedFile = (key: string) => join(svc.config.dataDir, 'media', ...key.split('/'));
  const keyOf = (media: XmlNode) => uploadParamsOf(media).find(([k]) => k === 'key')![1];
  /** Where the media's verified file is: step 3 moves it away from the key step 2 wrote to. */
  const storedKeyOf = async (uuid: string) => (await svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', uuid).executeTakeFirstOrThrow()).storage_key!;
  const pendingUploads = () => svc.db.selectFrom('uploads').selectAll().execute();

  it('runs the three steps byte for byte and reads size, type, dimensions and capture time from the file', async () => {
    const r1 = await step1(c, { 'media[content][file_name]': 'IMG_0001.JPG', 'media[content][file_size]': jpeg.length, 'media[content][mime_type]': 'image/jpg' });
    const media = find(r1.doc, 'media')!;
    const uuid = text(media, 'uuid')!;
    expect(text(r1.doc, 'media-uuid')).toBe(uuid);
    expect(text(media, 'upload-location')).toBe('local');
    expect(text(media, 'upload-url')).toBe(`${svc.url}/uploads/local.xml`);
    expect(text(media, 'upload-method')).toBe('POST');
    expect(text(media, 'upload-file-param')).toBe('file');
    expect(text(media, 'mime-type')).toBe('image/jpeg');
    expect(uploadParamsOf(media).map(([k]) => k)).toEqual(['key', 'policy', 'signature', 'Content-Type']);
    expect(text(media, 'upload-params/Content-Type')).toBe('image/jpeg');

    const r2 = await step2(media, jpeg, 'IMG_0001.JPG');
    expect(r2.status).toBe(200);

    const r3 = await c.completeUpload(media, jpeg.length);
    expect(text(r3.doc, 'media/mime-type')).toBe('image/jpeg');
    expect(text(r3.doc, 'media/file-size')).toBe(String(jpeg.length));
    expect(await readFile(storedFile(await storedKeyOf(uuid)))).toEqual(jpeg);
    expect(existsSync(storedFile(keyOf(media)))).toBe(false);
    expect(await pendingUploads()).toEqual([]);

    const details = await c.request('GET', `/medias/${uuid}.xml`);
    expect(text(details.doc, 'media/file-size')).toBe(String(jpeg.length));
    expect(text(details.doc, 'media/width')).toBe('40');
    expect(text(details.doc, 'media/height')).toBe('30');
    expect(text(details.doc, 'media/shot-at')).toBe('2021-06-15T08:20:30+00:00');

    // A repeated step 3 (a client retrying after a lost reply) answers the same.
    const again = await c.completeUpload(media, jpeg.length);
    expect(text(again.doc, 'media/file-size')).toBe(String(jpeg.length));
  });

  it('replies with the type the bytes have, whatever was declared', async () => {
    const doc = pdf();
    const r1 = await step1(c, { 'media[content][file_name]': 'scan', 'media[content][file_size]': doc.length, 'media[content][mime_type]': 'application/octet-stream' });
    const media = find(r1.doc, 'media')!;
    expect(text(media, 'mime-type')).toBe('application/octet-stream');
    expect((await step2(media, doc)).status).toBe(200);
    const r3 = await c.completeUpload(media, doc.length);
    expect(text(r3.doc, 'media/mime-type')).toBe('application/pdf');

    const video = mp4();
    const v1 = await step1(c, { 'media[content][file_name]': 'clip.mov', 'media[content][file_size]': video.length, 'media[content][mime_type]': 'image/jpeg' });
    const vm = find(v1.doc, 'media')!;
    expect((await step2(vm, video)).status).toBe(200);
    // Step 3 as most clients send it: a multipart POST with _method=PUT.
    const v3 = await c.request(
      'PUT',
      `/medias/${text(vm, 'uuid')}.xml`,
      {
        'media[content][upload_location]': text(vm, 'upload-location')!,
        'media[content][file_name]': text(vm, 'file-name')!,
        'media[content][file_size]': video.length,
        'media[content][mime_type]': text(vm, 'mime-type')!,
        'media[content][upload_duration]': 3,
      },
      { multipart: true, methodOverride: true },
    );
    expect(text(v3.doc, 'media/mime-type')).toBe('video/mp4');
  });

  it('refuses an upload whose size does not match the declared one', async () => {
    const r1 = await step1(c, { 'media[content][file_name]': 'short.jpg', 'media[content][file_size]': jpeg.length + 10, 'media[content][mime_type]': 'image/jpeg' });
    const media = find(r1.doc, 'media')!;
    const uuid = text(media, 'uuid')!;
    const r2 = await step2(media, jpeg);
    expect(r2.status).toBe(400);
    const err = await failure(c.completeUpload(media, jpeg.length + 10));
    expect(err.status).toBe(422);
    expect(err.stopWithError).toBe(false);
    // Step 3 naming another size than step 1 is refused too.
    const other = await failure(c.completeUpload(media, jpeg.length));
    expect(other.status).toBe(422);
    const details = await c.request('GET', `/medias/${uuid}.xml`);
    expect(text(details.doc, 'media/status')).toBe('pending');
  });

  it('refuses bytes that are no accepted type with stop-with-error, and removes them', async () => {
    const bytes = plainText();
    const r1 = await step1(c, { 'media[content][file_name]': 'holiday.jpg', 'media[content][file_size]': bytes.length, 'media[content][mime_type]': 'image/jpeg' });
    const media = find(r1.doc, 'media')!;
    expect((await step2(media, bytes)).status).toBe(200);
    expect(existsSync(storedFile(keyOf(media)))).toBe(true);
    const err = await failure(c.completeUpload(media, bytes.length));
    expect(err.status).toBe(422);
    expect(err.stopWithError).toBe(true);
    expect(existsSync(storedFile(keyOf(media)))).toBe(false);
    // A media that never had a file does not outlive the refusal.
    expect((await failure(c.request('GET', `/medias/${text(media, 'uuid')}.xml`))).status).toBe(404);
  });

  it('refuses in step 1 a declared file it would never accept, and creates no media', async () => {
    const before = await svc.db.selectFrom('medias').select('id').orderBy('id').execute();
    const typed = await failure(step1(c, { 'media[content][file_name]': 'notes.txt', 'media[content][file_size]': 100, 'media[content][mime_type]': 'text/plain' }));
    expect(typed.status).toBe(422);
    expect(typed.stopWithError).toBe(true);
    const huge = await failure(step1(c, { 'media[content][file_name]': 'huge.jpg', 'media[content][file_size]': svc.config.maxUploadBytes + 1, 'media[content][mime_type]': 'image/jpeg' }));
    expect(huge.status).toBe(422);
    expect(huge.stopWithError).toBe(true);
    expect(await svc.db.selectFrom('medias').select('id').orderBy('id').execute()).toEqual(before);
  });

  it('hands back a file name clients can splice between quotes', async () => {
    const r1 = await step1(c, { 'media[content][file_name]': 'C:\\photos\\my "best"\nshot.jpg', 'media[content][file_size]': 10, 'media[content][mime_type]': 'image/jpeg' });
    const media = find(r1.doc, 'media')!;
    expect(text(media, 'file-name')).toBe('my bestshot.jpg');
    for (const node of [media, ...media.children, ...(find(media, 'upload-params')?.children ?? [])]) {
      if (node.children.length === 0) expect(node.text).not.toMatch(/["\\\r\n]/);
    }
  });

  it('offers a raw upload to a self-authorising URL when the client can do raw and the multipart location failed', async () => {
    const image = await png();
    const r1 = await step1(c, {
      'media[content][file_name]': 'raw.png',
      'media[content][file_size]': image.length,
      'media[content][mime_type]': 'image/png',
      'media[content][capabilities]': 'raw',
      'media[content][failed_locations]': 'local',
    });
    const media = find(r1.doc, 'media')!;
    expect(text(media, 'upload-location')).toBe('local-raw');
    expect(text(media, 'upload-file-param') ?? '').toBe('');
    expect(text(media, 'upload-method')).toBe('PUT');
    const r2 = await step2(media, image);
    expect(r2.status).toBe(200);
    const r3 = await c.completeUpload(media, image.length);
    expect(text(r3.doc, 'media/mime-type')).toBe('image/png');

    // Without the raw capability, multipart stays the answer.
    const plain = await step1(c, { 'media[content][file_name]': 'b.png', 'media[content][file_size]': image.length, 'media[content][mime_type]': 'image/png', 'media[content][failed_locations]': 'local' });
    expect(text(plain.doc, 'media/upload-location')).toBe('local');
  });

  it('replaces the file of a live media (PUT, then media[replace]=1 by file name), keeping its uuid and dropping the old file', async () => {
    const first = await png(10, 10);
    const r1 = await step1(c, { 'media[content][file_name]': 'swap.png', 'media[content][file_size]': first.length, 'media[content][mime_type]': 'image/png' });
    const m1 = find(r1.doc, 'media')!;
    const uuid = text(m1, 'uuid')!;
    await step2(m1, first);
    await c.completeUpload(m1, first.length);
    const firstKey = await storedKeyOf(uuid);

    const replacement = await png(20, 12);
    const p1 = await c.request(
      'PUT',
      `/medias/${uuid}.xml`,
      { 'media[content][upload_location]': 'REQUEST', 'media[content][file_name]': 'swap.png', 'media[content][file_size]': replacement.length, 'media[content][mime_type]': 'image/png' },
      { multipart: true },
    );
    const m2 = find(p1.doc, 'media')!;
    expect(text(m2, 'uuid')).toBe(uuid);
    // Until step 3 the media keeps its current file.
    expect(existsSync(storedFile(firstKey))).toBe(true);
    expect((await step2(m2, replacement)).status).toBe(200);
    await c.completeUpload(m2, replacement.length);
    expect(existsSync(storedFile(firstKey))).toBe(false);
    const secondKey = await storedKeyOf(uuid);
    expect(await readFile(storedFile(secondKey))).toEqual(replacement);
    const details = await c.request('GET', `/medias/${uuid}.xml`);
    expect(text(details.doc, 'media/width')).toBe('20');

    const third = await png(30, 5);
    const q1 = await step1(c, { 'media[replace]': 1, 'media[content][file_name]': 'swap.png', 'media[content][file_size]': third.length, 'media[content][mime_type]': 'image/png' });
    const m3 = find(q1.doc, 'media')!;
    expect(text(m3, 'uuid')).toBe(uuid);
    await step2(m3, third);
    await c.completeUpload(m3, third.length);
    expect(existsSync(storedFile(secondKey))).toBe(false);
    expect(text((await c.request('GET', `/medias/${uuid}.xml`)).doc, 'media/width')).toBe('30');
  });

  it('takes a direct multipart upload in media[content], sniffed and refused like the three steps', async () => {
    const image = await png(8, 6);
    const r = await c.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: 'direct.png', contentType: 'application/octet-stream', data: image } });
    const uuid = text(r.doc, 'media/uuid')!;
    expect(text(r.doc, 'media/mime-type')).toBe('image/png');
    expect(text(r.doc, 'media/file-size')).toBe(String(image.length));
    const row = await svc.db.selectFrom('medias').selectAll().where('uuid', '=', uuid).executeTakeFirstOrThrow();
    expect(row.status).toBe('live');
    expect(await readFile(storedFile(row.storage_key!))).toEqual(image);

    const refused = await failure(c.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: 'x.jpg', contentType: 'image/jpeg', data: plainText() } }));
    expect(refused.status).toBe(422);
    expect(refused.stopWithError).toBe(true);
    expect(await svc.db.selectFrom('medias').select('id').where('file_name', '=', 'x.jpg').execute()).toEqual([]);
  });

  it('cleans up an upload whose step 3 never came: the pending row, the file and the media', async () => {
    const r1 = await step1(c, { 'media[content][file_name]': 'abandoned.jpg', 'media[content][file_size]': jpeg.length, 'media[content][mime_type]': 'image/jpeg' });
    const media = find(r1.doc, 'media')!;
    const uuid = text(media, 'uuid')!;
    await step2(media, jpeg);
    expect(existsSync(storedFile(keyOf(media)))).toBe(true);

    const notYet = await svc.service.sweep();
    expect(notYet.uploads).toBe(0);
    const later = new Date(Date.now() + (svc.config.uploadExpirySeconds + 60) * 1000);
    const swept = await svc.service.sweep(later);
    expect(swept.uploads).toBeGreaterThanOrEqual(1);
    expect(existsSync(storedFile(keyOf(media)))).toBe(false);
    expect(await pendingUploads()).toEqual([]);
    const gone = await failure(c.request('GET', `/medias/${uuid}.xml`));
    expect(gone.status).toBe(404);
    // Live medias are never touched by the sweep.
    const live = await svc.db.selectFrom('medias').select('id').where('status', '=', 'live').execute();
    expect(live.length).toBeGreaterThan(0);
  });

  it('refuses step 3 for another location than step 1 chose, and once the upload has expired', async () => {
    const r1 = await step1(c, { 'media[content][file_name]': 'late.jpg', 'media[content][file_size]': jpeg.length, 'media[content][mime_type]': 'image/jpeg' });
    const media = find(r1.doc, 'media')!;
    const uuid = text(media, 'uuid')!;
    await step2(media, jpeg);
    const elsewhere = await failure(
      c.request(
        'PUT',
        `/medias/${uuid}.xml`,
        { 'media[content][upload_location]': 'local-raw', 'media[content][file_name]': 'late.jpg', 'media[content][file_size]': jpeg.length, 'media[content][mime_type]': 'image/jpeg' },
        { multipart: true },
      ),
    );
    expect(elsewhere.status).toBe(422);
    const media_id = (await svc.db.selectFrom('medias').select('id').where('uuid', '=', uuid).executeTakeFirstOrThrow()).id;
    await svc.db.updateTable('uploads').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('media_id', '=', media_id).execute();
    const late = await failure(c.completeUpload(media, jpeg.length));
    expect(late.status).toBe(422);
    expect(late.message).toMatch(/expired/);
  });

  it('refuses step 2 with an XML error after the policy has been tampered with', async () => {
    const r1 = await step1(c, { 'media[content][file_name]': 't.jpg', 'media[content][file_size]': jpeg.length, 'media[content][mime_type]': 'image/jpeg' });
    const media = find(r1.doc, 'media')!;
    const params = uploadParamsOf(media);
    const policy = params.find(([k]) => k === 'policy')![1];
    const decoded = JSON.parse(Buffer.from(policy, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...decoded, maxSize: decoded.maxSize * 100 })).toString('base64url');
    const r2 = await postUpload(text(media, 'upload-url')!, params.map(([k, v]) => [k, k === 'policy' ? forged : v] as [string, string]), { field: 'file', data: jpeg });
    expect(r2.status).toBe(403);
    expect(errorOf(r2)).toMatch(/signature/);
  });
});
