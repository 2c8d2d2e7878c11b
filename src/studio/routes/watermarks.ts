// Watermarks (docs/watermarks.md, docs/studio.md "Watermarks"): every change through
// ArtistsService on the API's access rule (a library or watermark of another user is a 404),
// the preview drawn by the renditions' own overlay (ArtistsService.preview).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PassThrough } from 'node:stream';
import { isUuid } from '../../access/uuid.js';
import { ApiError } from '../../http/errors.js';
import { SMALL_FORM_BYTES, type Signed, type StudioKit } from '../kit.js';
import { watermarksPage, type FormError, type LibraryItem } from '../pages/watermarks.js';

/** Libraries and watermarks one screen lists (a photographer has one library, usually a few watermarks). */
const LIBRARIES_SHOWN = 20;
const WATERMARKS_SHOWN = 100;

const NOTICES: Record<string, string> = {
  created: 'The watermark was added.',
  default: 'The default watermark was changed.',
  deleted: 'The watermark was deleted.',
};

export function watermarkRoutes(f: FastifyInstance, kit: StudioKit): void {
  const { artists } = kit.deps;
  const uuidOf = (req: FastifyRequest, what: string) => {
    const uuid = (req.params as { uuid: string }).uuid.toLowerCase();
    if (!isUuid(uuid)) throw new ApiError('not_found', `There is no such ${what}.`);
    return uuid;
  };

  async function screen(reply: FastifyReply, s: Signed, status: number, extra: { notice?: string; error?: FormError; draftText?: string } = {}) {
    const { artists: owned } = await artists.list(s.user, { limit: LIBRARIES_SHOWN, offset: 0 });
    const libraries: LibraryItem[] = [];
    for (const a of owned) {
      const found = await artists.watermarks(s.user, a.uuid, { limit: WATERMARKS_SHOWN, offset: 0 });
      libraries.push({
        uuid: a.uuid,
        name: a.name,
        more: Math.max(0, found.total - found.watermarks.length),
        watermarks: found.watermarks.map((w) => ({ uuid: w.uuid, text: w.text, fileName: w.file_name, width: w.width, height: w.height, isDefault: w.is_default === 1 })),
      });
    }
    return kit.send(reply, status, watermarksPage({ viewer: s.viewer, libraries, ...extra }));
  }

  /** A 422 of the service as the field it names ("text: …", "file: …"). */
  function refusal(err: unknown, artist: string): FormError {
    if (!(err instanceof ApiError) || err.status !== 422) throw err;
    const m = /^(text|file): (.*)$/s.exec(err.message);
    return m ? { artist, field: m[1], message: m[2][0].toUpperCase() + m[2].slice(1) + '.' } : { artist, field: 'form', message: err.message };
  }

  f.get('/studio/watermarks', async (req, reply) => {
    const s = kit.need(req);
    const done = (req.query as { done?: string }).done;
    return screen(reply, s, 200, { notice: done ? NOTICES[done] : undefined });
  });

  f.post('/studio/watermarks/libraries/:uuid/text', { bodyLimit: SMALL_FORM_BYTES }, async (req, reply) => {
    const { s, form } = kit.signedPost(req);
    const artistUuid = uuidOf(req, 'media library');
    const text = form.str('text') ?? '';
    try {
      await artists.createOwnWatermark(s.user, { artistUuid, isDefault: form.str('default') === 'yes', text });
    } catch (err) {
      return screen(reply, s, 422, { error: refusal(err, artistUuid), draftText: text });
    }
    return kit.redirect(reply, '/studio/watermarks?done=created');
  });

  // An image, streamed to the service (bounded there: WATERMARK_IMAGE_MAX_BYTES). The CSRF token
  // comes first in the form: nothing is received before it is checked (kit.signedFile).
  f.post('/studio/watermarks/libraries/:uuid/image', async (req, reply) => {
    const s = kit.need(req);
    const artistUuid = uuidOf(req, 'media library');
    const { taken } = await kit.signedFile(req, s, (file, fields) => {
      // The service may stop reading (too large, another's library): the kit then drains busboy's stream.
      const body = new PassThrough();
      file.stream.pipe(body);
      const made = artists.createOwnWatermark(s.user, { artistUuid, isDefault: fields.get('default') === 'yes', image: { fileName: file.fileName || 'watermark', stream: body } });
      made.catch(() => file.stream.unpipe(body));
      return made;
    });
    try {
      if (!taken) throw new ApiError('invalid_parameter', 'file: choose an image');
      await taken;
    } catch (err) {
      return screen(reply, s, 422, { error: refusal(err, artistUuid) });
    }
    return kit.redirect(reply, '/studio/watermarks?done=created');
  });

  f.post('/studio/watermarks/:uuid/default', { bodyLimit: SMALL_FORM_BYTES }, async (req, reply) => {
    const { s } = kit.signedPost(req);
    await artists.makeDefault(s.user, uuidOf(req, 'watermark'));
    return kit.redirect(reply, '/studio/watermarks?done=default');
  });

  f.post('/studio/watermarks/:uuid/delete', { bodyLimit: SMALL_FORM_BYTES }, async (req, reply) => {
    const { s, form } = kit.signedPost(req);
    const uuid = uuidOf(req, 'watermark');
    if (form.str('confirm') !== 'yes') return screen(reply, s, 422, { error: { artist: '', field: 'form', message: 'Tick “Yes, delete” to delete the watermark.' } });
    await artists.deleteWatermark(s.user, uuid);
    return kit.redirect(reply, '/studio/watermarks?done=deleted');
  });

  // The watermark on the user's latest photo (or a grey canvas), as the renditions draw it.
  f.get('/studio/watermarks/:uuid/preview.jpg', async (req, reply) => {
    const s = kit.need(req);
    const jpeg = await artists.preview(s.user, uuidOf(req, 'watermark'), (key) => kit.deps.storage.read(key));
    return reply
      .code(200)
      .header('content-type', 'image/jpeg')
      .header('cache-control', 'private, max-age=60')
      .header('x-content-type-options', 'nosniff')
      .header('content-length', jpeg.length)
      .send(jpeg);
  });
}
