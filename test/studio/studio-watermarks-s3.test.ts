// Image watermarks kept in the object store (docs/watermarks.md, "Where images are kept";
// src/artists/watermark-files.ts), with S3 storage (s3rver). On PostgreSQL, two nodes on the same
// database and bucket, each with a DATA_DIR of its own: the image is uploaded through the studio
// of node A (ROLE=api: it runs no job), and node B (ROLE=all, a real process) makes the renditions
// of a photo uploaded to A and draws B's studio preview; both carry the watermark, from the
// bucket. On SQLite, which two nodes cannot share, the same on one node. Then: an image of the old
// layout (a file at DATA_DIR/watermarks/<uuid>.png on the node that renders, nothing in the
// bucket) is still drawn; deleting a watermark deletes its object.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, find, text, type XmlNode } from '../../src/client/xml.js';
import { nowIso } from '../../src/database/db.js';
import { startS3, type LocalS3 } from '../api/uploads-support.js';
import { childEnv, runBuilt, startSecondNode, type SecondNode } from '../support/processes.js';
import { eachDatabase, REDIS_URL, TestService } from '../support/service.js';
import { worldOn, type World } from '../support/world.js';
import { StudioBrowser } from './studio-support.js';

/** The RGB of the pixel at the centre of an image. */
async function centre(bytes: Buffer): Promise<[number, number, number]> {
  const { width, height } = await sharp(bytes).metadata();
  const { data } = await sharp(bytes)
    .extract({ left: Math.floor(width! / 2), top: Math.floor(height! / 2), width: 1, height: 1 })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return [data[0], data[1], data[2]];
}

