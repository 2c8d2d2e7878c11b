// Receives an upload body into a temporary file: streamed chunk by chunk with
// a byte limit, never buffered whole. The file becomes visible under its final
// name only by a rename (putFile), so nobody ever sees it half-written.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../http/errors.js';
import { ScavengePacer } from './young-gc.js';

/** Bytes in flight between the request and the disk, per stage. */
const BUFFER_BYTES = 1024 * 1024;

export interface TempFile {
  path: string;
  size: number;
}

/** Counts bytes and fails as soon as there are more than allowed. */
class ByteLimit extends Transform {
  bytes = 0;
  private readonly pacer = new ScavengePacer();
  constructor(private readonly max: number) {
    // As deep as the file sink: a shallower buffer pauses the request on every chunk, doubling the CPU per byte.
    super({ highWaterMark: BUFFER_BYTES });
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    this.pacer.received(chunk.length);
    if (this.bytes > this.max) {
      done(new ApiError(413, 'payload_too_large', `the file is larger than the ${this.max} bytes allowed`));
      return;
    }
    done(null, chunk);
  }
}

export function tempDirOf(dataDir: string): string {
  return join(dataDir, 'tmp');
}

/**
 * Streams `source` into a new file under `dir`. The source is piped, not
 * owned: on a refusal it is left unread (the caller answers and closes the
 * connection) rather than destroyed, so the error reply can still be sent.
 */
export async function receiveToTempFile(source: Readable, dir: string, maxSize: number, request?: IncomingMessage): Promise<TempFile> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${randomBytes(12).toString('hex')}.part`);
  const limit = new ByteLimit(maxSize);
  const sink = createWriteStream(path, { flags: 'wx', mode: 0o600, highWaterMark: BUFFER_BYTES });
  const done = pipeline(limit, sink);
  const interrupted = () => limit.destroy(new ApiError(400, 'bad_request', 'the upload was interrupted before the end of the file'));
  const onError = (err: Error) => limit.destroy(err);
  const onSourceClose = () => {
    if (!source.readableEnded) interrupted();
  };
  // A multipart part never ends when the client goes away mid-file: watch the request itself.
  const onRequestClose = () => {
    if (request && !request.complete) interrupted();
  };
  source.on('error', onError);
  source.on('close', onSourceClose);
  request?.on('close', onRequestClose);
  source.pipe(limit);
  if (request?.destroyed && !request.complete) interrupted();
  // A multipart part can fail (body cut short) before anyone reads it: it will never end.
  if (source.destroyed && !source.readableEnded) interrupted();
  try {
    await done;
    return { path, size: limit.bytes };
  } catch (err) {
    source.unpipe(limit);
    // The sink may still be opening the file: removing it before the sink has
    // closed would let the open create it again afterwards.
    if (!sink.closed) await once(sink, 'close').catch(() => undefined);
    await rm(path, { force: true });
    // A file-system error (disk full…) is ours: a 500. Anything else came from the request.
    if (err instanceof ApiError || (err as NodeJS.ErrnoException).syscall) throw err;
    throw new ApiError(400, 'bad_request', `the upload failed: ${(err as Error).message}`);
  } finally {
    source.off('error', onError);
    source.off('close', onSourceClose);
    request?.off('close', onRequestClose);
  }
}
