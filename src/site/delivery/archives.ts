// A gallery's photos (or a visitor's chosen list) as one ZIP, streamed as it is made: yazl is
// handed one stored file at a time, so backpressure reaches the store and nothing is written to
// disk; rights are decided once when the archive starts, and one archive runs at a time per
// visitor and per address. Why yazl, what goes in, names, limits and figures: docs/delivery.md,
// "Downloads".
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import zlib from 'node:zlib';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import yazl from 'yazl';
import { ApiError } from '../../core/errors.js';
import type { StorageBackend } from '../../file-storage/backend.js';
import { attachment } from '../../core/attachment.js';
import { downloadName } from './files.js';
import { activityClientOf, type VisitorPass } from '../signin/pass.js';
import type { ArchiveMedia, SiteRepository } from '../repository.js';
import { compRendition } from './comp-rendition.js';
import { webRendition } from './download-controls.js';
import type { DownloadGuard } from './download-guard.js';

/**
 * yazl computes each entry's CRC-32 with buffer-crc32, a table loop in JavaScript: about 10 times
 * slower than zlib's (measured 15–34 MB/s against 210–270 MB/s on the bench machine under load),
 * so it, not the store or the network, bounded an archive's throughput. Where Node has
 * `zlib.crc32` (20.15 and later), the very module instance yazl calls is given it: the same
 * unsigned CRC-32 of the same bytes, continued from the same previous value.
 */
function nativeCrc32ForYazl(): void {
  const crc = createRequire(createRequire(import.meta.url).resolve('yazl'))('buffer-crc32') as { unsigned: (buf: unknown, previous?: unknown) => number };
  const native = (zlib as { crc32?: (data: Buffer, value?: number) => number }).crc32;
  if (typeof native !== 'function' || typeof crc.unsigned !== 'function') return;
  const js = crc.unsigned;
  crc.unsigned = (buf, previous) => (Buffer.isBuffer(buf) && (previous === undefined || typeof previous === 'number') ? native(buf, previous ?? 0) : js(buf, previous));
}
nativeCrc32ForYazl();

/** Medias read from the database at a time. */
const CHUNK = 200;
/** A name's longest length in characters (its folder's apart); longer ones are cut, extension kept. */
const NAME_CHARS = 120;
/** How many skipped files README.txt names one by one. */
const README_NAMES = 1000;
/**
 * How much of a file an archive reads at a time: every chunk crosses yazl's two transforms, its
 * output stream and the byte counter before the socket, so 1 MiB chunks cost those hops 16 times
 * less often than the default 64 KiB (one file is open at a time: 1 MiB more memory per archive).
 */
const READ_CHUNK_BYTES = 1024 * 1024;
/** What a visitor refused for a second archive is told to wait, in seconds. */
const BUSY_RETRY_SECONDS = 30;

/** What a visitor may download in a gallery (access.ts's decision). */
export interface DownloadRights {
  compDownload: boolean;
  hiresDownload: boolean;
  /** The gallery gives web sizes (download-controls.ts): the right to the original gives the 2048 rendition. */
  web?: boolean;
}

/** The medias of one gallery that go into an archive, under one folder, at one gallery's rights. */
export interface ArchivePart {
  /** The gallery the medias must still be published in (checked chunk by chunk). */
  galleryId: number;
  /** The folders from the archive's root down to this part's (gallery names); [] at the root. */
  folder: readonly string[];
  rights: DownloadRights;
  /** The gallery's download limit per client: each photo is counted as a single download of it. */
  limit?: number;
  /** The media ids, in the order the archive lists them; asked for when the part's turn comes. */
  medias: () => Promise<ArrayLike<number>>;
}

/** What an archive is, for the activity record. */
export interface ArchiveStart {
  /** This archive's own id (the request's id is `requestId`). */
  id: string;
  requestId: string;
  kind: 'gallery' | 'favourites';
  websiteId: number;
  /** The gallery the archive was asked from. */
  galleryUuid: string;
  /** The visitor's pass id, or 'anonymous'. */
  visitor: string;
  email: string | undefined;
  /** The address was proved (a sign-in), not a share link's recipient. */
  verified: boolean;
  /** The client is a share link's label, not an address. */
  label?: boolean;
  address: string;
  folders: boolean;
}

export interface ArchiveEnd extends ArchiveStart {
  /** complete: every byte sent; aborted: the visitor went away; failed: a read failed (the reply was cut). */
  outcome: 'complete' | 'aborted' | 'failed';
  /** Bytes of the archive handed to the connection. */
  bytes: number;
  files: number;
  skipped: number;
  ms: number;
}

