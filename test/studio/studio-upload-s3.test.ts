// The studio's resumable uploads with S3 storage (docs/studio.md, Uploads; src/resumable-uploads/tus-s3.ts),
// over HTTP as the studio's script sends them (session cookie, X-Studio-CSRF, the studio's
// Origin), against s3rver with the test server's ListParts/AbortMultipartUpload addition
// (test/api/uploads-support.ts). On PostgreSQL, an upload (34 MiB: four S3 parts and a tail) started on one node (this process's
// service) is cut and resumed on a second node, a real process on the same database and bucket
// with a DATA_DIR of its own: its offset can only come from the bucket. On SQLite, which two
// nodes cannot share, the same upload is cut and resumed on the one node. Then: the upload ends
// once, in the API pipeline, and the original served by the service has the bytes sent; an
// upload removed by its owner or swept after its expiry leaves no multipart upload, no object;
// an object of the wrong length is refused at the end; another user's upload is a 404 on either node.
// On PostgreSQL with Redis (TEST_REDIS_URL), both nodes have REDIS_URL, as scaled out: the tus
// locker is the shared one (src/resumable-uploads/tus-locker.ts), and a request on the second node for an
// upload whose PATCH the first holds open waits until the first has ended it, then goes on from
// the offset it stored.
import { createHash, randomBytes } from 'node:crypto';
import { readdir, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { find, text } from '../../src/client/xml.js';
import { FileUrls } from '../../src/file-storage/file-urls.js';
import { openMultipartUploads, startS3, wholeParts, type LocalS3 } from '../api/uploads-support.js';
import { until } from '../support/crash.js';
import { startSecondNode, type SecondNode } from '../support/processes.js';
import { eachDatabase, REDIS_URL, TestService } from '../support/service.js';
import { worldOn, type World } from '../support/world.js';
import { StudioBrowser } from './studio-support.js';
import { TusSession } from './studio-upload-support.js';

const MiB = 1024 * 1024;
/** src/resumable-uploads/tus-s3.ts TUS_PART_BYTES: the S3 part size. */
const PART = 8 * MiB;

/** An MP4 (an `ftyp` box, then one `mdat` box of random bytes) of exactly `size` bytes: a video to the sniffer, unique each run. */
function video(size: number): Buffer {
  const ftyp = Buffer.alloc(32);
  ftyp.writeUInt32BE(32, 0);
  ftyp.write('ftyp', 4, 'latin1');
  ftyp.write('isom', 8, 'latin1');
  ftyp.writeUInt32BE(512, 12);
  ftyp.write('isomiso2avc1mp41', 16, 'latin1');
  const mdat = randomBytes(size - 32);
  mdat.writeUInt32BE(size - 32, 0);
  mdat.write('mdat', 4, 'latin1');
  return Buffer.concat([ftyp, mdat]);
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * A PATCH whose connection is dropped after `bytes` were written (and taken by the server: each
 * write waits for the socket to drain). Resolves once the socket is gone.
 */
async function cutPatch(base: string, path: string, headers: Record<string, string>, offset: number, bytes: Buffer, declared: number): Promise<void> {
  const req = http.request(base + path, {
    method: 'PATCH',
    headers: { ...headers, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream', 'content-length': String(declared) },
  });
  req.on('error', () => undefined);
  req.on('response', (res) => res.resume());
  for (let i = 0; i < bytes.length; i += MiB) {
    if (!req.write(bytes.subarray(i, i + MiB))) await new Promise((r) => req.once('drain', r));
  }
  req.destroy();
  await new Promise((r) => req.once('close', r));
}

/**
 * A PATCH from `offset` to the end of `data` (Content-Length the whole rest) that sends its first
 * `fast` bytes at once, then one small chunk at a time with a pause between (a slow line), until
 * the server answers or the connection goes; the whole rest only if nothing stops it first.
 * Resolves with the answer (its status and Upload-Offset), or 'reset'.
 */
function slowPatch(base: string, path: string, headers: Record<string, string>, data: Buffer, offset: number, fast: number): Promise<{ status: number; offset: number } | 'reset'> {
  const req = http.request(base + path, {
    method: 'PATCH',
    headers: { ...headers, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream', 'content-length': String(data.length - offset) },
  });
  let ended = false;
  const answer = new Promise<{ status: number; offset: number } | 'reset'>((resolve) => {
    req.on('response', (res) => {
      ended = true;
      res.resume();
      resolve({ status: res.statusCode ?? 0, offset: Number(res.headers['upload-offset']) });
      // The server does not read the rest (its answer closes the connection).
      req.destroy();
    });
    req.on('error', () => resolve('reset'));
    req.on('close', () => {
      ended = true;
      resolve('reset');
    });
  });
  void (async () => {
    for (let at = offset; at < data.length && !ended; ) {
      const end = at - offset < fast ? Math.min(at + MiB, offset + fast) : at + 16 * 1024;
      const piece = data.subarray(at, Math.min(end, data.length));
      at += piece.length;
      if (!req.write(piece)) await Promise.race([new Promise((r) => req.once('drain', r)), answer]);
      if (at - offset >= fast) await new Promise((r) => setTimeout(r, 50));
    }
    if (!ended) req.end();
  })().catch(() => undefined);
  return answer;
}

/** The same browser session, its requests sent to another node (as a load balancer would): the studio's address, cookie and token unchanged. */
function via(tus: TusSession, base: string): TusSession {
  const session = new TusSession(tus.b, tus.csrf);
  session.request = async (method, path, headers, body) => {
    const res = await fetch(base + path, { method, headers, body: body as BodyInit | undefined, redirect: 'manual' });
    return { status: res.status, headers: res.headers, body: await res.text() };
  };
  session.finish = async (id) => {
    const res = await fetch(base + '/studio/uploads/finish', { method: 'POST', headers: tus.headers({ 'content-type': 'application/json', accept: 'application/json' }), body: JSON.stringify({ id }) });
    return { status: res.status, body: (await res.json()) as { state?: string; media?: string } };
  };
  return session;
}

eachDatabase((kind) => {
  describe(`resumable uploads in the bucket (${kind} + S3)`, () => {
    let s3: LocalS3;
    let bucket: S3Client;
    let w: World;
    let tus: TusSession;
    /** Where a resume is sent: the second node on PostgreSQL, the same one on SQLite. */
    let other: { url: string; dataDir?: string };
    let second: SecondNode | undefined;
    const secret = randomBytes(32).toString('hex');

    /** Object keys of the bucket under `prefix`. */
    async function objects(prefix: string): Promise<string[]> {
      const page = await bucket.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
      return (page.Contents ?? []).map((o) => o.Key!);
    }

    beforeAll(async () => {
      s3 = await startS3();
      bucket = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
      // Two nodes share Redis as scaled out (rate limits, sweep lock, the tus locker).
      const redis: Record<string, string> = kind === 'postgres' && REDIS_URL ? { REDIS_URL } : {};
      const env = { ...s3.env, UPLOAD_SECRET: secret, MAX_UPLOAD_BYTES: String(64 * MiB), UPLOAD_EXPIRY_SECONDS: '3600', ...redis };
      const svc = await TestService.start(kind, env);
      w = await worldOn(svc);
      tus = await TusSession.of(await new StudioBrowser(svc).signIn(w.user));
      if (kind === 'postgres') {
        second = await startSecondNode({ url: svc.url, databaseUrl: svc.config.databaseUrl! }, env);
        other = { url: second.url, dataDir: second.dataDir };
      } else {
        other = { url: svc.url };
      }
    }, 120_000);

    afterAll(async () => {
      await second?.close();
      await w?.svc.close();
      bucket?.destroy();
      await s3?.close();
    });

    it(`takes a file larger than an S3 part, cut midway, and resumes it ${kind === 'postgres' ? 'on another node' : 'after the cut'} from the offset the bucket holds; it ends once, in the pipeline, with the bytes sent`, async () => {
      // Over the probe's 32 MiB: the server reads its two 8 MiB samples back from the bucket as ranges.
      const size = 34 * MiB + 12_345;
      const data = video(size);
      const locked = text((await w.client.createGallery(w.urlname, { name: 'Delivered', parent: w.rootUuid, password: 'secret' })).doc, 'gallery/uuid')!;
      const url = await tus.created({ filename: 'clip.mp4', size, gallery: locked });
      const id = url.split('/').pop()!;
      const key = `resumable/${id}`;
      // 12 MiB: one whole part in the multipart upload, the 4 MiB beyond it kept as the upload's tail.
      const first = 12 * MiB;
      expect((await tus.patch(url, 0, data.subarray(0, first))).status).toBe(204);
      expect(await openMultipartUploads(s3)).toContain(key);
      expect((await objects(key)).sort()).toEqual([key + '.info', key + '.part']);
      // Then a PATCH for the rest whose connection drops after 5 MiB more.
      await cutPatch(w.svc.url, url, tus.headers(), first, data.subarray(first, first + 5 * MiB), size - first);
      // The first node settles what it received (its own HEAD waits for the cut request to end).
      const here = Number((await tus.head(url)).headers.get('upload-offset'));
      expect(here).toBeGreaterThan(first);
      expect(here).toBeLessThan(size);

      // The resume, sent elsewhere: the offset is the bucket's (its parts and its tail).
      const there = via(tus, other.url);
      const head = await there.head(url);
      expect(head.status).toBe(200);
      expect(Number(head.headers.get('upload-offset'))).toBe(here);
      expect(Number(head.headers.get('upload-length'))).toBe(size);
      // A PATCH from a wrong offset changes nothing there either.
      expect((await there.patch(url, 0, data.subarray(0, 10))).status).toBe(409);
      const last = await there.patch(url, here, data.subarray(here));
      expect(last.status).toBe(204);
      expect(last.headers.get('x-studio-upload-state')).toBe('done');
      const media = last.headers.get('x-studio-media')!;
      expect(media).toMatch(/^[0-9a-f-]{36}$/);
      if (other.dataDir) {
        // The second node kept nothing of it: no tus file, and its part files went once sent.
        await expect(stat(join(other.dataDir, 'uploads-tus', id))).rejects.toThrow();
        expect(await readdir(join(other.dataDir, 'uploads-tus-parts'))).toEqual([]);
        expect((await stat(join(other.dataDir, 'uploads-tus-parts'))).mode & 0o777).toBe(0o700);
      }
      expect((await stat(join(w.svc.config.dataDir, 'uploads-tus-parts'))).mode & 0o777).toBe(0o700);

      // Once: asked on both nodes, at once and again, the same media; one media in the library.
      const answers = await Promise.all([tus.finish(id), there.finish(id), tus.finish(id), there.finish(id)]);
      for (const a of answers) expect(a.body).toMatchObject({ state: 'done', media });
      expect((await there.patch(url, size, Buffer.alloc(0))).status).toBe(204);
      expect(Number((await tus.head(url)).headers.get('upload-offset'))).toBe(size);
      const rows = await w.svc.db.selectFrom('medias').select(['uuid', 'storage_key', 'content_probe']).where('owner_id', '=', w.user.id).where('status', '=', 'live').execute();
      expect(rows.map((r) => r.uuid)).toEqual([media]);

      // Through the signed API: live, the sniffed type, the size, the name, the gallery.
      const r = await w.client.request('GET', `/medias/${media}.xml`);
      const m = find(r.doc, 'media')!;
      expect(text(m, 'status')).toBe('live');
      expect(text(m, 'mime-type')).toBe('video/mp4');
      expect(Number(text(m, 'file-size'))).toBe(size);
      expect(text(m, 'file-name')).toBe('clip.mp4');
      // The probe computed from the bucket's bytes (size, first and last 8 MiB), as the browser computes it (src/uploads/probe.ts).
      const probe = createHash('sha256').update(`${size}\n`).update(data.subarray(0, 8 * MiB)).update(data.subarray(size - 8 * MiB)).digest('hex');
      expect(rows[0]!.content_probe).toBe(`s:${probe}`);
      // The original, downloaded from the node that resumed it with an address the service signs: the bytes sent.
      expect(rows[0]!.storage_key).toMatch(/^originals\//);
      const signed = new FileUrls(w.svc.service.uploadSecret, other.url).signed(rows[0]!.storage_key!, new Date(Date.now() + 600_000), 'visitor-1', locked, true);
      const download = await fetch(signed);
      expect(download.status).toBe(200);
      const body = Buffer.from(await download.arrayBuffer());
      expect(body.length).toBe(size);
      expect(sha256(body)).toBe(sha256(data));

      // Nothing of the upload is left in the bucket: no multipart upload, no object, record or tail.
      expect(await openMultipartUploads(s3)).not.toContain(key);
      expect(await objects(key)).toEqual([]);
    });

    it('leaves no multipart upload nor object behind an upload its owner removes, or that the sweep removes once expired (with part files a crash left)', async () => {
      const data = video(10 * MiB);
      // Removed by its owner (tus termination), from the other node.
      const url = await tus.created({ filename: 'gone.mp4', size: data.length });
      const key = `resumable/${url.split('/').pop()!}`;
      expect((await tus.patch(url, 0, data.subarray(0, PART + MiB))).status).toBe(204);
      expect(await openMultipartUploads(s3)).toContain(key);
      const there = via(tus, other.url);
      expect((await there.request('DELETE', url, there.headers())).status).toBe(204);
      expect(await openMultipartUploads(s3)).not.toContain(key);
      expect(await objects(key)).toEqual([]);

      // Abandoned: kept until it expires, then swept with its parts, tail and record.
      const left = await tus.created({ filename: 'left.mp4', size: data.length });
      const leftId = left.split('/').pop()!;
      const leftKey = `resumable/${leftId}`;
      expect((await tus.patch(left, 0, data.subarray(0, PART + MiB))).status).toBe(204);
      // And a part file a crashed process left on this node.
      const orphan = join(w.svc.config.dataDir, 'uploads-tus-parts', 'orphan-0');
      await writeFile(orphan, 'left by a crash');
      await w.svc.service.sweep(new Date());
      expect((await stat(orphan)).size).toBeGreaterThan(0);
      expect(await openMultipartUploads(s3)).toContain(leftKey);
      expect((await objects(leftKey)).sort()).toEqual([leftKey + '.info', leftKey + '.part']);
      const swept = await w.svc.service.sweep(new Date(Date.now() + 3601 * 1000));
      expect(swept.resumable).toBeGreaterThanOrEqual(1);
      expect(await openMultipartUploads(s3)).not.toContain(leftKey);
      expect(await objects(leftKey)).toEqual([]);
      await expect(stat(orphan)).rejects.toThrow();
      expect((await tus.head(left)).status).toBe(404);
      expect((await there.head(left)).status).toBe(404);
      expect((await there.finish(leftId)).status).toBe(404);
    });

    it('refuses, never makes a media of, an upload whose object in the bucket is not the length announced', async () => {
      // What two nodes writing one upload at once could assemble (docs/studio.md, Uploads), put in the bucket by hand.
      const data = video(2 * MiB);
      const url = await tus.created({ filename: 'damaged.mp4', size: data.length });
      const id = url.split('/').pop()!;
      expect((await tus.patch(url, 0, data.subarray(0, MiB))).status).toBe(204);
      await bucket.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `resumable/${id}`, Body: Buffer.concat([data, data.subarray(0, 4096)]) }));
      const before = await w.svc.db.selectFrom('medias').select('id').where('owner_id', '=', w.user.id).execute();
      const outcome = await via(tus, other.url).finish(id);
      expect(outcome.body.state).toBe('refused');
      expect(outcome.body.reason).toMatch(/arrived with 2101248 bytes instead of the 2097152 announced/);
      expect(await w.svc.db.selectFrom('medias').select('id').where('owner_id', '=', w.user.id).execute()).toEqual(before);
      // And what it left in the bucket is gone.
      expect(await objects(`resumable/${id}`)).toEqual([]);
      expect(await openMultipartUploads(s3)).not.toContain(`resumable/${id}`);
    });

    it("answers 404 for another user's upload on either node, and leaves it as it was", async () => {
      const data = video(6 * MiB);
      const url = await tus.created({ filename: 'mine.mp4', size: data.length });
      const id = url.split('/').pop()!;
      expect((await tus.patch(url, 0, data.subarray(0, MiB))).status).toBe(204);
      const stranger = await worldOn(w.svc);
      const them = await TusSession.of(await new StudioBrowser(w.svc).signIn(stranger.user));
      for (const session of [them, via(them, other.url)]) {
        expect((await session.head(url)).status).toBe(404);
        // A small body: one refused on its headers while megabytes of it are still being written
        // is answered (and the rest read and dropped), but fetch may then report its own write
        // failing (EPIPE) instead of the answer it received; seen once in CI on the second node.
        expect((await session.patch(url, MiB, data.subarray(MiB, MiB + 64 * 1024))).status).toBe(404);
        expect((await session.request('DELETE', url, session.headers())).status).toBe(404);
        expect((await session.finish(id)).status).toBe(404);
        // Their own id with my random part: no such upload.
        expect((await session.head(`/studio/uploads/tus/${stranger.user.id}-${id.split('-')[1]}`)).status).toBe(404);
      }
      expect(Number((await via(tus, other.url).head(url)).headers.get('upload-offset'))).toBe(MiB);
      expect(await openMultipartUploads(s3)).toContain(`resumable/${id}`);
    });

    // Two nodes only on PostgreSQL (SQLite is one machine's file): defined there alone, not skipped elsewhere.
    if (kind === 'postgres') it.skipIf(!REDIS_URL)(
      "makes a request on node B wait while node A holds the upload's PATCH open, until A has ended it; B goes on from the offset A stored, and the upload ends once with the bytes sent",
      async () => {
        const size = 16 * MiB + 777;
        const data = video(size);
        const url = await tus.created({ filename: 'held.mp4', size });
        const id = url.split('/').pop()!;
        const key = `resumable/${id}`;
        const liveBefore = await w.svc.db.selectFrom('medias').select('uuid').where('owner_id', '=', w.user.id).where('status', '=', 'live').execute();
        // Node A: a PATCH of the whole file whose body, after its first 9 MiB, keeps coming slowly.
        const onA = slowPatch(w.svc.url, url, tus.headers(), data, 0, 9 * MiB);
        // A is writing (holding the upload's lock) once its first part is whole in the bucket.
        await until('the first part in the bucket', async () => ((await wholeParts(s3, key)) >= 1 ? true : undefined));

        // Node B: the resume's HEAD has the lock only once A's request has ended (asked to, by B).
        const there = via(tus, other.url);
        const head = await there.head(url);
        expect(head.status).toBe(200);
        const offset = Number(head.headers.get('upload-offset'));
        const a = await onA;
        // What A stored beyond its first part (the tail it had received) counts: B reads the offset A left.
        expect(offset).toBeGreaterThan(PART);
        expect(offset).toBeLessThan(size);
        // A's answer, when it reached the client before the connection closed, says the same offset.
        if (a !== 'reset') expect(a).toEqual({ status: 204, offset });

        // B goes on from there; the upload ends once, with the bytes sent.
        const last = await there.patch(url, offset, data.subarray(offset));
        expect(last.status).toBe(204);
        expect(last.headers.get('x-studio-upload-state')).toBe('done');
        const media = last.headers.get('x-studio-media')!;
        for (const answer of await Promise.all([tus.finish(id), there.finish(id)])) expect(answer.body).toMatchObject({ state: 'done', media });
        const live = await w.svc.db.selectFrom('medias').select(['uuid', 'storage_key']).where('owner_id', '=', w.user.id).where('status', '=', 'live').execute();
        expect(live.filter((r) => !liveBefore.some((b) => b.uuid === r.uuid)).map((r) => r.uuid)).toEqual([media]);
        const row = live.find((r) => r.uuid === media)!;
        // The original in the bucket: the bytes sent.
        const stored = await bucket.send(new GetObjectCommand({ Bucket: s3.bucket, Key: row.storage_key! }));
        const body = Buffer.from(await stored.Body!.transformToByteArray());
        expect(body.length).toBe(size);
        expect(sha256(body)).toBe(sha256(data));
        expect(await openMultipartUploads(s3)).not.toContain(key);
      },
      120_000,
    );
  });
});
