// Receives an upload body into a temporary file: streamed chunk by chunk with
// a byte limit, never buffered whole. The file becomes visible under its final
// name only by a rename or link (putFile…), so nobody ever sees it half-written.
// Temporary files are named after the process writing them, so that leftovers
// of a crashed process can be told from files still being written.
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../core/errors.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../core/private-files.js';
import { ScavengePacer } from './upload-gc.js';

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
      done(new ApiError('payload_too_large', `the file is larger than the ${this.max} bytes allowed`));
      return;
    }
    done(null, chunk);
  }
}

export function tempDirOf(dataDir: string): string {
  return join(dataDir, 'tmp');
}

/** Process ids mean something on their own machine only (DATA_DIR may be a shared mount). */
const HOST_TAG = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);
const OWNED_NAME = /^([0-9a-f]{8})-([1-9][0-9]*)-[0-9a-f]+\.part$/;

/** `<host tag>-<pid>-<random>.part`: a new temporary file name of process `pid` on this machine. */
export function tempFileName(pid = process.pid): string {
  return `${HOST_TAG}-${pid}-${randomBytes(12).toString('hex')}.part`;
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, someone else's.
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Removes temporary files of processes of this machine that no longer run, and
 * any older than `olderThanMs` (other machines', unnamed ones, and what a
 * reused process id would keep). Returns how many went.
 */
export async function sweepTempFiles(dir: string, olderThanMs: number): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith('.part')) continue;
    const path = join(dir, name);
    const owner = OWNED_NAME.exec(name);
    let orphaned = owner !== null && owner[1] === HOST_TAG && Number(owner[2]) !== process.pid && !processIsAlive(Number(owner[2]));
    if (!orphaned) {
      const info = await stat(path).catch(() => undefined);
      orphaned = info !== undefined && info.mtimeMs <= olderThanMs;
    }
    if (orphaned) {
      await rm(path, { force: true });
      removed++;
    }
  }
  return removed;
}

/**
 * Streams `source` into a new file under `dir`. The source is piped, not
 * owned: on a refusal it is left unread (the caller answers and closes the
 * connection) rather than destroyed, so the error reply can still be sent.
 */
export async function receiveToTempFile(source: Readable, dir: string, maxSize: number, request?: IncomingMessage): Promise<TempFile> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const path = join(dir, tempFileName());
  const limit = new ByteLimit(maxSize);
  const sink = createWriteStream(path, { flags: 'wx', mode: PRIVATE_FILE_MODE, highWaterMark: BUFFER_BYTES });
  const done = pipeline(limit, sink);
  const interrupted = () => limit.destroy(new ApiError('bad_request', 'the upload was interrupted before the end of the file'));
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
    throw new ApiError('bad_request', `the upload failed: ${(err as Error).message}`);
  } finally {
    source.off('error', onError);
    source.off('close', onSourceClose);
    request?.off('close', onRequestClose);
  }
}
