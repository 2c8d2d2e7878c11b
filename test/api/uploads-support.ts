// Shared by the upload tests: small real files of each kind, the step-2
// requests exactly as clients send them, and an in-process S3-compatible server.
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import sharp from 'sharp';
import { parseXml, text, type XmlNode } from '../../src/client/xml.js';

/** A 40x30 JPEG with an EXIF capture time of 2021-06-15 10:20:30 +02:00. */
export function jpegWithExif(): Promise<Buffer> {
  return sharp({ create: { width: 40, height: 30, channels: 3, background: '#804020' } })
    .jpeg()
    .withExif({ IFD0: { Make: 'Test' }, IFD2: { DateTimeOriginal: '2021:06:15 10:20:30', OffsetTimeOriginal: '+02:00' } })
    .toBuffer();
}

export function png(width = 24, height = 16): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: '#20a0ff80' } }).png().toBuffer();
}

export function pdf(): Buffer {
  return Buffer.from('%PDF-1.4\n1 0 obj <</Type /Catalog>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n', 'latin1');
}

/** An ISO base media file: an `ftyp` box (brand isom) and padding — enough for a sniffer. */
export function mp4(): Buffer {
  const ftyp = Buffer.alloc(32);
  ftyp.writeUInt32BE(32, 0);
  ftyp.write('ftyp', 4, 'latin1');
  ftyp.write('isom', 8, 'latin1');
  ftyp.writeUInt32BE(512, 12);
  ftyp.write('isomiso2avc1mp41', 16, 'latin1');
  const mdat = Buffer.alloc(2048, 7);
  mdat.writeUInt32BE(2048, 0);
  mdat.write('mdat', 4, 'latin1');
  return Buffer.concat([ftyp, mdat]);
}

export function plainText(): Buffer {
  return Buffer.from('this is not a picture\n'.repeat(50));
}

export interface Reply {
  status: number;
  headers: Headers;
  body: string;
  doc?: XmlNode;
}

async function toReply(res: Response): Promise<Reply> {
  const body = await res.text();
  let doc: XmlNode | undefined;
  try {
    doc = body.startsWith('<?xml') ? parseXml(body) : undefined;
  } catch {
    doc = undefined;
  }
  return { status: res.status, headers: res.headers, body, doc };
}

export function errorOf(r: Reply): string | undefined {
  return r.doc ? text(r.doc, 'error') : undefined;
}

/** Step 2 as clients send it: a multipart POST of the fields in the given order, then the file. */
export async function postUpload(url: string, fields: ReadonlyArray<readonly [string, string]>, file?: { field: string; data: Buffer; name?: string; type?: string }): Promise<Reply> {
  const form = new FormData();
  for (const [k, v] of fields) form.append(k, v);
  if (file) form.append(file.field, new Blob([new Uint8Array(file.data)], { type: file.type ?? 'application/octet-stream' }), file.name ?? 'upload.bin');
  return toReply(await fetch(url, { method: 'POST', body: form }));
}

/** The fields of `<upload-params>`, in reply order. */
export function uploadParamsOf(media: XmlNode): Array<[string, string]> {
  const params = media.children.find((c) => c.name === 'upload-params');
  return (params?.children ?? []).map((c) => [c.name, c.text] as [string, string]);
}

export async function putRaw(url: string, data: Buffer, contentType?: string): Promise<Reply> {
  return toReply(await fetch(url, { method: 'PUT', body: new Uint8Array(data), headers: contentType ? { 'Content-Type': contentType } : {} }));
}

/**
 * A chunked request body (no Content-Length), so that only the streaming byte
 * limit can stop it. Resolves with the status, or 'reset' when the server
 * closed the connection before answering.
 */
export function sendChunked(url: string, method: string, headers: Record<string, string>, chunks: Buffer[]): Promise<{ status: number | 'reset'; body: string }> {
  return new Promise((resolve) => {
    const req = http.request(url, { method, headers: { ...headers, 'Transfer-Encoding': 'chunked' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ status: res.statusCode ?? 'reset', body }));
    });
    req.on('error', () => resolve({ status: 'reset', body: '' }));
    (async () => {
      for (const c of chunks) {
        if (!req.write(c)) await new Promise((r) => req.once('drain', r));
      }
      req.end();
    })().catch(() => undefined);
  });
}

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  directory: string;
  /** Environment for TestService.start: STORAGE_URL and credentials. */
  env: Record<string, string>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// AN ADDITION TO THE TEST SERVER, not s3rver's own: ListParts and AbortMultipartUpload.
