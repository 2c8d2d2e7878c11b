// Renditions (docs/renditions.md): the job that makes a media's ladder after
// each completed upload, and what replies and the file route read of them.
// The slow part (reading the file, decoding, encoding, storing) runs in the
// job's prepare step, outside any transaction; the chunk transaction then
// records the result only if the media still holds the file it came from.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createRequire } from 'node:module';
import type { Logger } from 'pino';
import exifr from 'exifr';
import sharp from 'sharp';
import type { JobHandler } from '../jobs/handlers.js';
import type { JobQueue } from '../jobs/service.js';
import type { Db } from '../store/db.js';
import type { JobRow } from '../store/schema.js';
import type { StorageBackend } from '../storage/backend.js';
import type { DeletionsRepository } from '../storage/deletions-repository.js';
import type { FileDeletions } from '../storage/file-deletions.js';
import { readFileHead } from '../storage/file-head.js';
import { PRIVATE_FILE_MODE } from '../storage/private-files.js';
import { SNIFF_BYTES } from '../uploads/sniff.js';
import { accessState, isPublic } from '../visitors/gate.js';
import { makeLadder, WatermarkFailed, type LadderOptions, type RenditionFile, type WatermarkSpec } from './ladder.js';
import type { NewRendition, RenditionRow, RenditionSource, RenditionsRepository, StoredFileInfo } from './repository.js';
import type { FileUrls } from './urls.js';

export const RENDITIONS_JOB_KIND = 'renditions';

/** How long ffmpeg may take for a poster frame. */
const FFMPEG_TIMEOUT_MS = 30_000;
/** ffmpeg's diagnostics kept for the log, at most. */
const FFMPEG_STDERR_BYTES = 4096;

export interface RenditionsPayload {
  mediaId: number;
  /** The file the renditions are made from: a replace meanwhile makes this job's work garbage. */
  storageKey: string;
}

/** A rendition as replies show it. */
export interface RenditionView {
  name: string;
  width: number;
  height: number;
  type: string;
  url: string;
}

type Prepared =
  | { kind: 'skip' }
  | { kind: 'failed'; reason: string }
  | { kind: 'made'; rows: NewRendition[] };

/** The media's file cannot be turned into pictures: the media's state says so, the job does not retry. */
class Undecodable extends Error {}

export interface RenditionsSettings {
  /** Private working folder of the job (copies from S3, poster frames, encoded files): emptied at start. */
  workDir: string;
  dataDir: string;
  /** libvips threads for the ladder (1 keeps the worker from starving requests on a small machine). */
  threads?: number;
}

/** How long a key found public stays known as such in this process, and how many keys are remembered. */
const PUBLIC_CACHE_MS = 10_000;
const PUBLIC_CACHE_ENTRIES = 10_000;

export class RenditionsService {
  private readonly publicCache = new Map<string, { info: StoredFileInfo; until: number }>();

  constructor(
    private readonly repo: RenditionsRepository,
    private readonly storage: StorageBackend,
    private readonly files: FileDeletions,
    private readonly deletions: DeletionsRepository,
    private readonly jobs: JobQueue,
    private readonly urls: FileUrls,
    private readonly log: Pick<Logger, 'warn' | 'error'>,
    private readonly settings: RenditionsSettings,
  ) {
    // One image at a time in the worker, on few threads, with no operation cache: bounded memory.
    sharp.concurrency(settings.threads ?? 1);
    sharp.cache(false);
  }

  /**
   * In the transaction that gives a media a new file (every completed
   * upload): its old renditions' keys are returned for recording as
   * deletions in that transaction, its state becomes pending, and the job is
   * queued with it, so it survives a restart. Wake the worker after the commit.
   */
  async renew(trx: Db, ownerId: number, mediaId: number, storageKey: string): Promise<string[]> {
    const old = await this.repo.reset(trx, mediaId);
    const payload: RenditionsPayload = { mediaId, storageKey };
    await this.jobs.enqueueIn(trx, ownerId, RENDITIONS_JOB_KIND, payload, 1);
    return old;
  }

  /** Leftovers of a process that stopped mid-job (only this process's worker writes here once it runs). */
  async sweepWork(): Promise<void> {
    for (const entry of await readdir(this.settings.workDir)) await rm(join(this.settings.workDir, entry), { recursive: true, force: true });
  }

  /** Tells this process's worker a job is waiting (after the commit that queued it). */
  wake(): void {
    this.jobs.wakeWorker();
  }

  /** Keys of the renditions of medias about to be deleted in `trx`. */
  keysOf(trx: Db, mediaIds: readonly number[]): Promise<string[]> {
    return this.repo.keysOf(trx, mediaIds);
  }

  /** The renditions of a page of medias (one query), as replies show them. */
  async views(mediaIds: readonly number[]): Promise<Map<number, RenditionView[]>> {
    const rows = await this.repo.forMedias(mediaIds);
    const out = new Map<number, RenditionView[]>();
    for (const [id, list] of rows) out.set(id, list.map((r) => this.view(r)));
    return out;
  }

  private view(r: RenditionRow): RenditionView {
    return { name: r.name, width: r.width, height: r.height, type: r.mime_type, url: this.urls.public(r.storage_key) };
  }

