// Replays against an S3 store (s3rver, which enforces neither POST policies
// nor sizes nor conditional writes: the stored objects are checked here with
// the AWS SDK). A presigned POST can be replayed until it expires, but it only
// ever names an incoming key: the verified object lives under a fresh key with
// the sniffed type, and whatever a replay leaves is swept.
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MediaPortfolioClient } from '../../src/client/index.js';
import { find, text, type XmlNode } from '../../src/client/xml.js';
import { eachDatabase, TestService } from '../support/service.js';
import { errorOf, jpegWithExif, pdf, png, postUpload, putRaw, startS3, uploadParamsOf, type LocalS3 } from './uploads-support.js';

eachDatabase((kind) => {
  let s3: LocalS3;
  let svc: TestService;
  let c: MediaPortfolioClient;
  let reader: S3Client;
  let jpeg: Buffer;

  beforeAll(async () => {
    s3 = await startS3();
    svc = await TestService.start(kind, s3.env);
    c = svc.client(await svc.app(), await svc.user());
    reader = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    jpeg = await jpegWithExif();
  });
  afterAll(async () => {
    reader?.destroy();
    await svc?.close();
    await s3?.close();
  });

  const head = (key: string) => reader.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }));
  const exists = (key: string) => head(key).then(() => true, () => false);
  async function bytes(key: string): Promise<Buffer> {
    const got = await reader.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    return Buffer.from(await got.Body!.transformToByteArray());
  }
  async function keysUnder(prefix: string): Promise<string[]> {
    const listed = await reader.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
    return (listed.Contents ?? []).map((o) => o.Key!);
  }
  const keyOf = (media: XmlNode) => uploadParamsOf(media).find(([k]) => k === 'key')![1];
  const storageKeyOf = async (media: XmlNode) =>
    (await svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', text(media, 'uuid')!).executeTakeFirstOrThrow()).storage_key!;

  async function step1(fields: Record<string, string | number>): Promise<XmlNode> {
    const r = await c.request('POST', '/medias.xml', { 'media[content][upload_location]': 'REQUEST', ...fields });
    return find(r.doc, 'media')!;
  }

  /** Step 2 with the Content-Type field exactly as the presigned POST pins it. */
  function step2(media: XmlNode, data: Buffer) {
    const fileParam = text(media, 'upload-file-param') ?? '';
    if (fileParam === '') return putRaw(text(media, 'upload-url')!, data);
    return postUpload(text(media, 'upload-url')!, uploadParamsOf(media), { field: fileParam, data, name: 'f.bin', type: text(media, 'mime-type') });
  }

  it('keeps the verified object under a fresh key with the sniffed type, whatever the presigned POST declared', async () => {
    const image = await png();
    const media = await step1({ 'media[content][file_name]': 'logo.svg', 'media[content][file_size]': image.length, 'media[content][mime_type]': 'image/svg+xml' });
    expect(text(media, 'upload-location')).toBe('s3');
    expect(keyOf(media)).toMatch(new RegExp(`^incoming/${text(media, 'uuid')}/[0-9a-f]{32}$`));
    expect(text(media, 'upload-params/Content-Type')).toBe('image/svg+xml');
    const r2 = await step2(media, image);
    expect(r2.status).toBeLessThan(300);
    expect((await head(keyOf(media))).ContentType).toBe('image/svg+xml');

    expect(text((await c.completeUpload(media, image.length)).doc, 'media/mime-type')).toBe('image/png');
    const final = await storageKeyOf(media);
    expect(final).toMatch(new RegExp(`^originals/${text(media, 'uuid')}/[0-9a-f]{32}$`));
    const stored = await head(final);
    expect(stored.ContentType).toBe('image/png');
    expect(stored.ContentDisposition).toBeUndefined();
    expect(await bytes(final)).toEqual(image);
    expect(await exists(keyOf(media))).toBe(false);
  });

  it('stores anything that is not an image or a video as an attachment', async () => {
    const doc = pdf();
    const media = await step1({ 'media[content][file_name]': 'page.pdf', 'media[content][file_size]': doc.length, 'media[content][mime_type]': 'application/pdf' });
    expect((await step2(media, doc)).status).toBeLessThan(300);
    await c.completeUpload(media, doc.length);
    const stored = await head(await storageKeyOf(media));
    expect(stored.ContentType).toBe('application/pdf');
    expect(stored.ContentDisposition).toBe('attachment');

    const direct = await c.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: 'direct.pdf', data: doc } });
    const directStored = await head(await storageKeyOf(find(direct.doc, 'media')!));
    expect(directStored.ContentType).toBe('application/pdf');
    expect(directStored.ContentDisposition).toBe('attachment');
  });

  it('a presigned POST replayed after step 3 cannot reach the verified object, and what it leaves is swept', async () => {
    const media = await step1({ 'media[content][file_name]': 'IMG_9.jpg', 'media[content][file_size]': jpeg.length, 'media[content][mime_type]': 'image/jpeg' });
    expect((await step2(media, jpeg)).status).toBeLessThan(300);
    await c.completeUpload(media, jpeg.length);
    const final = await storageKeyOf(media);

    const html = Buffer.from('<html><script>alert(1)</script></html>'.padEnd(jpeg.length, ' '));
    expect((await step2(media, html)).status).toBeLessThan(300); // the bucket cannot tell a replay
    expect(await bytes(final)).toEqual(jpeg);
    expect((await head(final)).ContentType).toBe('image/jpeg');
    expect(await exists(keyOf(media))).toBe(true);

    await svc.service.sweep();
    expect(await exists(keyOf(media))).toBe(true); // within the grace period
    const swept = await svc.service.sweep(new Date(Date.now() + 3600 * 1000));
    expect(swept.incoming).toBeGreaterThanOrEqual(1);
    expect(await exists(keyOf(media))).toBe(false);
    expect(await bytes(final)).toEqual(jpeg);
  });

  it('refuses a second POST to the service’s own target in front of the bucket, keeping the first file', async () => {
    const doc = pdf();
    const media = await step1({ 'media[content][file_name]': 'doc.pdf', 'media[content][file_size]': doc.length, 'media[content][mime_type]': 'application/pdf', 'media[content][failed_locations]': 's3' });
    expect(text(media, 'upload-location')).toBe('local');
    expect((await step2(media, doc)).status).toBe(200);
    const other = Buffer.from('%PDF-1.4\n% another document entirely\n%%EOF\n'.padEnd(doc.length, ' '), 'latin1');
    const again = await step2(media, other);
    expect(again.status).toBe(409);
    expect(errorOf(again)).toMatch(/already received its file/);
    expect(await bytes(keyOf(media))).toEqual(doc);
    await c.completeUpload(media, doc.length);
    expect(await bytes(await storageKeyOf(media))).toEqual(doc);
    const replay = await step2(media, other);
    expect(replay.status).toBe(409);
    expect(await keysUnder(`incoming/${text(media, 'uuid')}/`)).toEqual([]);
  });
});