//
// s3rver 3.7.1 stores multipart uploads but answers ListParts (GET /<bucket>/<key>?uploadId=…)
// and AbortMultipartUpload (DELETE /<bucket>/<key>?uploadId=…) with MethodNotAllowed
// (https://github.com/jamhall/s3rver/issues/330), and no npm S3 emulator implements them.
// @tus/s3-store needs both: ListParts is how it learns an upload's offset on a resume,
// AbortMultipartUpload how an expired upload's parts go (src/resumable-uploads/tus-s3.ts). This middleware,
// placed just before s3rver's router, answers those two requests from what s3rver's
// FilesystemStore keeps on disk for a multipart upload (lib/stores/filesystem.js, initiateUpload and
// putPart): `<directory>/<bucket>/._S3rver_uploads/<upload id>/` holding `key` (the object key),
// `metadata`, and per part `<n>` (its bytes) and `<n>.md5` (its ETag, written once the part is
// whole). The request is authenticated by s3rver's own middleware first (as s3rver checks its own:
// the access key; it does not verify V4 signatures). Anything else that
// names an uploadId (CompleteMultipartUpload, UploadPart) goes on to s3rver; any query parameter the
// shim does not implement (markers, max-parts, encodings) is a 501 NotImplemented, never a guess.
// ---------------------------------------------------------------------------------------------
type KoaContext = {
  method: string;
  path: string;
  query: Record<string, string | string[] | undefined>;
  params?: Record<string, string>;
  status: number;
  body: unknown;
};
type KoaMiddleware = ((ctx: KoaContext, next: () => Promise<void>) => Promise<void>) & { name: string };
const s3rverRequire = createRequire(import.meta.url);
const s3rverAuthentication = s3rverRequire('s3rver/lib/middleware/authentication') as () => KoaMiddleware;
const S3Error = s3rverRequire('s3rver/lib/models/error') as new (code: string, message?: string) => Error;

const S3RVER_UPLOAD_ID = /^[0-9a-f]{32}$/;

function multipartAdditions(directory: string): KoaMiddleware {
  const authenticate = s3rverAuthentication();
  const unknownUpload = () => new S3Error('NoSuchUpload', 'The specified upload does not exist.');
  return async function multipartAdditions(ctx, next) {
    if (!('uploadId' in ctx.query) || (ctx.method !== 'GET' && ctx.method !== 'DELETE')) return next();
    const operation = ctx.method === 'GET' ? 'ListParts' : 'AbortMultipartUpload';
    for (const [name, value] of Object.entries(ctx.query)) {
      if (name === 'uploadId' || (name === 'x-id' && value === operation)) continue;
      throw new S3Error('NotImplemented', `the test server's ${operation} addition does not implement the parameter ${name}`);
    }
    const m = /^\/([^/]+)\/(.+)$/.exec(ctx.path);
    if (!m) throw new S3Error('NotImplemented', `the test server's ${operation} addition needs /<bucket>/<key>`);
    const bucket = decodeURIComponent(m[1]!);
    const key = decodeURIComponent(m[2]!);
    ctx.params = { ...ctx.params, bucket, key };
    await authenticate(ctx, async () => {
      const uploadId = ctx.query.uploadId;
      if (typeof uploadId !== 'string' || !S3RVER_UPLOAD_ID.test(uploadId)) throw unknownUpload();
      if (!(await stat(join(directory, bucket)).catch(() => undefined))) throw new S3Error('NoSuchBucket', 'The specified bucket does not exist');
      const dir = join(directory, bucket, '._S3rver_uploads', uploadId);
      const owner = await readFile(join(dir, 'key'), 'utf8').catch(() => undefined);
      // Gone (completed: s3rver removes the folder; or aborted), or another key's upload.
      if (owner !== key) throw unknownUpload();
      if (operation === 'AbortMultipartUpload') {
        await rm(dir, { recursive: true, force: true });
        ctx.body = null;
        ctx.status = 204;
        return;
      }
      const parts = [];
      for (const name of await readdir(dir)) {
        if (!/^[1-9][0-9]{0,4}$/.test(name)) continue;
        // A part without its ETag file is still being written: S3 lists whole parts only.
        const md5 = await readFile(join(dir, `${name}.md5`), 'utf8').catch(() => undefined);
        if (md5 === undefined) continue;
        const info = await stat(join(dir, name));
        parts.push({ PartNumber: Number(name), LastModified: info.mtime.toISOString(), ETag: JSON.stringify(md5), Size: info.size });
      }
      parts.sort((a, b) => a.PartNumber - b.PartNumber);
      ctx.body = {
        ListPartsResult: {
          '@': { xmlns: 'http://s3.amazonaws.com/doc/2006-03-01/' },
          Bucket: bucket,
          Key: key,
          UploadId: uploadId,
          PartNumberMarker: 0,
          NextPartNumberMarker: parts.length ? parts[parts.length - 1]!.PartNumber : 0,
          MaxParts: 10000,
          IsTruncated: false,
          Part: parts,
        },
      };
    });
  };
}

