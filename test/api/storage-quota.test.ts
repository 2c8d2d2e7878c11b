// The per-account storage quota (issue 29, item 6; docs/security.md, Storage quota): stored
// originals plus open uploads' declared sizes, checked at each way in (step 1 of the three-step
// upload, a direct upload, the studio's tus creation), refused with 422 quota_exceeded and
// stop-with-error; a running total kept by the database (a delete frees room at once); an
// operator's per-account quota; uploads that received nothing for an hour expire early. On
// SQLite and PostgreSQL, through HTTP against a started service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaPortfolioClient } from '../../src/client/index.js';
import { find, text, type XmlNode } from '../../src/client/xml.js';
import { eachDatabase, TestService } from '../support/service.js';
import { rejection, startWorld, worldOn, type World } from '../support/world.js';
import { StudioBrowser } from '../studio/studio-support.js';
import { TusSession } from '../studio/studio-upload-support.js';
import { png, postUpload, startS3, uploadParamsOf, type LocalS3 } from './uploads-support.js';

const QUOTA = 100_000;

function step1(c: MediaPortfolioClient, size: number, name = 'a.png') {
  return c.request('POST', '/medias.xml', {
    'media[content][upload_location]': 'REQUEST',
    'media[content][file_name]': name,
    'media[content][file_size]': size,
    'media[content][mime_type]': 'image/png',
  });
}

function direct(c: MediaPortfolioClient, data: Buffer, name = 'direct.png') {
  return c.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: name, contentType: 'application/octet-stream', data } });
}

