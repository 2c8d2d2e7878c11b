// GET/HEAD /files/<storage-key>: a plain route beside the API, no signature; who may have a file is
// access.ts's decision (unsigned: renditions of public medias; signed: what was signed, until it
// expires). A key that does not exist and one the caller may not fetch look the same (404); files
// are streamed (Range, HEAD, conditional GET), never buffered. Rules and headers:
// docs/renditions.md, "Serving files".
import { readFile } from 'node:fs/promises';
import type { ActivityService } from '../../activity/service.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { StorageBackend } from '../../file-storage/backend.js';
import { SHARE_VISITOR, type GateGallery, type VisitorAccess } from '../access.js';
import type { VisitorBudget } from '../limits/budget.js';
import type { DownloadGuard } from './download-guard.js';
import { FILE_KEY, type FileUrls } from '../../file-storage/file-urls.js';
import { attachment } from '../../core/attachment.js';
import { matchesEtag } from '../../core/content-coding.js';

export interface FileRouteDeps {
  /** Who may have which file: the website's one decision (access.ts). */
  access: VisitorAccess;
  storage: StorageBackend;
  urls: FileUrls;
  /** Requests per address that need the database (VISITOR_FILES_RATE_LIMIT). */
  budget: VisitorBudget;
  /** Records a visitor's downloads (docs/delivery.md "Activity"). */
  activity?: Pick<ActivityService, 'record'>;
  /** Share links: a link's downloads are counted on it (a lightbox's, which has no gallery activity, only there). */
  shareLinks?: { countDownload(linkUuid: string): Promise<void> };
  /** A gallery's download controls (docs/delivery.md "Download controls"): web size only, limits per client. */
  guard?: Pick<DownloadGuard, 'file'>;
}

/** Shown in place; anything else (SVG, HTML, PDF, …) is a download, so it never runs as a page. */
const INLINE = /^(image\/(jpeg|png|webp|avif|gif)|video\/[a-z0-9.+-]+)$/;
const ONE_YEAR = 31_536_000;
/** Local files up to this size are read whole rather than streamed. */
const SMALL_FILE_BYTES = 128 * 1024;

type Query = Record<string, string | string[] | undefined>;

function text(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/plain; charset=utf-8')
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-store')
    .send(body);
}

/** The strong validator of an immutable key: its content hash (renditions) or its random name (originals). */
function etagOf(key: string): string {
  const last = key.slice(key.lastIndexOf('/') + 1);
  const hash = /^([0-9a-f]{16})-/.exec(last)?.[1] ?? last.replace(/[^A-Za-z0-9]/g, '');
  return `"${hash}"`;
}

/** A single `bytes=` range of a file of `size` bytes: the range, 'unsatisfiable', or undefined (serve it all). */
function rangeOf(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Several ranges or another unit: the whole file is a correct answer.
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return undefined;
  }
  if (start >= size || size === 0) return 'unsatisfiable';
  return { start, end };
}

export function fileRoutes(deps: FileRouteDeps): (fastify: FastifyInstance) => void {
  const handler = (req: FastifyRequest, reply: FastifyReply) => serve(deps, req, reply);
  return (fastify) => {
    fastify.route({ method: 'GET', url: '/files/*', exposeHeadRoute: false, config: { auth: 'none' }, handler });
    fastify.route({ method: 'HEAD', url: '/files/*', config: { auth: 'none' }, handler });
  };
}