/** The multipart uploads s3rver still keeps for `bucket` (neither completed nor aborted), by object key. */
export async function openMultipartUploads(s3: LocalS3): Promise<string[]> {
  const root = join(s3.directory, s3.bucket, '._S3rver_uploads');
  const ids = await readdir(root).catch(() => [] as string[]);
  const keys: string[] = [];
  for (const id of ids) {
    const key = await readFile(join(root, id, 'key'), 'utf8').catch(() => undefined);
    if (key !== undefined) keys.push(key);
  }
  return keys;
}

/** How many parts of the open multipart upload of `key` s3rver holds whole (their ETag written). */
export async function wholeParts(s3: LocalS3, key: string): Promise<number> {
  const root = join(s3.directory, s3.bucket, '._S3rver_uploads');
  for (const id of await readdir(root).catch(() => [] as string[])) {
    if ((await readFile(join(root, id, 'key'), 'utf8').catch(() => undefined)) !== key) continue;
    return (await readdir(join(root, id)).catch(() => [] as string[])).filter((name) => /^[1-9][0-9]*\.md5$/.test(name)).length;
  }
  return 0;
}

// s3rver's delete removes the folders it empties. A put into the same folder at that moment has
// just created it and then fails to open its file: ENOENT on a write stream without a listener,
// an uncaught exception in whatever process runs s3rver (test/api/s3-test-server.test.ts). Here
// a delete removes the object's three files and leaves the folders: s3rver lists objects by their
// files, so an empty folder lists nothing, as on S3.
function leaveFoldersInPlace(server: S3rver): void {
  const store = (server as unknown as { store: { getResourcePath(bucket: string, key: string, resource: string): string; deleteObject: unknown } }).store;
  if (typeof store?.getResourcePath !== 'function' || typeof store.deleteObject !== 'function') {
    throw new Error("s3rver's store is not what the test server expects (getResourcePath, deleteObject): check its version");
  }
  store.deleteObject = async (bucket: string, key: string) => {
    await Promise.all(
      ['object', 'object.md5', 'metadata.json'].map((resource) =>
        rm(store.getResourcePath(bucket, key, resource), { force: true }),
      ),
    );
  };
}

export async function startS3(): Promise<LocalS3> {
  const directory = await mkdtemp(join(tmpdir(), 'mps-s3-'));
  const bucket = 'test-bucket';
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory, silent: true, configureBuckets: [{ name: bucket, configs: [] }] });
  // Koa composes its middleware when the server starts: the addition goes in just before the router.
  const stack = (server as unknown as { middleware: KoaMiddleware[] }).middleware;
  if (stack[stack.length - 1]?.name !== 'dispatch') throw new Error("s3rver's middleware is not what the test server's multipart addition expects (router last): check its version");
  stack.splice(stack.length - 1, 0, multipartAdditions(directory));
  leaveFoldersInPlace(server);
  const address = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    bucket,
    directory,
    env: {
      STORAGE_URL: `s3://${bucket}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&forcePathStyle=true`,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    },
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** Starts a request, sends the first chunks, then drops the connection (a client that went away). */
export async function sendThenAbort(url: string, method: string, headers: Record<string, string>, chunks: Buffer[]): Promise<void> {
  const req = http.request(url, { method, headers });
  req.on('error', () => undefined);
  for (const c of chunks) req.write(c);
  await new Promise((r) => setTimeout(r, 300));
  req.destroy();
}
