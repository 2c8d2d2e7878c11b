// Renditions: the job that makes a media's ladder after each completed upload, and what replies read
// of them. The slow part runs in the job's prepare step, outside any transaction; the chunk records it
// only if the media still holds the file it came from. Who may fetch a file (/files) is the website's
// (src/site/access.ts). docs/renditions.md, "The job".
import type { WebhookEmitter } from '../webhooks/events.js';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import exifr from 'exifr';
import sharp from 'sharp';
import type { JobHandler } from '../jobs/handlers.js';
import type { JobRow } from '../database/schema.js';
import type { Unit } from '../database/unit-of-work.js';
import type { StorageBackend } from '../file-storage/backend.js';
import type { WatermarkFiles } from '../artists/watermark-files.js';
import type { DeletionsRepository } from '../file-storage/deletions-repository.js';
import type { FileDeletions } from '../file-storage/file-deletions.js';
import { readFileHead } from '../file-storage/file-head.js';
import { PRIVATE_FILE_MODE } from '../core/private-files.js';
import { decoderFormatsFor, SNIFF_BYTES } from '../uploads/sniff.js';
import { demuxerFor, FFMPEG_LIMITS, runFfmpeg, type FfmpegBinary } from './ffmpeg.js';
import { FormatMismatch, LadderTimedOut, makeLadder, PHONE_RUNG, TooManyPixels, WatermarkFailed, type LadderOptions, type RenditionFile, type WatermarkSpec } from './ladder.js';
import type { NewRendition, RenditionRow, RenditionSource, RenditionsRepository } from './repository.js';
import { RENDITIONS_JOB_KIND, type RenditionsPayload } from './job.js';
import type { FileUrls } from '../file-storage/file-urls.js';

export { RENDITIONS_JOB_KIND } from './job.js';

const AVIF = 'image/avif';
const PHONE_RUNG_NAME = String(PHONE_RUNG);


/** A rendition as replies show it. */
export interface RenditionView {
  name: string;
  width: number;
  height: number;
  type: string;
  url: string;
  /** Its storage key (the studio streams an owner's thumbnails through its own access check). */
  key: string;
  /** Its size (the studio counts its thumbnails in bytes). */
  bytes: number;
}

type Prepared =
  | { kind: 'skip' }
  | { kind: 'failed'; reason: string }
  | { kind: 'made'; rows: NewRendition[] }
  /** The ladder was recorded before its AVIF alternates were made (`rows`: those, to add). */
  | { kind: 'alternates'; rows: NewRendition[] };

/** The media's file cannot be turned into pictures: the media's state says so, the job does not retry. */
class Undecodable extends Error {}

export interface RenditionsSettings {
  /** Private working folder of the job (copies from S3, poster frames, encoded files): emptied at start. */
  workDir: string;
  /** Watermark images: the store's, as a path on this machine (src/artists/watermark-files.ts). */
  watermarkFiles: WatermarkFiles;
  /**
   * libvips threads per ladder (1: a ladder takes one core; RENDITION_CONCURRENCY ladders at once
   * take that many, and no more, so that they do not starve requests).
   */
  threads?: number;
  /** Wall-clock bound of one ladder (RENDITION_TIMEOUT_SECONDS): over it the renditions fail, they are not retried. */
  timeoutSeconds: number;
  /** The ffmpeg that takes poster frames (src/renditions/ffmpeg.ts chooses it). */
  ffmpeg: FfmpegBinary;
  /** Called at each decode of a watermark image (metrics). */
  onWatermarkDecode?: () => void;
  /** media.ready and media.failed, written with the renditions' own record (docs/integrations.md "Webhooks"). */
  events?: WebhookEmitter;
  /** AVIF alternates of the small rungs (RENDITION_AVIF; default off). */
  avif?: boolean;
}

export class RenditionsService {
  constructor(
    private readonly repo: RenditionsRepository,
    private readonly storage: StorageBackend,
    private readonly files: FileDeletions,
    private readonly deletions: DeletionsRepository,
    private readonly urls: FileUrls,
    private readonly log: Pick<Logger, 'warn' | 'error'>,
    private readonly settings: RenditionsSettings,
  ) {
    // One thread per ladder (several ladders run at once, one per runner), no operation cache: bounded memory.
    sharp.concurrency(settings.threads ?? 1);
    sharp.cache(false);
  }