async function serve(deps: FileRouteDeps, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const key = (req.params as { '*': string })['*'];
  if (typeof key !== 'string' || !FILE_KEY.test(key) || key.split('/').some((s) => s === '' || s === '.' || s === '..')) return text(reply, 404, 'not found');
  const q = req.query as Query;
  const one = (name: string) => (Array.isArray(q[name]) ? '\u0000' : (q[name] as string | undefined));
  const access = deps.urls.check(key, { e: one('e'), v: one('v'), g: one('g'), a: one('a'), d: one('d'), s: one('s') });
  // A bad signature says nothing about the key: the same 404 as a missing file.
  if (access.kind === 'invalid') return text(reply, 404, 'not found');
  if (access.kind === 'expired') return text(reply, 403, 'this link has expired: reload the page for a new one');

  // What the process remembers (a public key, a miss, both for seconds) costs nothing and is not
  // counted: a gallery's thumbnails loaded again and again never meet the budget. Anything that
  // needs the database takes a point first, so misses and lookups of many keys are bounded.
  const signed = access.kind === 'signed';
  let info = signed ? undefined : deps.access.remembered(key);
  if (info === null) return text(reply, 404, 'not found');
  if (info === undefined) {
    const wait = await deps.budget.take(req.ip);
    if (wait !== undefined) return text(reply.header('retry-after', String(wait)), 429, `too many requests: wait ${wait} s`);
    info = await deps.access.servable(key, access.kind === 'signed' ? access : undefined);
  }
  if (!info) return text(reply, 404, 'not found');
  const gate = (info as { gate?: GateGallery }).gate;
  if (access.kind === 'signed' && access.download && gate && deps.guard) {
    // Spent by any GET of a photo not downloaded yet, whatever its range: bytes fetched from the middle are a download too.
    const verdict = await deps.guard.file(gate, info.kind, info.mediaId, access.visitor, req.method !== 'HEAD');
    if (!verdict.ok) return refused(reply, verdict.why, verdict.limit);
  }
  // The size the database knows saves a stat (an S3 HEAD) per request; an original without one is looked at.
  const size = info.bytes ?? (await deps.storage.stat(key))?.size;
  if (size === undefined) return text(reply, 404, 'not found');
  const etag = etagOf(key);
  const mime = info.mimeType.toLowerCase();
  const inline = INLINE.test(mime) && !(access.kind === 'signed' && access.download);
  reply
    .header('etag', etag)
    .header('accept-ranges', 'bytes')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox")
    // A public file (anyone may fetch it) may be drawn by any page: a website's logo in a webmail or the
    // studio's sandboxed preview of the mails (docs/delivery.md "Mails"); a visitor's signed file stays same-site.
    .header('cross-origin-resource-policy', access.kind === 'signed' ? 'same-site' : 'cross-origin')
    .header(
      'cache-control',
      access.kind === 'signed' ? `private, max-age=${Math.max(0, Math.floor((access.expiresAt - Date.now()) / 1000))}` : `public, max-age=${ONE_YEAR}, immutable`,
    );
  if (!inline) reply.header('content-disposition', info.kind === 'original' ? (info.fileName ? attachment(info.fileName) : 'attachment') : attachment(downloadName(info)));

  const inm = req.headers['if-none-match'];
  if (typeof inm === 'string' && matchesEtag(inm, etag)) return reply.code(304).send();

  let range = rangeOf(typeof req.headers.range === 'string' ? req.headers.range : undefined, size);
  // If-Range with another validator: the whole (current) file.
  const ifRange = req.headers['if-range'];
  if (range && typeof ifRange === 'string' && ifRange.trim() !== etag) range = undefined;
  if (range === 'unsatisfiable') return reply.code(416).header('content-range', `bytes */${size}`).header('content-type', 'text/plain; charset=utf-8').send('range not satisfiable');

  reply.header('content-type', mime);
  if (range) {
    reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${size}`).header('content-length', range.end - range.start + 1);
  } else {
    reply.code(200).header('content-length', size);
  }
  if (req.method === 'HEAD') return reply.send();
  // A download (an address made for one, to save the file) is recorded with its size; a range
  // from the start counts (a player or a download manager), one resuming further on does not.
  const lightboxLink = (info as { lightboxLink?: string }).lightboxLink;
  const firstBytes = !range || range.start === 0;
  // A share link's download is counted on the link too, whatever it opens.
  if (access.kind === 'signed' && access.download && firstBytes && access.visitor.startsWith(SHARE_VISITOR)) await deps.shareLinks?.countDownload(access.visitor.slice(SHARE_VISITOR.length));
  // A lightbox has no gallery activity: its link's count is the record.
  if (lightboxLink === undefined && access.kind === 'signed' && access.download && deps.activity && firstBytes) {
    const email = deps.urls.openClient(access.visitor);
    const share = access.visitor.startsWith(SHARE_VISITOR) ? await deps.access.shareClient(access.visitor) : undefined;
    deps.activity.record({
      gallery: access.gallery,
      client: share ?? (email ? { email, verified: true } : null),
      kind: 'download',
      mediaId: info.mediaId,
      bytes: range ? range.end - range.start + 1 : size,
    });
  }
  // A small local file (a thumbnail) in one read: cheaper than a stream, and bounded.
  const local = !range && size <= SMALL_FILE_BYTES ? deps.storage.localPath(key) : undefined;
  if (local) {
    const bytes = await readFile(local).catch(() => undefined);
    if (bytes && bytes.length === size) return reply.send(bytes);
  }
  const body = await deps.storage.read(key, range ?? (size > 0 ? { start: 0, end: size - 1 } : undefined));
  if (!body) {
    reply.removeHeader('content-length').removeHeader('content-range').removeHeader('etag').removeHeader('content-disposition');
    return text(reply, 404, 'not found');
  }
  return reply.send(body);
}

/** A refusal a visitor may read (a download link opened in a new tab): small, plain, no script, never cached. */
function refused(reply: FastifyReply, why: 'web-only' | 'limit', limit: number | undefined): FastifyReply {
  const [title, body] =
    why === 'limit'
      ? ['Download limit reached', `You have downloaded the ${limit ?? ''} photos this gallery allows. Photos you downloaded before can be downloaded again; for more, please ask the photographer.`]
      : ['Web-size downloads only', 'This gallery offers its photos at web size: go back to the gallery and use its download button.'];
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><style>body{font:1.05rem/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}</style></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;
  return reply
    .code(403)
    .header('content-type', 'text/html; charset=utf-8')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
    .header('cache-control', 'no-store')
    .send(html);
}

const EXTENSIONS: Record<string, string> = { 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/avif': 'avif', 'image/png': 'png' };

/**
 * A rendition saved by a visitor (a comp): named after its media's title, else its original
 * file's name, with the rendition's own extension — never the storage key's hash.
 */
export function downloadName(info: { title: string | null; fileName: string; mimeType: string }): string {
  const ext = EXTENSIONS[info.mimeType.toLowerCase()] ?? 'bin';
  const fromTitle = (info.title ?? '').replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 120);
  const base = fromTitle || info.fileName.replace(/\.[A-Za-z0-9]{1,5}$/, '').replace(/[\u0000-\u001f\u007f/\\]+/g, '_').slice(0, 120) || 'photo';
  return `${base}.${ext}`;
}
