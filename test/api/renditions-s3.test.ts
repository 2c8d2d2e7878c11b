// Renditions on the S3 backend (s3rver): the three-step upload a desktop
// plugin makes (presigned POST) and a raw PUT both queue the ladder; the
// files land in the bucket and /files/<key> streams them from there, ranges
// included, the AVIF alternates too; a replace removes the old objects.
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MediaPortfolioClient } from '../../src/client/index.js';
import { all, find, text, type XmlNode } from '../../src/client/xml.js';
import { createGallery } from '../support/media.js';
import { eachDatabase, TestService } from '../support/service.js';
import { worldOn, type World } from '../support/world.js';
import { postUpload, putRaw, startS3, uploadParamsOf, type LocalS3 } from './uploads-support.js';

eachDatabase((kind) => {
  let s3: LocalS3;
  let w: World;
  let c: MediaPortfolioClient;
  let reader: S3Client;

  beforeAll(async () => {
    s3 = await startS3();
    w = await worldOn(await TestService.start(kind, { ...s3.env, RENDITION_AVIF: 'on' }));
    c = w.client;
    reader = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  });
  afterAll(async () => {
    reader?.destroy();
    await w?.svc.close();
    await s3?.close();
  });

  const exists = (key: string) =>
    reader.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key })).then(
      () => true,
      () => false,
    );

  async function threeSteps(data: Buffer, fields: Record<string, string | string[]>, capabilities?: string): Promise<string> {
    const r1 = await c.request('POST', '/medias.xml', {
      'media[content][upload_location]': 'REQUEST',
      'media[content][file_name]': 'photo.jpg',
      'media[content][file_size]': data.length,
      'media[content][mime_type]': 'image/jpeg',
      ...(capabilities ? { 'media[content][capabilities]': capabilities, 'media[content][failed_locations]': 's3,local' } : {}),
      ...fields,
    });
    const media = find(r1.doc, 'media')!;
    const fileParam = text(media, 'upload-file-param') ?? '';
    const r2 = fileParam === '' ? await putRaw(text(media, 'upload-url')!, data) : await postUpload(text(media, 'upload-url')!, uploadParamsOf(media), { field: fileParam, data, name: 'f.jpg', type: 'image/jpeg' });
    expect(r2.status).toBeLessThan(300);
    await c.completeUpload(media, data.length);
    return text(media, 'uuid')!;
  }

  async function settled(uuid: string): Promise<XmlNode> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const media = find((await c.request('GET', `/medias/${uuid}.xml`)).doc, 'media')!;
      if (text(media, 'renditions-state') !== 'processing') return media;
      if (Date.now() > deadline) throw new Error('still processing');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The keys of a media's AVIF alternates, once there are `count` of them (they follow the ladder). */
  async function avifOf(uuid: string, count: number): Promise<string[]> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const rows = await w.svc.db.selectFrom('renditions as r').innerJoin('medias as m', 'm.id', 'r.media_id').select('r.storage_key').where('m.uuid', '=', uuid).where('r.mime_type', '=', 'image/avif').execute();
      if (rows.length >= count) return rows.map((r) => r.storage_key);
      if (Date.now() > deadline) throw new Error(`${rows.length} AVIF alternates of ${count}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  // 1400 px: the rungs 320, 640 and 1280 (320 and 1280 get AVIF alternates).
  const photo = (background: string) => sharp({ create: { width: 1400, height: 933, channels: 3, background } }).jpeg().toBuffer();
  const urlsOf = (media: XmlNode) => all(media, 'renditions/rendition').map((r) => text(r, 'url')!);
  const keyOf = (url: string) => new URL(url).pathname.replace(/^\/files\//, '');

  it('makes the ladder after step 3 and a raw PUT, stores it in the bucket, serves it with ranges, and replaces it', async () => {
    const gallery = await createGallery(w, 'Open');
    const uuid = await threeSteps(await photo('#336699'), { 'media[publish_to_galleries]': [gallery] });
    const media = await settled(uuid);
    expect(text(media, 'renditions-state')).toBe('ready');
    const urls = urlsOf(media);
    expect(urls).toHaveLength(6);
    for (const url of urls) expect(await exists(keyOf(url))).toBe(true);

    const res = await fetch(urls[0]);
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    expect((await sharp(body).metadata()).width).toBe(320);
    const part = await fetch(urls[0], { headers: { range: 'bytes=2-5' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(body.subarray(2, 6));

    // The AVIF alternates of the small rungs follow the ladder into the bucket, served as AVIF (magic bytes).
    const avifKeys = await avifOf(uuid, 2);
    for (const key of avifKeys) {
      expect(await exists(key)).toBe(true);
      const got = await fetch(`${w.svc.url}/files/${key}`, { headers: { accept: 'image/avif,*/*' } });
      expect(got.headers.get('content-type')).toBe('image/avif');
      expect(Buffer.from(await got.arrayBuffer()).subarray(4, 12).toString('latin1')).toBe('ftypavif');
    }

    // Replace (media[replace]: same library and file name) through a raw PUT upload (location local-raw, stored into S3).
    const r1 = await c.request('POST', '/medias.xml', {
      'media[replace]': '1',
      'media[content][upload_location]': 'REQUEST',
      'media[content][file_name]': 'photo.jpg',
      'media[content][file_size]': (await photo('#993366')).length,
      'media[content][mime_type]': 'image/jpeg',
      'media[content][capabilities]': 'raw',
      'media[content][failed_locations]': 's3,local',
    });
    const m1 = find(r1.doc, 'media')!;
    expect(text(m1, 'uuid')).toBe(uuid);
    expect(text(m1, 'upload-location')).toBe('local-raw');
    expect((await putRaw(text(m1, 'upload-url')!, await photo('#993366'))).status).toBe(200);
    await c.completeUpload(m1, (await photo('#993366')).length);
    const after = urlsOf(await settled(uuid));
    expect(after).toHaveLength(6);
    for (const url of urls) expect(await exists(keyOf(url))).toBe(false);
    for (const key of avifKeys) expect(await exists(key)).toBe(false);
    for (const url of after) expect(await exists(keyOf(url))).toBe(true);
    // Two ladders and an AVIF encode on a shared machine.
  }, 180_000);
});