  /** Leftovers of a process that stopped mid-job (only this process's worker writes here once it runs). */
  async sweepWork(): Promise<void> {
    for (const entry of await readdir(this.settings.workDir)) await rm(join(this.settings.workDir, entry), { recursive: true, force: true });
  }

  /** The renditions of a page of medias (one query), as replies show them. */
  async views(mediaIds: readonly number[]): Promise<Map<number, RenditionView[]>> {
    const rows = await this.repo.forMedias(mediaIds);
    const out = new Map<number, RenditionView[]>();
    // AVIF alternates and the phone's rung are the website's (its <picture>): API replies list the ladder as before.
    for (const [id, list] of rows) out.set(id, list.filter((r) => r.mime_type !== AVIF && r.name !== PHONE_RUNG_NAME).map((r) => this.view(r)));
    return out;
  }

  private view(r: RenditionRow): RenditionView {
    return { name: r.name, width: r.width, height: r.height, type: r.mime_type, url: this.urls.public(r.storage_key), key: r.storage_key, bytes: Number(r.bytes) };
  }

  // ---- the job

  /** This feature's entry in the worker's handler map (src/jobs/handlers.ts). */
  jobHandler(): readonly [string, JobHandler<Prepared>] {
    return [RENDITIONS_JOB_KIND, this.handler()];
  }

  handler(): JobHandler<Prepared> {
    return {
      prepare: (job, payload) => this.prepare(job, payload as RenditionsPayload),
      runChunk: (unit, _job, payload, _start, _end, prepared) => this.record(unit, payload as RenditionsPayload, prepared!),
      giveUp: async (_job, payload) => {
        const p = payload as RenditionsPayload;
        await this.repo.failNow(p.mediaId, p.storageKey, 'the renditions could not be made (retried, then given up)');
      },
    };
  }