/**
 * The one place an archive's beginning and end are told (the activity record plugs in here, in
 * the composition root). Called synchronously; a throw is logged and ignored.
 */
export interface ArchiveActivity {
  started(a: ArchiveStart): void;
  ended(a: ArchiveEnd): void;
}

/** What to send: the archive's file name (without `.zip`) and its parts, in order. */
export interface ArchiveJob {
  kind: 'gallery' | 'favourites';
  name: string;
  websiteId: number;
  galleryUuid: string;
  folders: boolean;
  parts: readonly ArchivePart[];
  /** Whom the parts' download limits count (download-controls.ts clientKeyOf); limited parts need one. */
  clientKey?: string;
}

/** One archive at a time per key (a pass, a client address), in this process. */
export class ArchiveSlots {
  private readonly held = new Set<string>();

  /** Takes every key, or none when one is held: the release, or undefined. */
  take(keys: readonly string[]): (() => void) | undefined {
    if (keys.some((k) => this.held.has(k))) return undefined;
    for (const k of keys) this.held.add(k);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const k of keys) this.held.delete(k);
    };
  }

  get size(): number {
    return this.held.size;
  }
}

/** Counts what passes (the bytes sent), without holding anything. */
class Counter extends Transform {
  bytes = 0;
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    cb(null, chunk);
  }
}

export class SiteArchives {
  readonly slots = new ArchiveSlots();

  constructor(
    private readonly repo: Pick<SiteRepository, 'archiveFiles'>,
    private readonly storage: Pick<StorageBackend, 'read'>,
    private readonly log: FastifyBaseLogger,
    private readonly activity: ArchiveActivity | undefined,
    /** Counts the photos of limited galleries (download-guard.ts). */
    private readonly guard?: Pick<DownloadGuard, 'take'>,
  ) {}

  /**
   * The favourites' archive (and any chosen list): `medias`, ids of medias of the gallery
   * `galleryId`, in this order, at `rights` (the visitor's decision in that gallery, taken by the
   * caller with the website's access rules). Ids not live and published there are left out.
   * Refuses with a 429 (thrown ApiError) when this visitor or address has an archive running.
   */
  streamArchive(
    req: FastifyRequest,
    reply: FastifyReply,
    o: { pass: VisitorPass | undefined; websiteId: number; galleryId: number; galleryUuid: string; rights: DownloadRights; medias: readonly number[]; name: string; limit?: number; clientKey?: string },
  ): Promise<FastifyReply> {
    const medias = [...o.medias];
    return this.send(req, reply, o.pass, {
      kind: 'favourites',
      name: o.name,
      websiteId: o.websiteId,
      galleryUuid: o.galleryUuid,
      folders: false,
      parts: [{ galleryId: o.galleryId, folder: [], rights: o.rights, limit: o.limit, medias: async () => medias }],
      clientKey: o.clientKey,
    });
  }

  /**
   * Sends `job` as `application/zip`, streamed: the reply starts as soon as the first file is
   * open. HEAD answers the headers only. The caller has checked access and rights.
   */
  async send(req: FastifyRequest, reply: FastifyReply, pass: VisitorPass | undefined, job: ArchiveJob): Promise<FastifyReply> {
    const release = this.slots.take([`addr:${req.ip}`, ...(pass ? [`pass:${pass.id}`] : [])]);
    if (!release) {
      throw new ApiError('rate_limited', 'An archive is already being downloaded by you: please wait until it has finished, then try again.', { retryAfter: BUSY_RETRY_SECONDS });
    }
    reply
      .code(200)
      .header('content-type', 'application/zip')
      .header('content-disposition', attachment(`${archiveName(job.name)}.zip`))
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .header('x-robots-tag', 'noindex');
    // HEAD, or a visitor who went away while the plan was read (the close that frees the slot has passed).
    if (req.method === 'HEAD' || reply.raw.destroyed || req.raw.socket?.destroyed) {
      release();
      return reply.send();
    }

    const info: ArchiveStart = {
      id: randomUUID(),
      requestId: String(req.id),
      kind: job.kind,
      websiteId: job.websiteId,
      galleryUuid: job.galleryUuid,
      visitor: pass?.id ?? 'anonymous',
      email: activityClientOf(pass)?.email,
      verified: activityClientOf(pass)?.verified ?? false,
      label: activityClientOf(pass)?.label,
      address: req.ip,
      folders: job.folders,
    };
    const began = Date.now();
    const zip = new yazl.ZipFile();
    const counter = new Counter();
    const state: FillState = { files: 0, skipped: 0, limited: 0, named: [], current: undefined, stopped: false, failed: false };
    const stop = () => {
      state.stopped = true;
      state.current?.destroy();
    };
    zip.on('error', (err: unknown) => {
      if (state.stopped) return;
      // A size that differs from the one recorded, or a read that failed: the archive cannot be
      // completed; the reply is cut rather than ended as if it were whole.
      state.failed = true;
      this.log.error({ reqId: req.id, err }, 'archive failed');
      stop();
      counter.destroy(err instanceof Error ? err : new Error(String(err)));
    });
    (zip.outputStream as Readable).pipe(counter);
    this.tell('started', info);

    let ended = false;
    reply.raw.once('close', () => {
      if (ended) return;
      ended = true;
      const complete = counter.writableFinished && reply.raw.writableFinished && !state.failed;
      if (!complete) stop();
      release();
      this.tell('ended', { ...info, outcome: complete ? 'complete' : state.failed ? 'failed' : 'aborted', bytes: counter.bytes, files: state.files, skipped: state.skipped, ms: Date.now() - began });
    });

    void this.fill(zip, job, state).then(
      () => {
        if (!state.stopped) zip.end();
      },
      // Stopped (the visitor went away): the destroyed read's rejection is expected.
      (err: unknown) => {
        if (!state.stopped) zip.emit('error', err);
      },
    );
    return reply.send(counter);
  }

