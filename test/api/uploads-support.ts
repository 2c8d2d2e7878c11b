// Shared by the upload tests: small real files of each kind, the step-2
// requests exactly as clients send them, and an in-process S3-compatible server.
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
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

export async function startS3(): Promise<LocalS3> {
  const directory = await mkdtemp(join(tmpdir(), 'mps-s3-'));
  const bucket = 'test-bucket';
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory, silent: true, configureBuckets: [{ name: bucket, configs: [] }] });
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
