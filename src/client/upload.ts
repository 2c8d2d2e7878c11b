// A file on disk through the three upload steps of spec 4.7 (docs/uploads.md), with the bytes of
// step 2 counted as they go out (progress bars). Step 2 is one whole body: the service keeps no
// partial file, so an interrupted file is sent again from its first byte (docs/integrations.md).
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { MediaPortfolioClient } from './client.js';
import { ApiRequestError } from './errors.js';
import type { Params } from './params.js';
import { child, parseXml, text, type XmlNode } from './xml.js';

export interface UploadFile {
  path: string;
  /** The name the media gets (the file's own name). */
  name: string;
  size: number;
  mimeType: string;
}

export interface UploadOptions {
  /** Published to this gallery at step 1. */
  galleryUuid?: string;
  /** Step 1 as a replacement of this media's file (a pending upload restarted): no new media. */
  mediaUuid?: string;
  /** Called once step 1 has named the media, before a byte is sent. */
  onMedia?: (uuid: string) => void | Promise<void>;
  /** Bytes of the file sent so far. */
  onBytes?: (sent: number) => void;
}

/** Step 1: a new media (POST) or a new pending upload of an existing one (PUT); the `<media>` with the instructions. */
export async function requestUpload(client: MediaPortfolioClient, file: UploadFile, opts: UploadOptions): Promise<XmlNode> {
  const params: Params = {
    'media[content][upload_location]': 'REQUEST',
    'media[content][file_name]': file.name,
    'media[content][file_size]': file.size,
    'media[content][mime_type]': file.mimeType,
  };
  if (opts.galleryUuid && !opts.mediaUuid) params['media[publish_to_galleries][]'] = opts.galleryUuid;
  const reply = opts.mediaUuid
    ? await client.request('PUT', `/medias/${encodeURIComponent(opts.mediaUuid)}.xml`, params, { multipart: true })
    : await client.request('POST', '/medias.xml', params);
  const media = child(reply.doc, 'media');
  if (!media || !text(media, 'uuid') || !text(media, 'upload-url')) throw new Error('step 1 answered without upload instructions');
  return media;
}

/** Step 2: the file to the address step 1 gave, as one multipart form (or raw body), streamed from disk. */
export async function sendUploadBody(media: XmlNode, file: UploadFile, onBytes?: (sent: number) => void): Promise<void> {
  const url = new URL(text(media, 'upload-url')!);
  const method = (text(media, 'upload-method') || 'POST').toUpperCase();
  const fileParam = text(media, 'upload-file-param') ?? '';
  const fields = (child(media, 'upload-params')?.children ?? []).map((c) => [c.name, c.text] as const);
  let head = Buffer.alloc(0);
  let tail = Buffer.alloc(0);
  const headers: Record<string, string> = {};
  if (fileParam) {
    const boundary = `----mps${randomBytes(12).toString('hex')}`;
    const quote = (s: string) => s.replace(/["\r\n\\]/g, '_');
    const parts = fields.map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${quote(k)}"\r\n\r\n${v}\r\n`);
    parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${quote(fileParam)}"; filename="${quote(file.name)}"\r\nContent-Type: ${file.mimeType}\r\n\r\n`);
    head = Buffer.from(parts.join(''), 'utf8');
    tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
    headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
  } else {
    headers['content-type'] = file.mimeType;
  }
  headers['content-length'] = String(head.length + file.size + tail.length);
  const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = (url.protocol === 'https:' ? https : http).request(url, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d.length < 65536 ? d : ''));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.write(head);
    let sent = 0;
    const stream = createReadStream(file.path);
    stream.on('data', (chunk) => {
      sent += chunk.length;
      onBytes?.(sent);
    });
    stream.on('error', (e) => req.destroy(e));
    stream.on('end', () => req.end(tail));
    stream.pipe(req, { end: false });
  });
  if (status >= 200 && status < 300) return;
  let message = body.slice(0, 200);
  try {
    message = text(parseXml(body), 'error') ?? message;
  } catch {
    // an object store's own error body: kept as it came
  }
  throw new Error(`step 2 refused (HTTP ${status}): ${message}`);
}

/** The three steps for one file; the media's UUID. A step 1 replacement of a media that went (404) starts a new one. */
export async function uploadFile(client: MediaPortfolioClient, file: UploadFile, opts: UploadOptions = {}): Promise<string> {
  let media: XmlNode;
  try {
    media = await requestUpload(client, file, opts);
  } catch (e) {
    if (!(opts.mediaUuid && e instanceof ApiRequestError && e.status === 404)) throw e;
    media = await requestUpload(client, file, { ...opts, mediaUuid: undefined });
  }
  const uuid = text(media, 'uuid')!;
  await opts.onMedia?.(uuid);
  await sendUploadBody(media, file, opts.onBytes);
  await client.completeUpload(media, file.size);
  return uuid;
}