  /** Adds the files one after another: the next is opened once the one before was read through. */
  private async fill(zip: yazl.ZipFile, job: ArchiveJob, state: FillState): Promise<void> {
    const skip = (name: string, limited = false) => {
      state.skipped++;
      if (limited) state.limited++;
      if (state.named.length < README_NAMES) state.named.push(name);
    };
    const names = new EntryNames();
    for (const part of job.parts) {
      if (state.stopped) return;
      const folder = names.folder(part.folder);
      const ids = await part.medias();
      for (let i = 0; i < ids.length && !state.stopped; i += CHUNK) {
        const chunk: number[] = [];
        for (let j = i; j < Math.min(ids.length, i + CHUNK); j++) chunk.push(ids[j]);
        const files = await this.repo.archiveFiles(part.galleryId, chunk);
        for (const id of chunk) {
          if (state.stopped) return;
          const m = files.get(id);
          if (!m) continue;
          const pick = fileOf(m, part.rights);
          if (!pick) {
            skip(folder + sanitize(downloadName({ title: m.title, fileName: m.file_name, mimeType: 'image/jpeg' })));
            continue;
          }
          // The client's download limit here: a photo downloaded before costs nothing; none without a client to count.
          if (part.limit !== undefined && !(job.clientKey && this.guard && (await this.guard.take(part.galleryId, job.clientKey, id, part.limit)))) {
            skip(folder + sanitize(pick.name), true);
            continue;
          }
          const body = await this.storage.read(pick.key, undefined, { chunkBytes: READ_CHUNK_BYTES });
          if (!body) {
            skip(folder + sanitize(pick.name));
            continue;
          }
          if (state.stopped) {
            body.destroy();
            return;
          }
          state.current = body;
          zip.addReadStream(body, names.unique(folder, pick.name), { compress: false, ...(pick.size === null ? {} : { size: pick.size }), mtime: mtimeOf(m) });
          await finished(body);
          state.current = undefined;
          state.files++;
        }
      }
    }
    if (state.skipped > 0 && !state.stopped) zip.addBuffer(Buffer.from(readme(state.named, state.skipped, state.limited), 'utf8'), names.readme, { compress: true });
  }

  private tell(what: 'started', a: ArchiveStart): void;
  private tell(what: 'ended', a: ArchiveEnd): void;
  private tell(what: 'started' | 'ended', a: ArchiveStart | ArchiveEnd): void {
    try {
      if (what === 'started') this.activity?.started(a);
      else this.activity?.ended(a as ArchiveEnd);
    } catch (err) {
      this.log.error({ err }, 'archive activity hook failed');
    }
  }
}

/** The file a media gives at `rights`: the original for hires_download, else the comp; none without a right or a file. */
export function fileOf(m: ArchiveMedia, rights: DownloadRights): { key: string; size: number | null; name: string } | undefined {
  if (rights.hiresDownload && rights.web) {
    const web = webRendition(m.renditions);
    if (web) return { key: web.storage_key, size: web.bytes, name: downloadName({ title: m.title, fileName: m.file_name, mimeType: web.mime_type }) };
  }
  if (rights.hiresDownload && m.storage_key && !rights.web) return { key: m.storage_key, size: m.file_size, name: m.file_name };
  if (rights.compDownload) {
    const comp = compRendition(m.renditions);
    // Named as a single download of it is (delivery/files.ts): its title, else its file's name, with the comp's extension.
    if (comp) return { key: comp.storage_key, size: comp.bytes, name: downloadName({ title: m.title, fileName: m.file_name, mimeType: comp.mime_type }) };
  }
  return undefined;
}

