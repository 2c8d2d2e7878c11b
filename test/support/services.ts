// The fast tier's galleries, media, uploads and file life (test/service): the
// services buildApp wires over a file store, built the same way over withCore's
// core, with local storage in its temporary directory: no HTTP server, no worker
// (a renditions job is run by hand), no sweep timer.
import { SameFiles } from '../../src/media/same-files.js';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pino } from 'pino';
import sharp from 'sharp';
import { beforeAll, afterAll } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { ApiError } from '../../src/core/errors.js';
import { ensurePrivateDir } from '../../src/core/private-files.js';
import { inUnit } from '../../src/database/unit-of-work.js';
import type { JobRow, UserRow } from '../../src/database/schema.js';
import { DeletionsRepository } from '../../src/file-storage/deletions-repository.js';
import { FileDeletions } from '../../src/file-storage/file-deletions.js';
import { FileUrls } from '../../src/file-storage/file-urls.js';
import { createStorage } from '../../src/file-storage/factory.js';
import type { StorageBackend } from '../../src/file-storage/backend.js';
import { tempDirOf } from '../../src/file-storage/temp-file.js';
import { GalleriesRepository } from '../../src/galleries/repository.js';
import { GalleriesService } from '../../src/galleries/service.js';
import { GroupsRepository } from '../../src/groups/repository.js';
import { JobsRepository } from '../../src/jobs/repository.js';
import { JobQueue } from '../../src/jobs/service.js';
import { FileLife } from '../../src/media/file-life.js';
import { MediaRepository } from '../../src/media/repository.js';
import { MediaService } from '../../src/media/service.js';
import type { MediaInput } from '../../src/media/metadata.js';
import { chooseFfmpeg } from '../../src/renditions/ffmpeg.js';
import { RENDITIONS_JOB_KIND, type RenditionsPayload } from '../../src/renditions/job.js';
import { RenditionsRepository } from '../../src/renditions/repository.js';
import { RenditionsService } from '../../src/renditions/service.js';
import { QuotaRepository } from '../../src/uploads/quota-repository.js';
import { StorageQuota } from '../../src/uploads/quota.js';
import { UploadsRepository } from '../../src/uploads/repository.js';
import { UploadsService } from '../../src/uploads/service.js';
import { withCore, type CoreWorld } from './core.js';

export const PG = process.env.TEST_DATABASE_URL;
/** SQLite always; PostgreSQL when TEST_DATABASE_URL is set. */
export const DATABASES = ['sqlite', ...(PG ? ['postgres'] : [])] as const;

export interface ServicesWorld extends CoreWorld {
  config: Config;
  storage: StorageBackend;
  files: FileDeletions;
  quota: StorageQuota;
  uploads: UploadsService;
  fileLife: FileLife;
  media: MediaService;
  /** Whether a library already holds a file (the studio's uploads skip it). */
  sameFiles: SameFiles;
  galleries: GalleriesService;
  renditions: RenditionsService;
  /** A website of a new user, or of `user`: its urlname and root gallery. */
  owner(label?: string, user?: UserRow): Promise<{ user: UserRow; urlname: string; root: string }>;
  /** Runs a queued renditions job of a media (its latest, or its oldest) as the worker would: prepare, then its one chunk in a unit. */
  runRenditions(mediaId: number, which?: 'latest' | 'oldest'): Promise<void>;
}

const silent = pino({ level: 'silent' });

