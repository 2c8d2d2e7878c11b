// Step 2 against the service's own upload target: the signed policy is the
// authorisation (for a pending upload only: each policy here gets its row in
// `uploads`, as step 1 records it), the file lands whole or not at all.
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newIncomingKey } from '../../src/file-storage/object-keys.js';
import { signPolicy, type UploadPolicy } from '../../src/file-storage/policy.js';
import { eachDatabase, TestService } from '../support/service.js';
import { errorOf, jpegWithExif, postUpload, putRaw, sendChunked, sendThenAbort } from './uploads-support.js';

// The target looks the policy's key up among pending uploads: both databases.
eachDatabase((kind) => {
  let svc: TestService;
  let secret: Buffer;
  let file: Buffer;
  const mediaUuid = '3f1e2d4c-0000-4000-8000-00000000abcd';

  beforeAll(async () => {
    svc = await TestService.start(kind);
    secret = svc.service.uploadSecret;
    file = await jpegWithExif();
  });
  afterAll(() => svc?.close());

  const storedPath = (key: string) => join(svc.config.dataDir, 'media', ...key.split('/'));
  const tmpFiles = () => (existsSync(join(svc.config.dataDir, 'tmp')) ? readdirSync(join(svc.config.dataDir, 'tmp')) : []);

  let nextMediaId = 1;

  /** A policy for a pending upload: its key has a row in `uploads`, as after step 1. */
  async function policyFor(overrides: Partial<UploadPolicy> = {}): Promise<UploadPolicy> {
    const policy = {
      key: newIncomingKey(mediaUuid),
      expires: Math.floor(Date.now() / 1000) + 600,
      minSize: file.length,
      maxSize: file.length,
      contentType: 'image/jpeg',
      ...overrides,
    };
    await svc.db
      .insertInto('uploads')
      .values({
        media_id: nextMediaId++,
        location: 'local',
        storage_key: policy.key,
        file_name: 'a.jpg',
        declared_size: policy.maxSize,
        declared_mime: policy.contentType,
        expires_at: new Date(Date.now() + 3600_000).toISOString(),
        created_at: new Date().toISOString(),
      })
      .execute();
    return policy;
  }

  function fieldsFor(policy: UploadPolicy, signed = signPolicy(policy, secret)): Array<[string, string]> {
    return [
      ['key', policy.key],
      ['policy', signed.policy],
      ['signature', signed.signature],
      ['Content-Type', policy.contentType ?? ''],
    ];
  }

  const url = () => `${svc.url}/uploads/local.xml`;

  it('stores the file byte for byte under its key, with fields in any order', async () => {
    const policy = await policyFor();
    const fields = fieldsFor(policy).reverse();
    const r = await postUpload(url(), fields, { field: 'file', data: file, name: 'a.jpg', type: 'image/jpeg' });
    expect(r.status).toBe(200);
    expect(r.body.startsWith('<?xml')).toBe(true);
    expect(await readFile(storedPath(policy.key))).toEqual(file);
    expect(tmpFiles()).toEqual([]);
  });

  it('refuses an expired policy with a 403 XML error and stores nothing', async () => {
    const policy = await policyFor({ expires: Math.floor(Date.now() / 1000) - 1 });
    const r = await postUpload(url(), fieldsFor(policy), { field: 'file', data: file });
    expect(r.status).toBe(403);
    expect(errorOf(r)).toMatch(/expired/);
    expect(existsSync(storedPath(policy.key))).toBe(false);
  });

  it('refuses a tampered policy, a forged signature and a key other than the policy’s', async () => {
    const policy = await policyFor();
    const signed = signPolicy(policy, secret);
    const widened = Buffer.from(JSON.stringify({ ...policy, maxSize: 10 ** 9 })).toString('base64url');
    const tampered = await postUpload(url(), fieldsFor(policy, { policy: widened, signature: signed.signature }), { field: 'file', data: file });
    expect(tampered.status).toBe(403);
    const forged = signPolicy(policy, Buffer.from('not the server secret'));
    const badSig = await postUpload(url(), fieldsFor(policy, forged), { field: 'file', data: file });
    expect(badSig.status).toBe(403);
    const otherKey = fieldsFor(policy).map(([k, v]) => [k, k === 'key' ? newIncomingKey(mediaUuid) : v] as [string, string]);
    const wrongKey = await postUpload(url(), otherKey, { field: 'file', data: file });
    expect(wrongKey.status).toBe(403);
    for (const r of [tampered, badSig, wrongKey]) expect(r.body.startsWith('<?xml')).toBe(true);
    expect(existsSync(storedPath(policy.key))).toBe(false);
  });

  it('refuses a file outside the size range, and a request without a file or with unknown fields', async () => {
    const policy = await policyFor();
    const bigger = await postUpload(url(), fieldsFor(policy), { field: 'file', data: Buffer.concat([file, Buffer.alloc(70 * 1024)]) });
    expect(bigger.status).toBe(413);
    const smaller = await postUpload(url(), fieldsFor(policy), { field: 'file', data: file.subarray(0, file.length - 1) });
    expect(smaller.status).toBe(400);
    const noFile = await postUpload(url(), fieldsFor(policy));
    expect(noFile.status).toBe(400);
    const extra = await postUpload(url(), [...fieldsFor(policy), ['acl', 'public-read']], { field: 'file', data: file });
    expect(extra.status).toBe(400);
    expect(existsSync(storedPath(policy.key))).toBe(false);
    expect(tmpFiles()).toEqual([]);
  });

  it('stops reading a chunked body at the policy’s maximum and leaves no temporary file', async () => {
    const policy = await policyFor({ minSize: 1, maxSize: 64 * 1024 });
    const signed = signPolicy(policy, secret);
    const boundary = 'xBOUNDARYx';
    const head = Buffer.from(
      fieldsFor(policy, signed)
        .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
        .join('') + `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    const chunks = [head, ...Array.from({ length: 64 }, () => Buffer.alloc(16 * 1024, 1)), Buffer.from(`\r\n--${boundary}--\r\n`)];
    const r = await sendChunked(url(), 'POST', { 'Content-Type': `multipart/form-data; boundary=${boundary}` }, chunks);
    expect([413, 'reset']).toContain(r.status);
    expect(existsSync(storedPath(policy.key))).toBe(false);
    expect(tmpFiles()).toEqual([]);
  });

  it('accepts a raw PUT to a self-authorising URL and refuses it once tampered or expired', async () => {
    const policy = await policyFor();
    const signed = signPolicy(policy, secret);
    const rawUrl = (p: string, s: string) => `${svc.url}/uploads/raw.xml?${new URLSearchParams({ policy: p, signature: s })}`;
    const ok = await putRaw(rawUrl(signed.policy, signed.signature), file);
    expect(ok.status).toBe(200);
    expect(await readFile(storedPath(policy.key))).toEqual(file);

    const expired = await policyFor({ expires: Math.floor(Date.now() / 1000) - 5 });
    const e = signPolicy(expired, secret);
    expect((await putRaw(rawUrl(e.policy, e.signature), file)).status).toBe(403);
    const widened = Buffer.from(JSON.stringify({ ...policy, key: newIncomingKey(mediaUuid) })).toString('base64url');
    expect((await putRaw(rawUrl(widened, signed.signature), file)).status).toBe(403);
    expect((await putRaw(`${svc.url}/uploads/raw.xml`, file)).status).toBe(403);
  });

  it('drops the temporary file of a client that goes away mid-upload, multipart or raw', async () => {
    const policy = await policyFor({ minSize: 1024 * 1024, maxSize: 1024 * 1024 });
    const signed = signPolicy(policy, secret);
    const boundary = 'xABORTx';
    const head = Buffer.from(
      fieldsFor(policy, signed)
        .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
        .join('') + `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\n\r\n`,
    );
    await sendThenAbort(url(), 'POST', { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': String(head.length + 1024 * 1024 + 100) }, [head, Buffer.alloc(200 * 1024, 1)]);
    const rawUrl = `${svc.url}/uploads/raw.xml?${new URLSearchParams({ policy: signed.policy, signature: signed.signature })}`;
    await sendThenAbort(rawUrl, 'PUT', { 'Content-Length': String(1024 * 1024) }, [Buffer.alloc(300 * 1024, 2)]);
    const until = Date.now() + 5000;
    while (tmpFiles().length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(tmpFiles()).toEqual([]);
    expect(existsSync(storedPath(policy.key))).toBe(false);
    // The service still answers afterwards.
    const ok = await postUpload(url(), fieldsFor(await policyFor()), { field: 'file', data: file });
    expect(ok.status).toBe(200);
  });

  it('keeps the upload secret in DATA_DIR so another process sharing it agrees', async () => {
    const again = await readFile(join(svc.config.dataDir, 'upload-secret'), 'utf8');
    expect(Buffer.from(again.trim())).toEqual(secret);
  });
});