  private async prepare(_job: JobRow, p: RenditionsPayload): Promise<Prepared> {
    const source = await this.repo.source(p.mediaId);
    if (!source || source.storageKey !== p.storageKey || source.status !== 'live') return { kind: 'skip' };
    // Already recorded by an earlier run of this job (it stopped while making the AVIF alternates).
    if (source.renditionsState !== 'pending') return { kind: 'skip' };
    const work = await mkdtemp(join(this.settings.workDir, 'job-'));
    const stored: string[] = [];
    try {
      const input = await this.localCopy(p.storageKey, work);
      const mime = source.mimeType ?? 'application/octet-stream';
      const options: LadderOptions = {
        copyright: source.copyright ?? undefined,
        author: source.author ?? undefined,
        // Poster frames and placeholders are PNGs this service made.
        accept: new Set(['png']),
        timeoutSeconds: this.settings.timeoutSeconds,
        onWatermarkDecode: this.settings.onWatermarkDecode,
      };
      let picture: string | Buffer;
      // Photos and video frames get AVIF alternates; a document's card does not need them.
      let photoLike = true;
      if (mime.startsWith('image/') && mime !== 'image/svg+xml') {
        picture = input;
        options.accept = decoderFormatsFor(mime);
        options.watermark = await this.watermarkOf(source.watermark);
        // The file's own credits, unless the media record names them.
        const credits = await creditsOf(input);
        options.copyright ??= credits.copyright;
        options.author ??= credits.author;
      } else if (mime.startsWith('video/')) {
        picture = await posterFrame(this.settings.ffmpeg, mime, input, work, this.log);
        options.watermark = await this.watermarkOf(source.watermark);
      } else {
        // Documents (and anything else we accept): a neutral card naming the type; nothing to protect.
        picture = await placeholder(mime);
        photoLike = false;
      }
      const rows: NewRendition[] = [];
      let storeError: unknown;
      let recorded = false;
      let declined = false;
      if (photoLike && this.settings.avif !== false) {
        options.avif = {
          // The ladder is recorded (the pages show it) before the slow AVIF alternates are made.
          afterBase: async () => {
            storeError = undefined;
            recorded = await this.recordNow(p, rows.splice(0));
            declined = !recorded;
            return recorded;
          },
          onAlternateFailed: (err) => {
            storeError = undefined;
            this.log.warn({ media: source.uuid, err: err instanceof Error ? err.message : String(err) }, 'AVIF alternates not made: the pages show WebP');
          },
        };
      }
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
        const known = err instanceof WatermarkFailed || err instanceof FormatMismatch || err instanceof LadderTimedOut || err instanceof TooManyPixels;
        throw new Undecodable(known ? err.message : 'the file could not be decoded as a picture');
      }
      if (recorded) return { kind: 'alternates', rows };
      // The media changed meanwhile: the ladder went for deletion, nothing more was made.
      if (declined) return { kind: 'skip' };
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

  private async record(unit: Unit, p: RenditionsPayload, prepared: Prepared) {
    const trx = unit.db;
    if (prepared.kind === 'skip') return { processed: 1, failed: 0, errors: [] };
    if (prepared.kind === 'failed') {
      await this.repo.fail(trx, p.mediaId, p.storageKey, prepared.reason);
      await this.settings.events?.emitIn(unit, 'media.failed', { medias: [p.mediaId], extra: { reason: prepared.reason } });
      return { processed: 1, failed: 1, errors: [prepared.reason] };
    }
    const keys = prepared.rows.map((r) => r.storage_key);
    const kept = prepared.kind === 'alternates' ? await this.repo.addAlternates(trx, p.mediaId, p.storageKey, prepared.rows) : await this.repo.commit(trx, p.mediaId, p.storageKey, prepared.rows);
    if (kept) {
      for (const key of keys) await this.deletions.takeOff(trx, key);
      await this.settings.events?.emitIn(unit, 'media.ready', { medias: [p.mediaId] });
      return { processed: 1, failed: 0, errors: [] };
    }
    // The media changed file or went meanwhile: what was made is garbage.
    await this.deletions.record(trx, keys);
    unit.afterCommit(() => this.files.remove(keys));
    return { processed: 1, failed: 0, errors: [] };
  }

  /** The ladder recorded in a transaction of its own, before its alternates are made: false when the media changed meanwhile. */
  private async recordNow(p: RenditionsPayload, rows: NewRendition[]): Promise<boolean> {
    const keys = rows.map((r) => r.storage_key);
    const kept = await this.repo.inTransaction(async (trx) => {
      if (await this.repo.commit(trx, p.mediaId, p.storageKey, rows)) {
        for (const key of keys) await this.deletions.takeOff(trx, key);
        return true;
      }
      await this.deletions.record(trx, keys);
      return false;
    });
    if (!kept) await this.files.remove(keys);
    return kept;
  }

  private async watermarkOf(w: RenditionSource['watermark']): Promise<WatermarkSpec | undefined> {
    if (!w) return undefined;
    if (w.storageKey) return { imagePath: await this.settings.watermarkFiles.localPath(w.storageKey), strength: w.strength, position: w.position, tile: w.tile };
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
  if (err instanceof WatermarkFailed || err instanceof FormatMismatch || err instanceof LadderTimedOut || err instanceof TooManyPixels) return true;
  const message = err instanceof Error ? err.message : '';
  return /unsupported image format|Input file|Input buffer|VipsJpeg|VipsPng|VipsWebp|VipsForeign|pngload|jpegload|webpload|heifload|tiffload|gifload|corrupt|premature|truncated|pixel limit|bad|invalid/i.test(message);
}

/** One frame of the video as a PNG: a second in, or the first frame of a shorter video. */
async function posterFrame(ffmpeg: FfmpegBinary, mime: string, input: string, dir: string, log: Pick<Logger, 'warn'>): Promise<string> {
  // Read as the type its bytes were accepted as, never as what ffmpeg would guess.
  const demuxer = demuxerFor(mime, await readFileHead(input, 4));
  if (!demuxer) throw new Undecodable('no frame could be read from the video');
  const out = join(dir, 'poster.png');
  for (const seek of ['1', '0']) {
    const run = await runFfmpeg(ffmpeg, demuxer, input, ['-ss', seek], ['-frames:v', '1', '-an', '-sn', '-dn', '-f', 'image2', '-y', out]);
    if (run.kind === 'unavailable') throw new Undecodable('no video decoder is available');
    if (run.kind === 'killed') {
      log.warn({ signal: run.signal, limits: FFMPEG_LIMITS }, 'ffmpeg stopped at its time or CPU limit');
      throw new Undecodable('the video decoder went over its time limit');
    }
    // A failed seek is not an error here: what was written says.
    const made = await stat(out).catch(() => undefined);
    if (made && made.size > 0) return out;
  }
  throw new Undecodable('no frame could be read from the video');
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