/** Builds the services before the file's tests (on SQLite, or PostgreSQL with `postgresUrl`); `env` as the service's environment. */
export function withServices(opts: { postgresUrl?: string; env?: Record<string, string> } = {}): ServicesWorld {
  const core = withCore({ postgresUrl: opts.postgresUrl });
  const w = core as unknown as ServicesWorld;
  let sites = 0;
  // RenditionsService sets libvips' threads and cache for the process: put back for the next file (isolate: false).
  const sharpThreads = sharp.concurrency();
  beforeAll(async () => {
    const config = loadConfig({ DATA_DIR: core.dataDir, LOG_LEVEL: 'silent', PUBLIC_URL: 'https://svc.example', ...opts.env });
    const { store, access } = core.core;
    const storage = await createStorage(config);
    ensurePrivateDir(join(config.dataDir, 'media'));
    const tmpDir = tempDirOf(config.dataDir);
    ensurePrivateDir(tmpDir);
    const deletions = new DeletionsRepository(store.db);
    const files = new FileDeletions(storage, deletions, silent);
    const uploadsRepo = new UploadsRepository(store.db, deletions);
    const quota = new StorageQuota(new QuotaRepository(store.db, store.dialect), config);
    const uploads = new UploadsService(uploadsRepo, storage, files, { secret: Buffer.alloc(32, 7), tmpDir, config }, quota);
    const jobsRepo = new JobsRepository(store);
    const jobs = new JobQueue(jobsRepo, () => undefined);
    const renditionsRepo = new RenditionsRepository(store.db);
    const workDir = join(config.dataDir, 'renditions-work');
    ensurePrivateDir(workDir);
    const renditions = new RenditionsService(renditionsRepo, storage, files, deletions, new FileUrls(Buffer.alloc(32, 7), ''), silent, {
      workDir,
      watermarkFiles: core.core.watermarkFiles,
      timeoutSeconds: config.renditions.timeoutSeconds,
      ffmpeg: chooseFfmpeg(config.renditions.ffmpegPath),
    });
    const mediaRepo = new MediaRepository(store.db, store.dialect);
    const fileLife = new FileLife(store.db, { medias: mediaRepo, uploads: uploadsRepo, renditions: renditionsRepo, jobs: jobsRepo, deletions }, files, jobs, config);
    const media = new MediaService(mediaRepo, fileLife, uploads, access, new GroupsRepository(store.db, store.dialect), jobs, silent, renditions);
    const galleries = new GalleriesService(new GalleriesRepository(store.db, store.dialect), access, fileLife, config.galleryListCap);
    const sameFiles = new SameFiles(mediaRepo, (key, size) => uploads.digestOf(key, size));
    Object.assign(w, { config, storage, files, quota, uploads, fileLife, media, sameFiles, galleries, renditions });
  });
  afterAll(async () => {
    sharp.concurrency(sharpThreads);
    sharp.cache(true);
    await w.storage?.close?.();
  });
  w.owner = async (label = 'owner', existing?: UserRow) => {
    const user = existing ?? (await core.user(label));
    const urlname = `${label.replace(/[^a-z0-9]/g, '')}${++sites}`;
    const { rootGalleryUuid } = await core.core.websites.create(user, { urlname, title: label });
    return { user, urlname, root: rootGalleryUuid };
  };
  w.runRenditions = async (mediaId: number, which = 'latest') => {
    const job = await core.core.store.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', RENDITIONS_JOB_KIND)
      .where('state', '=', 'queued')
      .orderBy('id', which === 'latest' ? 'desc' : 'asc')
      .execute()
      .then((rows) => rows.find((j) => (JSON.parse(j.payload) as RenditionsPayload).mediaId === mediaId));
    if (!job) throw new Error(`no queued renditions job for media ${mediaId}`);
    const payload = JSON.parse(job.payload) as RenditionsPayload;
    const handler = w.renditions.handler();
    const prepared = handler.prepare ? await handler.prepare(job as JobRow, payload, 0, 1) : undefined;
    await inUnit(core.core.store.db, (unit) => handler.runChunk(unit, job as JobRow, payload, 0, 1, prepared));
    await core.core.store.db.updateTable('jobs').set({ state: 'done' }).where('id', '=', job.id).execute();
  };
  return w;
}

/** A small real JPEG, different for each `seed`. */
export function jpeg(seed = 0, width = 64, height = 48): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: (seed * 53) % 256, g: (seed * 97) % 256, b: 120 } } })
    .jpeg({ quality: 80 })
    .toBuffer();
}

/** A JPEG of random pixels: some kilobytes, unlike a plain one's few hundred bytes. */
export function noisyJpeg(width = 64, height = 64): Promise<Buffer> {
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
}

/** A file part as a multipart body hands it to the service. */
export function part(data: Buffer, fileName = 'photo.jpg'): { fileName: string; stream: Readable } {
  return { fileName, stream: Readable.from([data]) };
}

/** Media attributes that change nothing. */
export function noAttributes(extra: Partial<MediaInput> = {}): MediaInput {
  return { prefix: 'media', columns: {}, ...extra };
}

/** What a call was refused with; fails when it was not refused with an ApiError. */
export async function refusal(p: Promise<unknown>): Promise<ApiError & { field?: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${err === undefined ? 'success' : String(err)}`);
  return err as ApiError & { field?: string };
}