  // ---- the file route

  /**
   * What `key` is, if the request may have it: unsigned (`signed`
   * undefined), only a rendition of a public media (live, published in a
   * gallery open to everyone); signed for a gallery, any rendition or original
   * of a media still live and published in that gallery (the signature proves
   * the visitor was shown it there; unpublishing it revokes the address) and,
   * when the signature carries an access stamp, while the gallery's chain still
   * has that stamp (a new password or access list revokes it).
   */
  async servable(key: string, signed: { gallery: string; access?: string } | undefined): Promise<StoredFileInfo | undefined> {
    if (signed === undefined) {
      const hit = this.publicCache.get(key);
      if (hit && hit.until > Date.now()) return hit.info;
    }
    const info = await this.repo.fileInfo(key);
    if (!info) return undefined;
    if (signed !== undefined) {
      // Read at each request, not remembered: a revocation holds at once, on every node. The
      // browser keeps what it fetched (private, until the expiry), so a page's images cost this once.
      const chain = await this.repo.publishedChain(info.mediaId, signed.gallery);
      if (!chain || (signed.access !== undefined && this.urls.accessStamp(accessState(chain)) !== signed.access)) return undefined;
      return info;
    }
    if (info.kind !== 'rendition' || !(await this.repo.publiclyVisible(info.mediaId, isPublic))) return undefined;
    // Public answers are cached for ever downstream anyway (immutable); here briefly, so a hot thumbnail costs no query.
    if (this.publicCache.size >= PUBLIC_CACHE_ENTRIES) this.publicCache.delete(this.publicCache.keys().next().value!);
    this.publicCache.set(key, { info, until: Date.now() + PUBLIC_CACHE_MS });
    return info;
  }

  // ---- the job

  handler(): JobHandler<Prepared> {
    return {
      prepare: (job, payload) => this.prepare(job, payload as RenditionsPayload),
      runChunk: (trx, _job, payload, _start, _end, prepared) => this.record(trx, payload as RenditionsPayload, prepared!),
      giveUp: async (_job, payload) => {
        const p = payload as RenditionsPayload;
        await this.repo.failNow(p.mediaId, p.storageKey, 'the renditions could not be made (retried, then given up)');
      },
    };
  }

