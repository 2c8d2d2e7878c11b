// The upload target's own multipart reader: fields, then the file's exact
// bytes, whatever the chunking and however much of the boundary the file holds.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { boundaryOf, readUploadForm } from '../../src/storage/upload-form.js';

const BOUNDARY = '----formBoundary7MA4YWxk';
const TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

function body(fields: Array<[string, string]>, file: Buffer | undefined, after = ''): Buffer {
  const parts = fields.map(([k, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('');
  if (!file) return Buffer.from(`${parts}--${BOUNDARY}--\r\n`);
  return Buffer.concat([
    Buffer.from(`${parts}--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a \\"b\\".jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${BOUNDARY}${after}--\r\n`),
  ]);
}

/** The body as a request stream cut into chunks of the given sizes (cycled). */
function request(data: Buffer, sizes: number[]): IncomingMessage {
  const chunks: Buffer[] = [];
  for (let at = 0, i = 0; at < data.length; i++) {
    const n = sizes[i % sizes.length];
    chunks.push(data.subarray(at, at + n));
    at += n;
  }
  return Readable.from(chunks) as unknown as IncomingMessage;
}

describe('upload form reader', () => {
  const tricky = Buffer.concat([
    randomBytes(3000),
    Buffer.from(`\r\n--${BOUNDARY.slice(0, 10)}`), // a prefix of the delimiter inside the file
    randomBytes(100),
    Buffer.from(`\r\n--${BOUNDARY.slice(0, -1)}X`), // all but its last byte
    randomBytes(5000),
    Buffer.from('\r\n'),
  ]);

  for (const sizes of [[1], [7], [29, 3], [64 * 1024], [1000, 1, 31]]) {
    it(`returns fields and the exact file bytes in chunks of ${sizes.join('/')}`, async () => {
      const form = await readUploadForm(request(body([['key', 'k1'], ['policy', 'p"é'], ['Content-Type', 'image/jpeg']], tricky), sizes), TYPE);
      expect(form.fields).toEqual([['key', 'k1'], ['policy', 'p"é'], ['Content-Type', 'image/jpeg']]);
      expect(form.file?.field).toBe('file');
      expect(form.file?.fileName).toBe('a "b".jpg');
      expect((await buffer(form.file!.stream)).equals(tricky)).toBe(true);
    });
  }

  it('handles an empty file, a form without a file, and the quoted boundary form', async () => {
    const empty = await readUploadForm(request(body([['key', 'x']], Buffer.alloc(0)), [5]), TYPE);
    expect((await buffer(empty.file!.stream)).length).toBe(0);
    const none = await readUploadForm(request(body([['key', 'x']], undefined), [3]), TYPE);
    expect(none).toEqual({ fields: [['key', 'x']] });
    expect(boundaryOf(`multipart/form-data; boundary="${BOUNDARY}"`)).toBe(BOUNDARY);
  });

  it('fails the file stream when the body ends before the closing boundary', async () => {
    const whole = body([['key', 'x']], randomBytes(10_000));
    const form = await readUploadForm(request(whole.subarray(0, whole.length - 200), [512]), TYPE);
    await expect(buffer(form.file!.stream)).rejects.toThrow(/interrupted/);
  });

  it('refuses a body that is not a multipart form, or a field without a name', async () => {
    await expect(readUploadForm(request(Buffer.from('a=b'), [3]), 'application/x-www-form-urlencoded')).rejects.toBeInstanceOf(ApiError);
    const nameless = Buffer.from(`--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nx\r\n--${BOUNDARY}--\r\n`);
    await expect(readUploadForm(request(nameless, [8]), TYPE)).rejects.toThrow(/name/);
  });
});
