// Uploads (issue 21, item 4): the upload screen, the tus endpoint it sends files to (resumable:
// a dropped connection or a reload resumes where it stopped), the duplicate check before
// sending and the outcome of each upload. Every decision is ResumableUploadsService's
// (src/resumable-uploads/service.ts) and, through it, the API's own pipeline and access module.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import { PROBE_PATTERN } from '../../uploads/probe.js';
import { UPLOAD_ID } from '../../resumable-uploads/service.js';
import { TUS_PATH } from '../../resumable-uploads/tus-endpoint.js';
import type { Signed, StudioContext, StudioRoute } from '../context.js';
import { uploadPage, type GalleryChoice } from '../pages/uploads.js';

/** Files per duplicate check (a dropped folder is sent in batches of this many). */
export const CHECK_BATCH = 500;
/** Galleries offered per website in the select. */
const GALLERIES_SHOWN = 500;
const WEBSITES_SHOWN = 50;

export const uploadRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/upload', handler: uploadScreen },
  { method: 'POST', path: '/studio/uploads/check', handler: checkDuplicates },
  { method: 'POST', path: '/studio/uploads/finish', handler: finishUpload },
  // The tus protocol (creation, HEAD for the offset, PATCH with the bytes, termination).
  ...[TUS_PATH, `${TUS_PATH}/*`].map((path): StudioRoute => ({ method: ['POST', 'HEAD', 'PATCH', 'DELETE'], path, handler: tus })),
];

async function choices(ctx: StudioContext, s: Signed): Promise<GalleryChoice[]> {
  const sites = await ctx.deps.websites.list(s.user, { limit: WEBSITES_SHOWN, offset: 0 });
  const out: GalleryChoice[] = [];
  for (const w of sites.websites) {
    const page = await ctx.deps.galleries.list(s.user, w.urlname, { page: 1, perPage: GALLERIES_SHOWN, withCounts: false });
    for (const g of page.records) out.push({ uuid: g.uuid, website: w.title || w.urlname, name: g.name, path: g.full_url_path });
  }
  return out;
}

// The tus protocol (creation, HEAD for the offset, PATCH with the bytes, termination): the
// session, the origin and the CSRF header first (tus-js-client sends X-Studio-CSRF on every request).
async function tus(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.signedScript(req);
  reply.hijack();
  reply.raw.setHeader('x-content-type-options', 'nosniff');
  reply.raw.setHeader('cache-control', 'no-store');
  await ctx.deps.tus.handle(req.raw, reply.raw, s.user);
}

async function uploadScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const wanted = (req.query as { gallery?: unknown }).gallery;
  const galleries = await choices(ctx, s);
  const selected = typeof wanted === 'string' ? galleries.find((g) => g.uuid === wanted.toLowerCase())?.uuid : undefined;
  return ctx.send(reply, 200, uploadPage({ viewer: s.viewer, galleries, selected, usage: await ctx.deps.resumable.usage(s.user) }));
}

// Before sending: which of these files (size and content probe each) the library already holds.
async function checkDuplicates(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, body } = ctx.signedJson(req);
  const files = (body as { files?: unknown }).files;
  if (!Array.isArray(files) || files.length > CHECK_BATCH) throw new ApiError('invalid_parameter', `files must be a list of at most ${CHECK_BATCH} files`);
  const wanted = files.map((x: unknown) => {
    const { size, probe } = (x ?? {}) as { size?: unknown; probe?: unknown };
    if (!Number.isSafeInteger(size) || (size as number) < 1 || typeof probe !== 'string' || !PROBE_PATTERN.test(probe)) {
      throw new ApiError('invalid_parameter', 'each file needs its size (bytes) and its probe (w: or s: then 64 hex digits)');
    }
    return { size: size as number, probe };
  });
  const found = await ctx.deps.resumable.duplicates(s.user, wanted);
  return ctx.json(reply, 200, { media: wanted.map((w) => found.get(`${w.size}/${w.probe}`) ?? null) });
}

// After the last byte: the upload's outcome, running its end if nobody did yet (the last PATCH's answer was lost).
async function finishUpload(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, body } = ctx.signedJson(req);
  const id = (body as { id?: unknown }).id;
  if (typeof id !== 'string' || !UPLOAD_ID.test(id)) throw new ApiError('not_found', 'There is no such upload.');
  return ctx.json(reply, 200, await ctx.deps.resumable.finish(s.user, id));
}

