// The duplicate probe of large files (issue 29, item 9): a file over 32 MiB is probed by its size,
// its first and its last 8 MiB (src/uploads/probe.ts), so two different files can share a probe.
// Such a match is no skip before sending, and at the end the whole received file is compared with
// the library's before the upload is called a duplicate. Through the studio's tus endpoint, on
// SQLite and PostgreSQL, with the local store and with S3 (s3rver).
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3, type LocalS3 } from '../api/uploads-support.js';
import { eachDatabase, TestService } from '../support/service.js';
import { worldOn, type World } from '../support/world.js';
import { uuidsOf } from '../support/media.js';
import { StudioBrowser } from './studio-support.js';
import { TusSession } from './studio-upload-support.js';

const MIB = 1024 * 1024;
const SIZE = 33 * MIB;

/** A PDF (sniffed as one from its head) of SIZE bytes: a head and a tail shared by every file made here, `middle` between them. */
function largePdf(head: Buffer, tail: Buffer, middle: Buffer): Buffer {
  return Buffer.concat([head, middle, tail]);
}

/** The probe of src/uploads/probe.ts for a file over 32 MiB, computed here independently. */
function sampledProbe(data: Buffer): string {
  const h = createHash('sha256').update(`${data.length}\n`);
  h.update(data.subarray(0, 8 * MIB));
  h.update(data.subarray(data.length - 8 * MIB));
  return `s:${h.digest('hex')}`;
}

eachDatabase((kind) => {
  for (const store of ['local', 's3'] as const) {
    describe(`${store} store`, () => {
      let w: World;
      let tus: TusSession;
      let s3: LocalS3 | undefined;
      beforeAll(async () => {
        s3 = store === 's3' ? await startS3() : undefined;
        w = await worldOn(await TestService.start(kind, { MAX_UPLOAD_BYTES: String(64 * MIB), UPLOAD_EXPIRY_SECONDS: '3600', ...(s3?.env ?? {}) }));
        tus = await TusSession.of(await new StudioBrowser(w.svc).signIn(w.user));
      });
      afterAll(async () => {
        await w?.svc.close();
        await s3?.close();
      });

      it('keeps two files over 32 MiB with equal size, head and tail but a different middle; the same bytes again are a duplicate', async () => {
        const head = Buffer.concat([Buffer.from('%PDF-1.4\n%'), randomBytes(8 * MIB)]);
        const tail = Buffer.concat([randomBytes(8 * MIB), Buffer.from('\n%%EOF\n')]);
        const middleLength = SIZE - head.length - tail.length;
        const a = largePdf(head, tail, Buffer.alloc(middleLength, 0x61));
        const b = largePdf(head, tail, Buffer.alloc(middleLength, 0x62));
        expect(sampledProbe(a)).toBe(sampledProbe(b));

        const first = await tus.upload({ filename: 'scan-a.pdf' }, a, 5);
        expect(first.state).toBe('done');
        // Asked before sending: a sampled probe is no proof, so the screen sends the file.
        const asked = await tus.check([{ size: b.length, probe: sampledProbe(b) }]);
        expect(asked.status).toBe(200);
        expect(asked.body.media).toEqual([null]);
        const second = await tus.upload({ filename: 'scan-b.pdf' }, b, 5);
        expect(second.state).toBe('done');
        expect(second.media).not.toBe(first.media);
        // The same bytes as the first: recognised from the whole file.
        const again = await tus.upload({ filename: 'scan-a-again.pdf' }, a, 5);
        expect(again).toMatchObject({ state: 'duplicate', media: first.media });
        const listed = uuidsOf(await w.client.request('GET', '/medias.xml', { per_page: 100 }));
        expect(listed.sort()).toEqual([first.media, second.media].sort());
      });
    });
  }
});