  private async prepare(_job: JobRow, p: RenditionsPayload): Promise<Prepared> {
    const source = await this.repo.source(p.mediaId);
    if (!source || source.storageKey !== p.storageKey || source.status !== 'live') return { kind: 'skip' };
    const work = await mkdtemp(join(this.settings.workDir, 'job-'));
    const stored: string[] = [];
    try {
      const input = await this.localCopy(p.storageKey, work);
      const mime = source.mimeType ?? 'application/octet-stream';
      const options: LadderOptions = { copyright: source.copyright ?? undefined, author: source.author ?? undefined };
      let picture: string | Buffer;
      if (mime.startsWith('image/') && mime !== 'image/svg+xml') {
        picture = input;
        options.watermark = this.watermarkOf(source.watermark);
        // The file's own credits, unless the media record names them.
        const credits = await creditsOf(input);
        options.copyright ??= credits.copyright;
        options.author ??= credits.author;
      } else if (mime.startsWith('video/')) {
        picture = await posterFrame(input, work);
        options.watermark = this.watermarkOf(source.watermark);
      } else {
        // Documents (and anything else we accept): a neutral card naming the type; nothing to protect.
        picture = await placeholder(mime);
      }
      const rows: NewRendition[] = [];
      let storeError: unknown;
      const emit = async (f: RenditionFile) => {
        // The source key is part of the address: a replace by identical bytes still gets new keys.
        const hash = createHash('sha256').update(p.storageKey).update('\n').update(f.bytes).digest('hex').slice(0, 16);
        const key = `r/${source.uuid}/${hash}-${f.name}.${f.ext}`;
        const tmp = join(work, `${hash}.${f.ext}`);
        try {
          await writeFile(tmp, f.bytes, { mode: PRIVATE_FILE_MODE });
          // Recorded before it exists: recording the rendition takes the record off; a crash leaves it to the sweep.
          await this.files.recordUnpublished(key);
          stored.push(key);
          await this.storage.putFile(key, tmp, f.bytes.length, f.mimeType);
        } catch (err) {
          // The machine's failure, not the file's: retried.
          storeError = err;
          throw err;
        }
        rows.push({ name: f.name, width: f.width, height: f.height, mime_type: f.mimeType, storage_key: key, bytes: f.bytes.length, watermarked: f.watermarked ? 1 : 0 });
      };
      try {
        await makeLadder(picture, options, emit);
      } catch (err) {
        if (storeError !== undefined || !isDecodeError(err)) throw err;
        throw new Undecodable(err instanceof WatermarkFailed ? err.message : 'the file could not be decoded as a picture');
      }
      return { kind: 'made', rows };
    } catch (err) {
      // Anything else (the store, the disk) is retried by the worker, a few times.
      if (!(err instanceof Undecodable)) throw err;
      this.log.warn({ media: source.uuid, reason: err.message }, 'renditions failed: the file cannot be turned into pictures');
      await this.files.remove(stored);
      return { kind: 'failed', reason: err.message };
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  private async record(trx: Db, p: RenditionsPayload, prepared: Prepared) {
    if (prepared.kind === 'skip') return { processed: 1, failed: 0, errors: [] };
    if (prepared.kind === 'failed') {
      await this.repo.fail(trx, p.mediaId, p.storageKey, prepared.reason);
      return { processed: 1, failed: 1, errors: [prepared.reason] };
    }
    const keys = prepared.rows.map((r) => r.storage_key);
    if (await this.repo.commit(trx, p.mediaId, p.storageKey, prepared.rows)) {
      for (const key of keys) await this.deletions.takeOff(trx, key);
      return { processed: 1, failed: 0, errors: [] };
    }
    // The media changed file or went meanwhile: what was made is garbage.
    await this.deletions.record(trx, keys);
    return { processed: 1, failed: 0, errors: [], afterCommit: () => this.files.remove(keys) };
  }

  private watermarkOf(w: RenditionSource['watermark']): WatermarkSpec | undefined {
    if (!w) return undefined;
    if (w.storageKey) return { imagePath: join(this.settings.dataDir, w.storageKey), strength: w.strength, position: w.position, tile: w.tile };
    if (w.text) return { text: w.text, strength: w.strength, position: w.position, tile: w.tile };
    return undefined;
  }

  /** The stored file as a path on this machine: the store's own, or a private temporary copy (S3). */
  private async localCopy(key: string, dir: string): Promise<string> {
    const local = this.storage.localPath(key);
    if (local) return local;
    const body = await this.storage.read(key);
    if (!body) throw new Undecodable('the file is missing from the store');
    const path = join(dir, 'source');
    await pipeline(body, createWriteStream(path, { mode: PRIVATE_FILE_MODE }));
    return path;
  }
}

/**
 * Copyright and Artist from the file's EXIF (nothing when it has none or cannot be read),
 * in its first bytes as at upload. exifr is given bytes, not the path: it would open
 * the file itself and leave the handle open when it fails (on Node 26 it always does).
 */
async function creditsOf(path: string): Promise<{ copyright?: string; author?: string }> {
  try {
    const head = await readFileHead(path, SNIFF_BYTES);
    const tags = (await exifr.parse(head, { pick: ['Copyright', 'Artist'], reviveValues: false })) as Record<string, unknown> | undefined;
    const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
    return { copyright: str(tags?.Copyright), author: str(tags?.Artist) };
  } catch {
    return {};
  }
}

/** sharp's refusals of the bytes (not of the machine): corrupt, truncated, unsupported, too many pixels. */
function isDecodeError(err: unknown): boolean {
  if (err instanceof WatermarkFailed) return true;
  const message = err instanceof Error ? err.message : '';
  return /unsupported image format|Input file|Input buffer|VipsJpeg|VipsPng|VipsWebp|VipsForeign|pngload|jpegload|webpload|heifload|tiffload|gifload|corrupt|premature|truncated|pixel limit|bad|invalid/i.test(message);
}

const ffmpegPath = (): string => (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;

/** One frame of the video as a PNG: a second in, or the first frame of a shorter video. */
async function posterFrame(input: string, dir: string): Promise<string> {
  const out = join(dir, 'poster.png');
  for (const seek of ['1', '0']) {
    await runFfmpeg(['-hide_banner', '-loglevel', 'error', '-nostdin', '-ss', seek, '-i', input, '-frames:v', '1', '-an', '-sn', '-f', 'image2', '-y', out]);
    const made = await stat(out).catch(() => undefined);
    if (made && made.size > 0) return out;
  }
  throw new Undecodable('no frame could be read from the video');
}

function runFfmpeg(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn(ffmpegPath(), args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: FFMPEG_TIMEOUT_MS, killSignal: 'SIGKILL' });
    } catch {
      reject(new Undecodable('no video decoder is available'));
      return;
    }
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < FFMPEG_STDERR_BYTES) stderr += chunk.toString('utf8').slice(0, FFMPEG_STDERR_BYTES - stderr.length);
    });
    child.on('error', () => reject(new Undecodable('no video decoder is available')));
    // A failed seek is not an error here: the caller looks at what was written.
    child.on('close', (code, signal) => (signal ? reject(new Undecodable('the video decoder timed out')) : resolve(void code)));
  });
}

/** A neutral 1280 × 960 card with the file's type (e.g. PDF). */
async function placeholder(mime: string): Promise<Buffer> {
  const label = (mime.split('/')[1] ?? 'file').replace(/^x-/, '').replace(/[^a-z0-9.+-]/gi, '').slice(0, 12).toUpperCase() || 'FILE';
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="1280" height="960"><rect width="1280" height="960" fill="#e8e8e8"/>` +
    `<rect x="490" y="300" width="300" height="360" rx="16" fill="#ffffff" stroke="#9a9a9a" stroke-width="6"/>` +
    `<text x="640" y="510" text-anchor="middle" font-family="sans-serif" font-weight="bold" font-size="72" fill="#555555">${label}</text></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}