const keyOf = (url: string) => new URL(url).pathname.replace(/^\/files\//, '');

eachDatabase((kind) => {
  describe(`image watermarks in the bucket (${kind} + S3)`, () => {
    let s3: LocalS3;
    let bucket: S3Client;
    let w: World;
    let b: StudioBrowser;
    let csrf: string;
    /** The node that makes the renditions and draws the preview: B on PostgreSQL, the same one on SQLite. */
    let other: { url: string; dataDir: string };
    let second: SecondNode | undefined;

    const exists = (key: string) =>
      bucket.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key })).then(
        () => true,
        () => false,
      );
    const object = async (key: string) => Buffer.from(await (await bucket.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }))).Body!.transformToByteArray());
    const cookie = () => [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ');

    async function settled(uuid: string): Promise<XmlNode> {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const media = find((await w.client.request('GET', `/medias/${uuid}.xml`)).doc, 'media')!;
        if (text(media, 'renditions-state') !== 'processing') return media;
        if (Date.now() > deadline) throw new Error('still processing');
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    /** A grey photo uploaded to A; its renditions once made, by name (JPEG), with their `watermarked` flags. */
    async function photo(params: Record<string, string> = {}) {
      const data = await sharp({ create: { width: 1400, height: 1000, channels: 3, background: '#808080' } }).jpeg().toBuffer();
      const up = await w.client.request('POST', '/medias.xml', params, { file: { field: 'media[content]', fileName: 'grey.jpg', data } });
      const uuid = text(up.doc, 'media/uuid')!;
      const media = await settled(uuid);
      expect(text(media, 'renditions-error')).toBeUndefined();
      expect(text(media, 'renditions-state')).toBe('ready');
      const jpeg = (name: string) => {
        const r = all(media, 'renditions/rendition').find((x) => text(x, 'name') === name && text(x, 'type') === 'image/jpeg')!;
        return object(keyOf(text(r, 'url')!));
      };
      const flags = await w.svc.db.selectFrom('renditions as r').innerJoin('medias as m', 'm.id', 'r.media_id').select(['r.name', 'r.watermarked']).where('m.uuid', '=', uuid).execute();
      return { uuid, jpeg, watermarked: Object.fromEntries(flags.map((f) => [f.name, f.watermarked])) };
    }

    beforeAll(async () => {
      s3 = await startS3();
      bucket = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
      if (kind === 'postgres' && !REDIS_URL) throw new Error('two nodes (ROLE=api and another) need TEST_REDIS_URL');
      const env: Record<string, string> =
        kind === 'postgres' ? { ...s3.env, UPLOAD_SECRET: randomUUID(), REDIS_URL: REDIS_URL!, ROLE: 'api' } : s3.env;
      const svc = await TestService.start(kind, env);
      w = await worldOn(svc);
      b = await new StudioBrowser(svc).signIn(w.user);
      csrf = StudioBrowser.csrf(await b.get('/studio/watermarks'));
      if (kind === 'postgres') {
        second = await startSecondNode({ url: svc.url, databaseUrl: svc.config.databaseUrl! }, { ...env, ROLE: 'all' });
        other = { url: second.url, dataDir: second.dataDir };
      } else {
        other = { url: svc.url, dataDir: svc.config.dataDir };
      }
    }, 120_000);

    afterAll(async () => {
      await second?.close();
      await w?.svc.close();
      bucket?.destroy();
      await s3?.close();
    });

    let mark: string;

    it(`keeps an image uploaded through the studio in the bucket, and ${kind === 'postgres' ? 'another node' : 'the node'} draws it on the renditions and in the preview`, async () => {
      const red = await sharp({ create: { width: 300, height: 300, channels: 4, background: '#ff0000ff' } }).png().toBuffer();
      const form = new FormData();
      form.append('csrf', csrf);
      form.append('strength', '100');
      form.append('position', 'center');
      form.append('default', 'yes');
      form.append('file', new Blob([red], { type: 'image/png' }), 'red.png');
      const res = await fetch(`${w.svc.url}/studio/watermarks/libraries/${w.user.defaultArtistUuid}/image`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: cookie(), origin: w.svc.url, 'sec-fetch-site': 'same-origin' },
        body: form,
      });
      expect(res.status).toBe(303);
      const row = await w.svc.db.selectFrom('watermarks').select(['uuid', 'storage_key', 'is_default']).where('file_name', '=', 'red.png').executeTakeFirstOrThrow();
      mark = row.uuid;
      expect(row).toMatchObject({ storage_key: `watermarks/${mark}.png`, is_default: 1 });
      const made = await photo();
      expect(made.watermarked).toEqual({ '320': 0, '640': 0, '1152': 1, '1280': 1 });
      // The opaque red image in the middle of the 1280; the 320, never watermarked, grey there.
      const [r, g] = await centre(await made.jpeg('1280'));
      expect(r).toBeGreaterThan(200);
      expect(g).toBeLessThan(60);
      const [r0, g0] = await centre(await made.jpeg('320'));
      expect(Math.abs(r0 - g0)).toBeLessThan(12);

      // The preview on the rendering node: the same session, sent there.
      const preview = await fetch(`${other.url}/studio/watermarks/${mark}/preview.jpg`, { headers: { cookie: cookie() } });
      expect(preview.status).toBe(200);
      expect(preview.headers.get('content-type')).toBe('image/jpeg');
      const [pr, pg] = await centre(Buffer.from(await preview.arrayBuffer()));
      expect(pr).toBeGreaterThan(200);
      expect(pg).toBeLessThan(60);

      // In the bucket, the same bytes; nothing left in the receiving node's DATA_DIR.
      expect(await object(row.storage_key!)).toEqual(red);
      expect(existsSync(join(w.svc.config.dataDir, 'watermarks'))).toBe(false);
      // The rendering node's copy: private, as everything under DATA_DIR.
      const cache = join(other.dataDir, 'watermark-cache', 'watermarks');
      expect((await stat(cache)).mode & 0o777).toBe(0o700);
      expect((await stat(join(cache, `${mark}.png`))).mode & 0o777).toBe(0o600);
      expect(await readFile(join(cache, `${mark}.png`))).toEqual(red);
    });

    it('still draws an image of the old layout, a file in the rendering node\'s DATA_DIR that the bucket does not have', async () => {
      const uuid = randomUUID();
      const key = `watermarks/${uuid}.png`;
      await mkdir(join(other.dataDir, 'watermarks'), { recursive: true, mode: 0o700 });
      await writeFile(join(other.dataDir, key), await sharp({ create: { width: 300, height: 300, channels: 4, background: '#0000ffff' } }).png().toBuffer(), { mode: 0o600 });
      const artist = await w.svc.db.selectFrom('artists').select('id').where('uuid', '=', w.user.defaultArtistUuid).executeTakeFirstOrThrow();
      await w.svc.db
        .insertInto('watermarks')
        .values({ uuid, artist_id: artist.id, file_name: 'blue.png', storage_key: key, width: 300, height: 300, strength: 100, position: 'center', tile: 0, is_default: 0, created_at: nowIso() })
        .execute();
      expect(await exists(key)).toBe(false);
      const made = await photo({ 'media[watermark_uuid]': uuid });
      expect(made.watermarked['1280']).toBe(1);
      const [r, g, bl] = await centre(await made.jpeg('1280'));
      expect(bl).toBeGreaterThan(200);
      expect(r).toBeLessThan(60);
      expect(g).toBeLessThan(60);
    });

    it(`puts an image given to the admin command into the bucket${kind === 'postgres' ? ', from a machine of its own' : ''}, and it is drawn`, async () => {
      // On PostgreSQL, a DATA_DIR of its own: the image can only reach the rendering node through the bucket.
      const adminDir = kind === 'postgres' ? await mkdtemp(join(tmpdir(), 'mps-admin-')) : w.svc.config.dataDir;
      const png = join(adminDir, `green-${randomUUID()}.png`);
      const green = await sharp({ create: { width: 300, height: 300, channels: 4, background: '#00ff00ff' } }).png().toBuffer();
      await writeFile(png, green);
      try {
        const env = childEnv({ ...s3.env, DATA_DIR: adminDir, DATABASE_URL: w.svc.config.databaseUrl });
        const res = await runBuilt('cli/admin.js', ['watermark', 'create', '--artist', w.user.defaultArtistUuid, '--file', png, '--strength', '100', '--position', 'center', '--json'], { env, timeoutMs: 60_000 });
        // Not stderr empty: the AWS SDK warns there that its later versions will need Node 22.
        expect(res.code, res.stderr).toBe(0);
        const { uuid } = JSON.parse(res.stdout) as { uuid: string };
        expect(await object(`watermarks/${uuid}.png`)).toEqual(green);
        expect(existsSync(join(adminDir, 'watermarks', `${uuid}.png`))).toBe(false);
        const made = await photo({ 'media[watermark_uuid]': uuid });
        expect(made.watermarked['1280']).toBe(1);
        const [r, g] = await centre(await made.jpeg('1280'));
        expect(g).toBeGreaterThan(200);
        expect(r).toBeLessThan(60);
      } finally {
        if (kind === 'postgres') await rm(adminDir, { recursive: true, force: true });
        else await rm(png, { force: true });
      }
    }, 90_000);

    it('deletes the image from the bucket with its watermark', async () => {
      const key = `watermarks/${mark}.png`;
      expect(await exists(key)).toBe(true);
      expect((await b.post(`/studio/watermarks/${mark}/delete`, { csrf, confirm: 'yes' })).status).toBe(303);
      expect(await exists(key)).toBe(false);
      // Recorded for removal with the row, and the record taken off once the object went.
      expect(await w.svc.db.selectFrom('file_deletions').select('id').where('storage_key', '=', key).execute()).toEqual([]);
      // The deleting node's copy goes too (on PostgreSQL, B's stays: its key is never used again).
      if (kind === 'sqlite') expect(existsSync(join(other.dataDir, 'watermark-cache', key))).toBe(false);
    });
  });
});
