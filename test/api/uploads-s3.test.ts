// The S3 backend against a local S3-compatible server (s3rver): clients send
// step 2 straight to the object store with a presigned POST. s3rver enforces
// neither the policy nor content-length-range, so these tests also show that
// step 3 verifies the stored object itself.
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MediaPortfolioClient } from '../../src/client/index.js';
import { find, text, type XmlNode } from '../../src/client/xml.js';
import { eachDatabase, TestService, type TestApp, type TestUser } from '../support/service.js';
import { rejection as failure } from '../support/world.js';
import { jpegWithExif, pdf, plainText, png, postUpload, putRaw, startS3, uploadParamsOf, type LocalS3 } from './uploads-support.js';


eachDatabase((kind) => {
  let s3: LocalS3;
  let svc: TestService;
  let app: TestApp;
  let user: TestUser;
  let c: MediaPortfolioClient;
  let reader: S3Client;
  let jpeg: Buffer;

  beforeAll(async () => {
    s3 = await startS3();
    svc = await TestService.start(kind, s3.env);
    app = await svc.app();
    user = await svc.user();
    c = svc.client(app, user);
    reader = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    jpeg = await jpegWithExif();
  });
  afterAll(async () => {
    reader?.destroy();
    await svc?.close();
    await s3?.close();
  });

  async function objectBytes(key: string): Promise<Buffer | undefined> {
    try {
      const got = await reader.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
      return Buffer.from(await got.Body!.transformToByteArray());
    } catch {
      return undefined;
    }
  }

  const objectExists = (key: string) =>
    reader.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key })).then(
      () => true,
      () => false,
    );

  async function step1(fields: Record<string, string | number>): Promise<XmlNode> {
    const r = await c.request('POST', '/medias.xml', { 'media[content][upload_location]': 'REQUEST', ...fields });
    return find(r.doc, 'media')!;
  }

  function step2(media: XmlNode, data: Buffer) {
    const fileParam = text(media, 'upload-file-param') ?? '';
    if (fileParam === '') return putRaw(text(media, 'upload-url')!, data);
    return postUpload(text(media, 'upload-url')!, uploadParamsOf(media), { field: fileParam, data, name: 'f.bin', type: text(media, 'mime-type') });
  }


  const keyOf = (media: XmlNode) => uploadParamsOf(media).find(([k]) => k === 'key')![1];

  it('uploads straight to the object store with a presigned POST, byte for byte', async () => {
    const media = await step1({ 'media[content][file_name]': 'IMG_1.jpg', 'media[content][file_size]': jpeg.length, 'media[content][mime_type]': 'image/jpeg' });
    expect(text(media, 'upload-location')).toBe('s3');
    expect(text(media, 'upload-url')).toBe(`${s3.endpoint}/${s3.bucket}`);
    const names = uploadParamsOf(media).map(([k]) => k);
    expect(names).toEqual(expect.arrayContaining(['key', 'Policy', 'X-Amz-Signature', 'Content-Type']));
    const r2 = await step2(media, jpeg);
    expect(r2.status).toBeGreaterThanOrEqual(200);
    expect(r2.status).toBeLessThan(300);
    const r3 = await c.completeUpload(media, jpeg.length);
    expect(text(r3.doc, 'media/mime-type')).toBe('image/jpeg');
    expect(text(r3.doc, 'media/file-size')).toBe(String(jpeg.length));
    // Step 3 moved the object from the key step 2 wrote to, to one no upload policy names.
    const row = await svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', text(media, 'uuid')!).executeTakeFirstOrThrow();
    expect(row.storage_key).not.toBe(keyOf(media));
    expect(await objectBytes(row.storage_key!)).toEqual(jpeg);
    expect(await objectExists(keyOf(media))).toBe(false);
    const details = await c.request('GET', `/medias/${text(media, 'uuid')}.xml`);
    expect(text(details.doc, 'media/width')).toBe('40');
    expect(text(details.doc, 'media/shot-at')).toBe('2021-06-15T08:20:30+00:00');
  });

  it('refuses in step 3 an object whose size is not the declared one, and deletes it', async () => {
    const media = await step1({ 'media[content][file_name]': 'IMG_2.jpg', 'media[content][file_size]': jpeg.length + 100, 'media[content][mime_type]': 'image/jpeg' });
    const r2 = await step2(media, jpeg);
    expect(r2.status).toBeLessThan(300); // s3rver does not enforce content-length-range
    expect(await objectExists(keyOf(media))).toBe(true);
    const err = await failure(c.completeUpload(media, jpeg.length + 100));
    expect(err.status).toBe(422);
    expect(err.stopWithError).toBe(false);
    expect(await objectExists(keyOf(media))).toBe(false);
  });

  it('refuses in step 3 bytes that are no accepted type, with stop-with-error', async () => {
    const bytes = plainText();
    const media = await step1({ 'media[content][file_name]': 'fake.jpg', 'media[content][file_size]': bytes.length, 'media[content][mime_type]': 'image/jpeg' });
    await step2(media, bytes);
    const err = await failure(c.completeUpload(media, bytes.length));
    expect(err.status).toBe(422);
    expect(err.stopWithError).toBe(true);
    expect(await objectExists(keyOf(media))).toBe(false);
  });

  it('falls back to the service’s own target when the object store failed for the client, and stores into S3', async () => {
    const doc = pdf();
    const media = await step1({ 'media[content][file_name]': 'doc.pdf', 'media[content][file_size]': doc.length, 'media[content][mime_type]': 'application/pdf', 'media[content][failed_locations]': 's3' });
    expect(text(media, 'upload-location')).toBe('local');
    expect(text(media, 'upload-url')).toBe(`${svc.url}/uploads/local.xml`);
    expect((await step2(media, doc)).status).toBe(200);
    expect(await objectBytes(keyOf(media))).toEqual(doc);
    expect(text((await c.completeUpload(media, doc.length)).doc, 'media/mime-type')).toBe('application/pdf');
    const stored = await svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', text(media, 'uuid')!).executeTakeFirstOrThrow();
    expect(await objectBytes(stored.storage_key!)).toEqual(doc);

    const image = await png();
    const raw = await step1({
      'media[content][file_name]': 'raw.png',
      'media[content][file_size]': image.length,
      'media[content][mime_type]': 'image/png',
      'media[content][capabilities]': 'raw',
      'media[content][failed_locations]': 's3,local',
    });
    expect(text(raw, 'upload-location')).toBe('local-raw');
    expect((await step2(raw, image)).status).toBe(200);
    const r3 = await c.completeUpload(raw, image.length);
    expect(text(r3.doc, 'media/mime-type')).toBe('image/png');
    const row = await svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', text(raw, 'uuid')!).executeTakeFirstOrThrow();
    expect(await objectBytes(row.storage_key!)).toEqual(image);
  });

  it('stores a direct upload in S3 and removes the object when the media is deleted', async () => {
    const image = await png(12, 9);
    const r = await c.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: 'direct.png', data: image } });
    const uuid = text(r.doc, 'media/uuid')!;
    const row = await svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', uuid).executeTakeFirstOrThrow();
    expect(await objectBytes(row.storage_key!)).toEqual(image);
    await c.request('DELETE', `/medias/${uuid}.xml`);
    expect(await objectExists(row.storage_key!)).toBe(false);
  });

  it('sweeps abandoned uploads out of the bucket', async () => {
    const media = await step1({ 'media[content][file_name]': 'gone.jpg', 'media[content][file_size]': jpeg.length, 'media[content][mime_type]': 'image/jpeg' });
    await step2(media, jpeg);
    expect(await objectExists(keyOf(media))).toBe(true);
    // A day ahead, the files a renditions job of an earlier test is still storing are due too: a
    // sweep deleting one while s3rver writes the next into the same folder crashed s3rver (ENOENT).
    await svc.jobsSettled();
    await svc.service.sweep(new Date(Date.now() + (svc.config.uploadExpirySeconds + 60) * 1000));
    expect(await objectExists(keyOf(media))).toBe(false);
    expect((await failure(c.request('GET', `/medias/${text(media, 'uuid')}.xml`))).status).toBe(404);
  });
});
