// The studio's tus endpoint (docs/studio.md, Uploads): @tus/server with the store that fits the
// media store (@tus/file-store under DATA_DIR/uploads-tus, or tus-s3.ts), requests of one upload
// ordered by its locker (tus-locker.ts with REDIS_URL), every decision ResumableUploadsService's
// (who may create and send to an upload, and its end). The studio's route checks the session, the
// origin and the CSRF header first, then hands the request here.
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { FileConfigstore, FileStore } from '@tus/file-store';
import { Server, type Locker } from '@tus/server';
import type { Logger } from 'pino';
import { ApiError } from '../core/errors.js';
import type { StorageBackend } from '../file-storage/backend.js';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../core/private-files.js';
import type { S3Storage } from '../file-storage/s3.js';
import { ScavengePacer } from '../file-storage/upload-gc.js';
import type { UserRow } from '../database/schema.js';
import { contentProbe, wholeDigest } from '../uploads/probe.js';
import { ResumableUploadsService, UPLOAD_ID } from './service.js';
import type { Datastore, TusFiles } from './tus-files.js';

export const TUS_PATH = '/studio/uploads/tus';

type User = Pick<UserRow, 'id'>;
type TusRefusal = { status_code: number; body: string };

/** Bytes in flight between the request and the disk (the file store's default is 16 KiB: a write per chunk). */
const WRITE_BUFFER_BYTES = 1024 * 1024;

/**
 * A tus file store whose files are private (0600) like every other stored file (the folder is
 * made 0700 by the caller), and whose bodies are written as the API's uploads are
 * (src/file-storage/temp-file.ts): a deep write buffer, and a young-generation scavenge every few MiB.
 */
