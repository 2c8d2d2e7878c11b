// Uploads (issue 21, item 4): the upload screen, the tus endpoint it sends files to (resumable:
// a dropped connection or a reload resumes where it stopped), the duplicate check before
// sending and the outcome of each upload. Every decision is ResumableUploadsService's
// (src/resumable-uploads/service.ts) and, through it, the API's own pipeline and access module.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import { PROBE_PATTERN } from '../../uploads/probe.js';
import { UPLOAD_ID } from '../../resumable-uploads/service.js';
import { TUS_PATH } from '../../resumable-uploads/tus-endpoint.js';
import type { Signed, StudioKit } from '../kit.js';
import { uploadPage, type GalleryChoice } from '../pages/uploads.js';

/** Files per duplicate check (a dropped folder is sent in batches of this many). */
export const CHECK_BATCH = 500;
/** Galleries offered per website in the select. */
const GALLERIES_SHOWN = 500;
const WEBSITES_SHOWN = 50;

export function uploadRoutes(f: FastifyInstance, kit: StudioKit): void {
  async function choices(s: Signed): Promise<GalleryChoice[]> {
    const sites = await kit.deps.websites.list(s.user, { limit: WEBSITES_SHOWN, offset: 0 });
    const out: GalleryChoice[] = [];
    for (const w of sites.websites) {
      const page = await kit.deps.galleries.list(s.user, w.urlname, { page: 1, perPage: GALLERIES_SHOWN, withCounts: false });
      for (const g of page.records) out.push({ uuid: g.uuid, website: w.title || w.urlname, name: g.name, path: g.full_url_path });
    }
    return out;
  }

  f.get('/studio/upload', async (req, reply) => {
    const s = kit.need(req);
    const wanted = (req.query as { gallery?: unknown }).gallery;
    const galleries = await choices(s);
    const selected = typeof wanted === 'string' ? galleries.find((g) => g.uuid === wanted.toLowerCase())?.uuid : undefined;
    return kit.send(reply, 200, uploadPage({ viewer: s.viewer, galleries, selected, usage: await kit.deps.resumable.usage(s.user) }));
  });

  // Before sending: which of these files (size and content probe each) the library already holds.
  f.post('/studio/uploads/check', async (req, reply) => {
    const { s, body } = kit.signedJson(req);
    const files = (body as { files?: unknown }).files;
    if (!Array.isArray(files) || files.length > CHECK_BATCH) throw new ApiError('invalid_parameter', `files must be a list of at most ${CHECK_BATCH} files`);
    const wanted = files.map((x: unknown) => {
      const { size, probe } = (x ?? {}) as { size?: unknown; probe?: unknown };
      if (!Number.isSafeInteger(size) || (size as number) < 1 || typeof probe !== 'string' || !PROBE_PATTERN.test(probe)) {
        throw new ApiError('invalid_parameter', 'each file needs its size (bytes) and its probe (w: or s: then 64 hex digits)');
      }
      return { size: size as number, probe };
    });
    const found = await kit.deps.resumable.duplicates(s.user, wanted);
    return kit.json(reply, 200, { media: wanted.map((w) => found.get(`${w.size}/${w.probe}`) ?? null) });
  });

  // After the last byte: the upload's outcome, running its end if nobody did yet (the last PATCH's answer was lost).
  f.post('/studio/uploads/finish', async (req, reply) => {
    const { s, body } = kit.signedJson(req);
    const id = (body as { id?: unknown }).id;
    if (typeof id !== 'string' || !UPLOAD_ID.test(id)) throw new ApiError('not_found', 'There is no such upload.');
    return kit.json(reply, 200, await kit.deps.resumable.finish(s.user, id));
  });

  // The tus protocol (creation, HEAD for the offset, PATCH with the bytes, termination): the
  // session, the origin and the CSRF header first (tus-js-client sends X-Studio-CSRF on every request).
  const tus = async (req: FastifyRequest, reply: FastifyReply) => {
    const s = kit.signedScript(req);
    reply.hijack();
    reply.raw.setHeader('x-content-type-options', 'nosniff');
    reply.raw.setHeader('cache-control', 'no-store');
    await kit.deps.tus.handle(req.raw, reply.raw, s.user);
  };
  for (const url of [TUS_PATH, `${TUS_PATH}/*`]) f.route({ method: ['POST', 'HEAD', 'PATCH', 'DELETE'], url, handler: tus });
}
