// The multipart form of the service's own upload target, read without a
// general multipart parser: the small fields that come first into memory,
// then the file part handed on as the request's own chunks (views, no copies),
// its closing boundary found with the native Buffer.indexOf. A general parser
// scans every byte in JavaScript, which costs as much CPU as the disk write.
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { ApiError, badRequest } from '../http/errors.js';

export interface UploadForm {
  /** Fields before the file, in order. */
  fields: Array<[string, string]>;
  /** The first file part, streamed; fields after it are ignored. */
  file?: { field: string; fileName: string; stream: Readable };
}

const MAX_HEADER_BYTES = 16 * 1024;
const MAX_FIELD_BYTES = 64 * 1024;
const MAX_FIELDS = 50;
const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
const EMPTY = Buffer.alloc(0);

export function boundaryOf(contentType: string): string | undefined {
  const m = /;\s*boundary=(?:"([^"]{1,200})"|([^\s;"]{1,200}))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** Pulls the body chunk by chunk; keeps what has been read but not yet used. */
class BodyReader {
  private buf: Buffer = EMPTY;
  private readonly chunks: AsyncIterator<Buffer>;

  constructor(body: AsyncIterable<Buffer>) {
    this.chunks = body[Symbol.asyncIterator]();
  }

  private async more(what: string): Promise<void> {
    const next = await this.chunks.next();
    if (next.done) throw badRequest(`the form ended inside ${what}`);
    this.buf = this.buf.length > 0 ? Buffer.concat([this.buf, next.value]) : next.value;
  }

  /** The bytes before `needle`, which is consumed too; at most `limit` bytes. */
  async until(needle: Buffer, limit: number, what: string): Promise<Buffer> {
    for (;;) {
      const at = this.buf.indexOf(needle);
      if (at >= 0) {
        const out = this.buf.subarray(0, at);
        this.buf = this.buf.subarray(at + needle.length);
        return out;
      }
      if (this.buf.length > limit + needle.length) throw new ApiError(413, 'payload_too_large', `${what} is larger than ${limit} bytes`);
      await this.more(what);
    }
  }

  async take(n: number, what: string): Promise<Buffer> {
    while (this.buf.length < n) await this.more(what);
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }

  /** Everything not read yet: the buffered bytes, then the remaining chunks. */
  async *rest(): AsyncGenerator<Buffer> {
    if (this.buf.length > 0) {
      const held = this.buf;
      this.buf = EMPTY;
      yield held;
    }
    for (;;) {
      const next = await this.chunks.next();
      if (next.done) return;
      yield next.value;
    }
  }
}

interface PartHeaders {
  name: string;
  fileName?: string;
}

function parsePartHeaders(raw: Buffer): PartHeaders {
  for (const line of raw.toString('utf8').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim().toLowerCase() !== 'content-disposition') continue;
    const value = line.slice(colon + 1);
    const name = /;\s*name=(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(value);
    if (!name) break;
    const file = /;\s*filename=(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(value);
    const unquote = (m: RegExpExecArray) => (m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]);
    return { name: unquote(name), fileName: file ? unquote(file) : undefined };
  }
  throw badRequest('a form part has no Content-Disposition name');
}

/**
 * The file part's bytes up to the delimiter. The last delimiter-length bytes
 * of each chunk are held back until the next chunk shows they are not the
 * start of the delimiter. Once found, the rest of the body is read and dropped.
 */
async function* fileBytes(reader: BodyReader, delimiter: Buffer): AsyncGenerator<Buffer> {
  const keep = delimiter.length - 1;
  let held: Buffer = EMPTY;
  // Emits the part of `data` before the delimiter; returns true when it was found.
  function* scan(data: Buffer): Generator<Buffer, boolean> {
    const at = data.indexOf(delimiter);
    if (at >= 0) {
      if (at > 0) yield data.subarray(0, at);
      held = EMPTY;
      return true;
    }
    const safe = data.length - keep;
    if (safe > 0) yield data.subarray(0, safe);
    held = data.subarray(Math.max(0, safe));
    return false;
  }
  let found = false;
  const chunks = reader.rest();
  while (!found) {
    const next = await chunks.next();
    if (next.done) break;
    const chunk = next.value;
    if (chunk.length < keep || held.length === 0) {
      found = yield* scan(held.length > 0 ? Buffer.concat([held, chunk]) : chunk);
    } else {
      // A delimiter starting in `held` ends within the first `keep` bytes of this chunk.
      const joint = Buffer.concat([held, chunk.subarray(0, keep)]);
      const at = joint.indexOf(delimiter);
      if (at >= 0) {
        if (at > 0) yield joint.subarray(0, at);
        found = true;
      } else {
        yield held;
        found = yield* scan(chunk);
      }
    }
  }
  if (!found) throw badRequest('the upload was interrupted before the end of the file');
  // The epilogue (and any field after the file) is read so the connection stays usable.
  while (!(await chunks.next()).done);
}

/**
 * Reads the fields up to the first file part and returns the file as a
 * stream. Throws a 400/413 ApiError on a malformed or oversized form.
 */
export async function readUploadForm(req: IncomingMessage, contentType: string): Promise<UploadForm> {
  const boundary = boundaryOf(contentType);
  if (!contentType.toLowerCase().startsWith('multipart/form-data') || !boundary) {
    throw badRequest('send the upload as multipart/form-data: the upload parameters, then the file');
  }
  const reader = new BodyReader(req);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The first boundary has no CRLF before it (a preamble may precede it).
  await reader.until(Buffer.from(`--${boundary}`), MAX_HEADER_BYTES, 'the preamble');
  const fields: Array<[string, string]> = [];
  for (;;) {
    const after = await reader.take(2, 'a boundary');
    if (after.equals(Buffer.from('--'))) return { fields };
    if (!after.equals(CRLF)) throw badRequest('malformed multipart boundary');
    const part = parsePartHeaders(await reader.until(HEADER_END, MAX_HEADER_BYTES, 'part headers'));
    if (part.fileName !== undefined) {
      const stream = Readable.from(fileBytes(reader, delimiter), { objectMode: false });
      return { fields, file: { field: part.name, fileName: part.fileName, stream } };
    }
    if (fields.length >= MAX_FIELDS) throw new ApiError(413, 'payload_too_large', 'too many form fields');
    fields.push([part.name, (await reader.until(delimiter, MAX_FIELD_BYTES, `field ${part.name}`)).toString('utf8')]);
  }
}