class PrivateFileStore extends FileStore {
  override async write(readable: Parameters<FileStore['write']>[0], id: string, offset: number): Promise<number> {
    const pacer = new ScavengePacer();
    let bytes = 0;
    const counter = new Transform({
      highWaterMark: WRITE_BUFFER_BYTES,
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        pacer.received(chunk.length);
        done(null, chunk);
      },
    });
    try {
      await pipeline(readable, counter, createWriteStream(join(this.directory, id), { flags: 'r+', start: offset, highWaterMark: WRITE_BUFFER_BYTES }));
    } catch {
      // As the file store answers: what was written stays, and the offset says how much.
      throw { status_code: 500, body: 'Something went wrong writing the file.\n' } satisfies TusRefusal;
    }
    return offset + bytes;
  }

  override async create(file: Parameters<FileStore['create']>[0]): ReturnType<FileStore['create']> {
    const path = join(this.directory, file.id);
    // 'wx': an id is never reused.
    await writeFile(path, '', { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    await this.configstore.set(file.id, file);
    file.storage = { type: 'file', path };
    return file;
  }
}

class PrivateConfigstore extends FileConfigstore {
  constructor(private readonly dir: string) {
    super(dir);
  }
  override async set(key: string, value: Parameters<FileConfigstore['set']>[1]): Promise<void> {
    await writeFile(join(this.dir, `${key}.json`), JSON.stringify(value), { mode: PRIVATE_FILE_MODE });
  }
}

/** The tus files for this media store: in the bucket with S3, under DATA_DIR otherwise. */
export async function tusFiles(dataDir: string, expirySeconds: number, storage: StorageBackend): Promise<TusFiles> {
  if (storage.kind === 's3') {
    // Loaded only with S3 storage, as the AWS SDK it needs.
    const { s3TusFiles } = await import('./tus-s3.js');
    return s3TusFiles(storage as S3Storage, join(dataDir, 'uploads-tus-parts'), expirySeconds);
  }
  return localTusFiles(dataDir, expirySeconds);
}

function localTusFiles(dataDir: string, expirySeconds: number): TusFiles {
  const expirationPeriodInMilliseconds = expirySeconds * 1000;
  const whole = async (datastore: Datastore, storeId: string) => {
    try {
      const upload = await datastore.getUpload(storeId);
      return upload.size !== undefined && upload.offset === upload.size ? upload.size : undefined;
    } catch {
      return undefined;
    }
  };
  const dir = join(dataDir, 'uploads-tus');
  ensurePrivateDir(dir);
  const datastore = new PrivateFileStore({ directory: dir, configstore: new PrivateConfigstore(dir), expirationPeriodInMilliseconds });
  return {
    datastore,
    storeIdOf: (id) => id,
    uploadIdOf: (storeId) => storeId,
    async complete(id) {
      const size = await whole(datastore, id);
      return size === undefined ? undefined : { path: join(dir, id), size };
    },
    probe: (id, size) => contentProbe(size, async (start, end) => createReadStream(join(dir, id), { start, end, highWaterMark: 1024 * 1024 })),
    async received(id) {
      try {
        return (await datastore.getUpload(id)).offset;
      } catch {
        return 0;
      }
    },
    digest: (id, size) => wholeDigest(size, async (start, end) => createReadStream(join(dir, id), { start, end, highWaterMark: 1024 * 1024 })),
    async remove(id) {
      await rm(join(dir, id), { force: true });
      await rm(join(dir, `${id}.json`), { force: true });
    },
  };
}

function refusal(err: unknown): TusRefusal {
  if (err instanceof ApiError) return { status_code: err.status, body: `${err.message}\n` };
  throw err;
}

export interface TusEndpoint {
  /** Serves one tus request of `user` (already signed in and checked by the studio). */
  handle(req: IncomingMessage, res: ServerResponse, user: User): Promise<void>;
}

/** `locker`: the shared one of several API nodes (tus-locker.ts); @tus/server's MemoryLocker without it. */
export function tusEndpoint(files: TusFiles, uploads: ResumableUploadsService, maxUploadBytes: number, log: Pick<Logger, 'error'>, locker?: Locker): TusEndpoint {
  const users = new WeakMap<IncomingMessage, User>();
  type TusRequest = Parameters<NonNullable<ConstructorParameters<typeof Server>[0]['onIncomingRequest']>>[0];
  const userOf = (req: TusRequest): User => {
    const raw = (req as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;
    const user = raw ? users.get(raw) : undefined;
    // Never: the studio's route sets it before the request reaches tus.
    if (!user) throw { status_code: 401, body: 'Sign in first.\n' } satisfies TusRefusal;
    return user;
  };
  /** The upload id of a datastore name, checked (it reached tus from the request's path). */
  const idOf = (storeId: string): string => {
    const id = files.uploadIdOf(storeId);
    if (id === undefined || !UPLOAD_ID.test(id)) throw { status_code: 404, body: 'Not found\n' } satisfies TusRefusal;
    return id;
  };
  const server = new Server({
    path: TUS_PATH,
    datastore: files.datastore,
    ...(locker ? { locker } : {}),
    relativeLocation: true,
    maxSize: maxUploadBytes,
    // Same origin only: no CORS header for anyone.
    allowedOrigins: () => false,
    // Ids are the service's: the owner's id and 128 random bits.
    namingFunction: (req) => files.storeIdOf(ResumableUploadsService.idFor(userOf(req), randomBytes(16).toString('hex'))),
    getFileIdFromRequest: (_req, last) => (last && UPLOAD_ID.test(last) ? files.storeIdOf(last) : undefined),
    generateUrl: (_req, { path, id }) => `${path}/${idOf(id)}`,
    onUploadCreate: async (req, upload) => {
      try {
        await uploads.begin(userOf(req), idOf(upload.id), { fileName: upload.metadata?.filename ?? '', size: upload.size, gallery: upload.metadata?.gallery ?? undefined });
      } catch (err) {
        throw refusal(err);
      }
      return {};
    },
    onIncomingRequest: async (req, id) => {
      // A creation: the id was just made for this user by namingFunction; onUploadCreate records it.
      if (req.method === 'POST') return;
      if (!(await uploads.owns(userOf(req), idOf(id)))) throw { status_code: 404, body: 'Not found\n' } satisfies TusRefusal;
    },
    onUploadFinish: async (req, upload) => {
      try {
        const outcome = await uploads.finish(userOf(req), idOf(upload.id));
        return { headers: { 'X-Studio-Upload-State': outcome.state, ...(outcome.media ? { 'X-Studio-Media': outcome.media } : {}) } };
      } catch (err) {
        throw refusal(err);
      }
    },
    onResponseError: (_req, err) => {
      if (!('status_code' in err)) log.error({ err }, 'tus request failed');
      return undefined;
    },
  });
  /**
   * An upload that ended (its bytes went into the store): a client whose last answer was lost asks
   * its offset again, or repeats the last PATCH. It is told the upload is whole, so it goes on to
   * ask the outcome, rather than seeing a 404 and sending the file again.
   */
  async function answeredAsFinished(req: IncomingMessage, res: ServerResponse, user: User): Promise<boolean> {
    if (req.method !== 'HEAD' && req.method !== 'PATCH') return false;
    const id = /\/([^/?]+)(?:\?.*)?$/.exec(req.url ?? '')?.[1];
    if (!id || !UPLOAD_ID.test(id)) return false;
    const outcome = await uploads.outcome(user, id).catch(() => undefined);
    if (!outcome || outcome.state === 'receiving' || outcome.state === 'processing') return false;
    const size = String(outcome.size);
    const headers = { 'tus-resumable': '1.0.0', 'upload-offset': size, 'upload-length': size, 'cache-control': 'no-store' };
    if (req.method === 'HEAD') {
      res.writeHead(200, headers).end();
      return true;
    }
    const whole = req.headers['upload-offset'] === size;
    // A body is not read: the connection closes after the answer.
    const unread = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    res.writeHead(whole ? 204 : 409, unread ? { ...headers, connection: 'close' } : headers).end();
    return true;
  }

  return {
    async handle(req, res, user) {
      users.set(req, user);
      try {
        if (await answeredAsFinished(req, res, user)) return;
        await server.handle(req, res);
      } catch (err) {
        log.error({ err }, 'tus request failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end('Something went wrong.\n');
        else res.destroy();
      }
    },
  };
}