/** A PNG of at least `bytes` bytes (noise does not compress). */
async function pngOf(bytes: number): Promise<Buffer> {
  const side = Math.ceil(Math.sqrt(bytes / 3)) + 8;
  const sharp = (await import('sharp')).default;
  const raw = Buffer.alloc(side * side * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 2654435761) >>> 24;
  return sharp(raw, { raw: { width: side, height: side, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
}

eachDatabase((kind) => {
  describe('storage quota', () => {
    let w: World;
    beforeAll(async () => {
      w = await startWorld(kind, { STORAGE_QUOTA_BYTES: String(QUOTA) });
    });
    afterAll(() => w?.svc.close());

    const stored = async () => Number((await w.svc.db.selectFrom('media_stamps').select('stored_bytes').where('owner_id', '=', w.user.id).executeTakeFirst())?.stored_bytes ?? 0);
    const pendingMedias = async () => (await w.svc.db.selectFrom('medias').select('id').where('owner_id', '=', w.user.id).where('status', '=', 'pending').execute()).length;

    it('refuses a step 1 whose declared size does not fit, naming the quota, and keeps nothing', async () => {
      const before = await pendingMedias();
      const e = await rejection(step1(w.client, QUOTA + 1, 'too-big.png'));
      expect(e.status).toBe(422);
      expect(e.errorCode).toBe('quota_exceeded');
      expect(e.stopWithError).toBe(true);
      expect(e.message).toMatch(/storage quota of this account is .*\(100000 bytes\)/);
      expect(text(e.doc!, 'quota-bytes')).toBe(String(QUOTA));
      expect(await pendingMedias()).toBe(before);
    });

    it("counts open uploads' declared sizes and stored originals, and a delete frees its room at once", async () => {
      // An open step 1 holds its declared size.
      const open = find((await step1(w.client, 60_000, 'open.png')).doc, 'media')!;
      const second = await rejection(step1(w.client, 60_000, 'second.png'));
      expect(second.errorCode).toBe('quota_exceeded');
      // Step 1 again for the same media replaces its upload: not counted twice.
      const again = await w.client.request(
        'PUT',
        `/medias/${text(open, 'uuid')}.xml`,
        { 'media[content][upload_location]': 'REQUEST', 'media[content][file_name]': 'open.png', 'media[content][file_size]': 60_000, 'media[content][mime_type]': 'image/png' },
        { multipart: true },
      );
      expect(find(again.doc, 'media')).toBeDefined();
      await w.client.request('DELETE', `/medias/${text(open, 'uuid')}.xml`);

      // A stored original counts by its size (the running total), and a delete frees it.
      const image = await pngOf(70_000);
      const kept = await direct(w.client, image);
      const uuid = text(kept.doc, 'media/uuid')!;
      expect(await stored()).toBe(image.length);
      const refused = await rejection(step1(w.client, QUOTA - image.length + 1));
      expect(refused.errorCode).toBe('quota_exceeded');
      // Replacing its file (step 1 on the media): the new file takes the old one's room.
      const replacing = await w.client.request(
        'PUT',
        `/medias/${uuid}.xml`,
        { 'media[content][upload_location]': 'REQUEST', 'media[content][file_name]': 'direct.png', 'media[content][file_size]': 60_000, 'media[content][mime_type]': 'image/png' },
        { multipart: true },
      );
      expect(text(find(replacing.doc, 'media')!, 'upload-url')).toBeTruthy();
      await w.client.request('DELETE', `/medias/${uuid}.xml`);
      expect(await stored()).toBe(0);
      const fits = find((await step1(w.client, QUOTA - 10, 'fits.png')).doc, 'media')!;
      await w.client.request('DELETE', `/medias/${text(fits, 'uuid')}.xml`);
    });

    it('refuses a direct upload that does not fit once its file arrived, and keeps nothing', async () => {
      const image = await pngOf(QUOTA + 1000);
      const before = (await w.svc.db.selectFrom('medias').select('id').where('owner_id', '=', w.user.id).execute()).length;
      const e = await rejection(direct(w.client, image, 'huge.png'));
      expect(e.status).toBe(422);
      expect(e.errorCode).toBe('quota_exceeded');
      expect(e.stopWithError).toBe(true);
      expect((await w.svc.db.selectFrom('medias').select('id').where('owner_id', '=', w.user.id).execute()).length).toBe(before);
      expect(await stored()).toBe(0);
    });

    it("takes the operator's quota for an account over the default, and the default again", async () => {
      const other = await w.svc.user();
      const c = w.svc.client(w.app, other);
      expect((await rejection(step1(c, QUOTA * 3))).errorCode).toBe('quota_exceeded');
      await w.svc.core.users.setQuota(other.email, QUOTA * 5);
      const m = find((await step1(c, QUOTA * 3)).doc, 'media')!;
      await c.request('DELETE', `/medias/${text(m, 'uuid')}.xml`);
      await w.svc.core.users.setQuota(other.email, null);
      expect((await rejection(step1(c, QUOTA * 3))).errorCode).toBe('quota_exceeded');
      // 0: no new file at all.
      await w.svc.core.users.setQuota(other.email, 0);
      expect((await rejection(step1(c, 1))).errorCode).toBe('quota_exceeded');
    });

    it("refuses the studio's resumable upload that does not fit at its creation, and shows the use on the upload screen", async () => {
      const tus = await TusSession.of(await new StudioBrowser(w.svc).signIn(w.user));
      const refused = await tus.create({ filename: 'big.mov', size: QUOTA + 1 });
      expect(refused.status).toBe(422);
      expect(refused.body).toMatch(/storage quota of this account/);
      // An open resumable upload holds its announced size against the other ways in.
      const url = await tus.created({ filename: 'open.mov', size: 90_000 });
      expect((await rejection(step1(w.client, 20_000))).errorCode).toBe('quota_exceeded');
      const page = await tus.b.get('/studio/upload');
      expect(page.body).toMatch(/Storage used: 87\.9 KiB of 97\.7 KiB \(90%\)/);
      expect((await tus.request('DELETE', url, tus.headers())).status).toBe(204);
    });
  });

  for (const store of ['local', 's3'] as const) {
    describe(`uploads that received nothing for an hour (${store} store)`, () => {
      let w: World;
      let s3: LocalS3 | undefined;
      beforeAll(async () => {
        s3 = store === 's3' ? await startS3() : undefined;
        w = await worldOn(await TestService.start(kind, { UPLOAD_EXPIRY_SECONDS: String(24 * 3600), ...(s3?.env ?? {}) }));
      });
      afterAll(async () => {
        await w?.svc.close();
        await s3?.close();
      });

      const hourLater = () => new Date(Date.now() + 3601 * 1000);

      it('expire early, three-step and resumable alike; those that received their bytes keep their day', async () => {
        const image = await png(8, 6);
        const idle = find((await step1(w.client, image.length, 'idle.png')).doc, 'media')!;
        const sent: XmlNode = find((await step1(w.client, image.length, 'sent.png')).doc, 'media')!;
        // The service's own target answers 200, S3's presigned POST 204.
        expect([200, 204]).toContain((await postUpload(text(sent, 'upload-url')!, uploadParamsOf(sent), { field: text(sent, 'upload-file-param')!, data: image })).status);
        const tus = await TusSession.of(await new StudioBrowser(w.svc).signIn(w.user));
        const idleTus = (await tus.created({ filename: 'idle.mov', size: 5000 })).split('/').pop()!;
        const startedUrl = await tus.created({ filename: 'started.mov', size: 5000 });
        expect((await tus.patch(startedUrl, 0, Buffer.alloc(100))).status).toBe(204);

        // Not yet an hour: nothing goes.
        await w.svc.service.sweep(new Date(Date.now() + 1800 * 1000));
        expect((await w.svc.db.selectFrom('uploads').select('id').execute()).length).toBe(2);
        expect((await w.svc.db.selectFrom('resumable_uploads').select('id').execute()).length).toBe(2);

        const swept = await w.svc.service.sweep(hourLater());
        expect(swept.uploads).toBe(1);
        const uploads = await w.svc.db.selectFrom('uploads').innerJoin('medias', 'medias.id', 'uploads.media_id').select('medias.uuid').execute();
        expect(uploads.map((u) => u.uuid)).toEqual([text(sent, 'uuid')]);
        expect(await w.svc.db.selectFrom('medias').select('id').where('uuid', '=', text(idle, 'uuid')!).execute()).toEqual([]);
        const resumable = await w.svc.db.selectFrom('resumable_uploads').select('id').execute();
        expect(resumable.map((r) => r.id)).toEqual([startedUrl.split('/').pop()]);
        expect(resumable.map((r) => r.id)).not.toContain(idleTus);
      });
    });
  }
});
