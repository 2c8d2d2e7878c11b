// Step 2 is usable once, for a pending upload only (local store): the file
// lands under an incoming key, step 3 promotes it to a fresh key that no
// policy names, and a replayed or repeated step 2 is refused without
// touching anything. Incoming files nobody waits for are swept.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MediaPortfolioClient } from '../../src/client/index.js';
import { find, text, type XmlNode } from '../../src/client/xml.js';
import { eachDatabase, TestService } from '../support/service.js';
import { errorOf, jpegWithExif, postUpload, putRaw, sendThenAbort, uploadParamsOf } from './uploads-support.js';

eachDatabase((kind) => {
  let svc: TestService;
  let c: MediaPortfolioClient;
  let jpeg: Buffer;
  /** Active content of exactly the JPEG's size, so that only the replay refusal can stop it. */
  let html: Buffer;

  beforeAll(async () => {
    svc = await TestService.start(kind);
    c = svc.client(await svc.app(), await svc.user());
    jpeg = await jpegWithExif();
    html = Buffer.from('<html><script>alert(document.cookie)</script></html>'.padEnd(jpeg.length, ' '));
  });
  afterAll(() => svc?.close());

  const storedFile = (key: string) => join(svc.config.dataDir, 'media', ...key.split('/'));
  /** The key step 2 writes to: a form field, or inside the raw URL's policy. */
  function keyOf(media: XmlNode): string {
    const field = uploadParamsOf(media).find(([k]) => k === 'key');
    if (field) return field[1];
    const policy = new URL(text(media, 'upload-url')!).searchParams.get('policy')!;
    return (JSON.parse(Buffer.from(policy, 'base64url').toString('utf8')) as { key: string }).key;
  }
  const mediaRow = (uuid: string) => svc.db.selectFrom('medias').selectAll().where('uuid', '=', uuid).executeTakeFirstOrThrow();
  const tmpFiles = () => (existsSync(join(svc.config.dataDir, 'tmp')) ? readdirSync(join(svc.config.dataDir, 'tmp')) : []);

  async function step1(fields: Record<string, string | number> = {}): Promise<XmlNode> {
    const r = await c.request('POST', '/medias.xml', {
      'media[content][upload_location]': 'REQUEST',
      'media[content][file_name]': 'IMG_7.jpg',
      'media[content][file_size]': jpeg.length,
      'media[content][mime_type]': 'image/jpeg',
      ...fields,
    });
    return find(r.doc, 'media')!;
  }

  function step2(media: XmlNode, data: Buffer) {
    const fileParam = text(media, 'upload-file-param') ?? '';
    if (fileParam === '') return putRaw(text(media, 'upload-url')!, data);
    return postUpload(text(media, 'upload-url')!, uploadParamsOf(media), { field: fileParam, data, name: 'a.jpg', type: 'image/jpeg' });
  }

  const LOCATIONS: Array<Record<string, string>> = [{}, { 'media[content][capabilities]': 'raw', 'media[content][failed_locations]': 'local' }];

  /** Every file under DATA_DIR/media/incoming. */
  function incomingFiles(): string[] {
    const root = join(svc.config.dataDir, 'media', 'incoming');
    if (!existsSync(root)) return [];
    return readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name));
  }

  it('receives step 2 under an incoming key and keeps the verified file under a fresh originals key', async () => {
    const media = await step1();
    const uuid = text(media, 'uuid')!;
    expect(keyOf(media)).toMatch(new RegExp(`^incoming/${uuid}/[0-9a-f]{32}$`));
    expect((await step2(media, jpeg)).status).toBe(200);
    expect(await readFile(storedFile(keyOf(media)))).toEqual(jpeg);
    await c.completeUpload(media, jpeg.length);
    const row = await mediaRow(uuid);
    expect(row.storage_key).toMatch(new RegExp(`^originals/${uuid}/[0-9a-f]{32}$`));
    expect(await readFile(storedFile(row.storage_key!))).toEqual(jpeg);
    expect(existsSync(storedFile(keyOf(media)))).toBe(false);
  });

  it('refuses a replayed step 2 after step 3, multipart or raw, and the verified file stays as it was', async () => {
    for (const fields of LOCATIONS) {
      const media = await step1(fields);
      const uuid = text(media, 'uuid')!;
      expect((await step2(media, jpeg)).status).toBe(200);
      await c.completeUpload(media, jpeg.length);

      const replay = await step2(media, html);
      expect(replay.status).toBe(409);
      expect(replay.body.startsWith('<?xml')).toBe(true);
      expect(errorOf(replay)).toMatch(/no longer pending/);

      const row = await mediaRow(uuid);
      expect(row.mime_type).toBe('image/jpeg');
      expect(await readFile(storedFile(row.storage_key!))).toEqual(jpeg);
      expect(existsSync(storedFile(keyOf(media)))).toBe(false);
    }
    expect(incomingFiles()).toEqual([]);
  });

  it('answers a replay before reading its body, and closes the connection', async () => {
    const big = Buffer.concat([jpeg, Buffer.alloc(1024 * 1024)]);
    const media = await step1({ 'media[content][file_size]': big.length, 'media[content][capabilities]': 'raw', 'media[content][failed_locations]': 'local' });
    expect((await step2(media, big)).status).toBe(200);
    await c.completeUpload(media, big.length);
    // Only the first 64 KiB of the announced megabyte are sent: the answer cannot wait for the rest.
    const replay = await new Promise<{ status: number; connection?: string; body: string }>((resolve, reject) => {
      const req = http.request(text(media, 'upload-url')!, { method: 'PUT', headers: { 'Content-Length': String(big.length) } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
      });
      req.on('error', reject);
      req.write(big.subarray(0, 64 * 1024));
    });
    expect(replay.status).toBe(409);
    expect(replay.connection).toBe('close');
    expect(replay.body).toMatch(/no longer pending/);
    // Buffer.equals: a deep equality of a megabyte costs seconds.
    expect((await readFile(storedFile((await mediaRow(text(media, 'uuid')!)).storage_key!))).equals(big)).toBe(true);
  });

  it('refuses a second step 2 of the same upload and completes it with the first file', async () => {
    for (const fields of LOCATIONS) {
      const media = await step1(fields);
      expect((await step2(media, jpeg)).status).toBe(200);
      const again = await step2(media, html);
      expect(again.status).toBe(409);
      expect(errorOf(again)).toMatch(/already received its file/);
      expect(await readFile(storedFile(keyOf(media)))).toEqual(jpeg);
      const r3 = await c.completeUpload(media, jpeg.length);
      expect(text(r3.doc, 'media/mime-type')).toBe('image/jpeg');
      expect(await readFile(storedFile((await mediaRow(text(media, 'uuid')!)).storage_key!))).toEqual(jpeg);
    }
    expect(tmpFiles()).toEqual([]);
  });

  it('refuses step 2 of a media deleted mid-upload, and no file lands', async () => {
    const media = await step1();
    await c.request('DELETE', `/medias/${text(media, 'uuid')}.xml`);
    const late = await step2(media, jpeg);
    expect(late.status).toBe(409);
    expect(errorOf(late)).toMatch(/no longer pending/);
    expect(existsSync(storedFile(keyOf(media)))).toBe(false);
    expect(incomingFiles()).toEqual([]);
    expect(tmpFiles()).toEqual([]);
  });

  it('refuses step 2 of an upload replaced by a new step 1', async () => {
    const first = await step1({ 'media[content][file_name]': 'again.jpg' });
    const uuid = text(first, 'uuid')!;
    const second = find(
      (
        await c.request(
          'PUT',
          `/medias/${uuid}.xml`,
          { 'media[content][upload_location]': 'REQUEST', 'media[content][file_name]': 'again.jpg', 'media[content][file_size]': jpeg.length, 'media[content][mime_type]': 'image/jpeg' },
          { multipart: true },
        )
      ).doc,
      'media',
    )!;
    expect((await step2(first, jpeg)).status).toBe(409);
    expect((await step2(second, jpeg)).status).toBe(200);
    expect(text((await c.completeUpload(second, jpeg.length)).doc, 'media/mime-type')).toBe('image/jpeg');
  });

  it('accepts step 2 again after an interrupted one left nothing', async () => {
    const media = await step1();
    const boundary = 'xCUTx';
    const head = Buffer.from(
      uploadParamsOf(media)
        .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
        .join('') + `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\n\r\n`,
    );
    await sendThenAbort(text(media, 'upload-url')!, 'POST', { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': String(head.length + jpeg.length + 100) }, [
      head,
      jpeg.subarray(0, 100),
    ]);
    const until = Date.now() + 5000;
    while (tmpFiles().length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(storedFile(keyOf(media)))).toBe(false);
    expect((await step2(media, jpeg)).status).toBe(200);
    expect(text((await c.completeUpload(media, jpeg.length)).doc, 'media/file-size')).toBe(String(jpeg.length));
  });

  it('sweeps incoming files that no pending upload points to, once past a grace period', async () => {
    const waiting = await step1({ 'media[content][file_name]': 'waiting.jpg' });
    expect((await step2(waiting, jpeg)).status).toBe(200);
    // What a promotion cut by a crash, or a replay straight to an object store, leaves behind.
    const strayKey = `incoming/${text(waiting, 'uuid')}/${'ab'.repeat(16)}`;
    mkdirSync(join(svc.config.dataDir, 'media', 'incoming', text(waiting, 'uuid')!), { recursive: true });
    writeFileSync(storedFile(strayKey), html);

    await svc.service.sweep();
    expect(existsSync(storedFile(strayKey))).toBe(true);

    const swept = await svc.service.sweep(new Date(Date.now() + 3600 * 1000));
    expect(swept.incoming).toBe(1);
    expect(existsSync(storedFile(strayKey))).toBe(false);
    expect(await readFile(storedFile(keyOf(waiting)))).toEqual(jpeg);
    expect(text((await c.completeUpload(waiting, jpeg.length)).doc, 'media/mime-type')).toBe('image/jpeg');
  });
});