/** An entry's date: when the photo was taken, when known and one a ZIP can say. */
function mtimeOf(m: ArchiveMedia): Date {
  const t = m.shot_at ? Date.parse(m.shot_at) : NaN;
  return Number.isFinite(t) && t > Date.UTC(1980, 0, 2) && t < Date.UTC(2107, 0, 1) ? new Date(t) : new Date();
}

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/**
 * One name of a path in an archive: no separator, no control or bidirectional-override
 * character, no character Windows refuses, no leading or trailing dot or space (no `..`, no
 * hidden file), not a device name, at most NAME_CHARS characters with its extension kept.
 */
export function sanitize(name: string, fallback = 'photo'): string {
  let s = name
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069/\\:*?"<>|]+/g, '_')
    .replace(/\s+/g, ' ')
    .replace(/^[\s.]+|[\s.]+$/g, '');
  const chars = [...s];
  if (chars.length > NAME_CHARS) {
    const dot = s.lastIndexOf('.');
    const ext = dot > 0 && s.length - dot <= 10 ? s.slice(dot) : '';
    s = chars.slice(0, NAME_CHARS - [...ext].length).join('').replace(/[\s.]+$/g, '') + ext;
  }
  if (s === '') s = fallback;
  return WINDOWS_RESERVED.test(s) ? `_${s}` : s;
}

/** An archive's own file name. */
function archiveName(name: string): string {
  return sanitize(name, 'photos');
}

/**
 * The names given in one archive: each unique in its folder whatever the case (file systems
 * that ignore case would otherwise keep one of two), `a.jpg`, `a (2).jpg`, … Only the names of
 * this archive are kept.
 */
class EntryNames {
  private readonly taken = new Set<string>();
  private readonly next = new Map<string, number>();
  private readonly folders = new Map<string, string>();
  /** The root's README.txt is kept free for the list of what was left out. */
  readonly readme = 'README.txt';

  constructor() {
    this.taken.add(this.readme.toLowerCase());
  }

  /** The path prefix of a folder (gallery names from the root, each unique among its siblings): '' at the root, else ending in '/'. */
  folder(names: readonly string[]): string {
    let path = '';
    let key = '';
    for (const n of names) {
      key += `${n}\u0000`;
      let known = this.folders.get(key);
      if (known === undefined) {
        known = this.unique(path, sanitize(n, 'gallery')) + '/';
        this.folders.set(key, known);
      }
      path = known;
    }
    return path;
  }

  /** `folder` + a name not yet given in it. */
  unique(folder: string, name: string): string {
    const clean = sanitize(name);
    const dot = clean.lastIndexOf('.');
    const [base, ext] = dot > 0 ? [clean.slice(0, dot), clean.slice(dot)] : [clean, ''];
    let candidate = folder + clean;
    const stem = (folder + base).toLowerCase() + '\u0000' + ext.toLowerCase();
    let n = this.next.get(stem) ?? 2;
    while (this.taken.has(candidate.toLowerCase())) candidate = `${folder}${base} (${n++})${ext}`;
    this.next.set(stem, n);
    this.taken.add(candidate.toLowerCase());
    return candidate;
  }
}

/** Where an archive being written stands. */
interface FillState {
  files: number;
  /** How many photos were left out, and the names of the first README_NAMES of them. */
  skipped: number;
  /** Of those, left out because the client's download limit was reached. */
  limited: number;
  named: string[];
  /** The stored file being read, to close when the visitor goes away. */
  current: Readable | undefined;
  stopped: boolean;
  failed: boolean;
}

function readme(named: readonly string[], skipped: number, limited = 0): string {
  const lines = [
    'Some photos of this gallery are not in this archive:',
    'their downloadable version is not ready yet, or their file could not be read.',
    ...(limited > 0 ? [`${limited} of them because you have reached the number of downloads this gallery allows.`] : []),
    'Try again later, or ask the photographer.',
    '',
    ...named.map((s) => `- ${s}`),
  ];
  if (skipped > named.length) lines.push(`… and ${skipped - named.length} more.`);
  return lines.join('\r\n') + '\r\n';
}
