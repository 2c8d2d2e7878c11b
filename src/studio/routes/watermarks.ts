// Watermarks (docs/watermarks.md, docs/studio.md "Watermarks"): every change through
// ArtistsService on the API's access rule (a library or watermark of another user is a 404),
// the look (strength, position, tile) read by the one declaration the admin command reads too
// (artists/watermark-input.ts), the preview drawn by the renditions' own overlay
// (ArtistsService.preview).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PassThrough } from 'node:stream';
import { isUuid } from '../../core/uuid.js';
import { WATERMARK_LOOK_FIELDS, WATERMARK_LOOK_PARAMS, type WatermarkLook } from '../../artists/watermark-input.js';
import { ApiError } from '../../core/errors.js';
import { readFields } from '../../core/fields.js';
import { Body } from '../body.js';
import { specForm } from '../spec-form.js';
import { SMALL_FORM_BYTES, type Signed, type StudioContext, type StudioRoute } from '../context.js';
import { watermarksPage, type Draft, type FormError, type LibraryItem, type Look } from '../pages/watermarks.js';

/** Libraries and watermarks one screen lists (a photographer has one library, usually a few watermarks). */
const LIBRARIES_SHOWN = 20;
const WATERMARKS_SHOWN = 100;

const NOTICES: Record<string, string> = {
  created: 'The watermark was added.',
  default: 'The default watermark was changed.',
  deleted: 'The watermark was deleted.',
  look: 'The look was saved. Photos rendered from now on show it; those already made keep theirs.',
};

/** The look's spec as the forms name it (strength, position, tile); a refusal at err.field. */
const LOOK_FORM = specForm(WATERMARK_LOOK_FIELDS, WATERMARK_LOOK_PARAMS);

/** The look a form asks for. The forms always hold the tile checkbox, so its absence means no (a checkbox sends nothing). */
function readLook(form: Body): WatermarkLook {
  const source = LOOK_FORM.source(form, ['strength', 'position']);
  return readFields(WATERMARK_LOOK_FIELDS, { ...source, value: (k) => (k === 'tile' ? (form.str('tile') === 'yes' ? 'yes' : 'no') : source.value(k)) }, LOOK_FORM.words);
}

/** What a refused form held, to show it again as sent. */
function lookDraft(field: (name: string) => string | undefined): Look {
  // A blank or unreadable strength shows the default again (Number('') would be 0).
  const sent = field('strength')?.trim();
  const strength = sent ? Number(sent) : NaN;
  return { strength: Number.isFinite(strength) ? strength : 50, position: field('position') ?? 'center', tile: field('tile') === 'yes' };
}

export const watermarkRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/watermarks', handler: watermarksScreen },
  { method: 'POST', path: '/studio/watermarks/libraries/:uuid/text', bodyLimit: SMALL_FORM_BYTES, handler: createTextWatermark },
  { method: 'POST', path: '/studio/watermarks/libraries/:uuid/image', handler: createImageWatermark },
  { method: 'POST', path: '/studio/watermarks/:uuid/default', bodyLimit: SMALL_FORM_BYTES, handler: makeDefault },
  { method: 'POST', path: '/studio/watermarks/:uuid/delete', bodyLimit: SMALL_FORM_BYTES, handler: deleteWatermark },
  { method: 'POST', path: '/studio/watermarks/:uuid/look', bodyLimit: SMALL_FORM_BYTES, handler: changeLook },
  { method: 'GET', path: '/studio/watermarks/:uuid/preview.jpg', handler: preview },
];

const uuidOf = (req: FastifyRequest, what: string) => {
  const uuid = (req.params as { uuid: string }).uuid.toLowerCase();
  if (!isUuid(uuid)) throw new ApiError('not_found', `There is no such ${what}.`);
  return uuid;
};

async function screen(ctx: StudioContext, reply: FastifyReply, s: Signed, status: number, extra: { notice?: string; error?: FormError; draft?: Draft } = {}) {
  const { artists: owned } = await ctx.deps.artists.list(s.user, { limit: LIBRARIES_SHOWN, offset: 0 });
  const libraries: LibraryItem[] = [];
  for (const a of owned) {
    const found = await ctx.deps.artists.watermarks(s.user, a.uuid, { limit: WATERMARKS_SHOWN, offset: 0 });
    libraries.push({
      uuid: a.uuid,
      name: a.name,
      more: Math.max(0, found.total - found.watermarks.length),
      watermarks: found.watermarks.map((w) => ({
        uuid: w.uuid,
        text: w.text,
        fileName: w.file_name,
        width: w.width,
        height: w.height,
        isDefault: w.is_default === 1,
        look: { strength: w.strength, position: w.position, tile: w.tile === 1 },
      })),
    });
  }
  return ctx.send(reply, status, watermarksPage({ viewer: s.viewer, libraries, ...extra }));
}

/**
 * A 422 at the form's field `err.field` names: the service's text or file, or the look's
 * strength, position or tile; `form` is the suffix of that form's field ids.
 */
function refusal(err: unknown, form: string): FormError {
  const { field, message } = LOOK_FORM.refusal(err);
  const sentence = (t: string) => `${t[0].toUpperCase()}${t.slice(1)}.`;
  // The service words its own with the field first ("text: the text is empty").
  if (field === 'text' || field === 'file') return { field: form, message: sentence(message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message) };
  if (field === 'strength' || field === 'position' || field === 'tile') return { field: `${field}-${form}`, message: sentence(message) };
  return { field: 'form', message };
}

/** Another user's library is a 404 before a form's values are judged (as the API's `found`: one watermark read). */
const ownLibrary = (ctx: StudioContext, s: Signed, artistUuid: string) => ctx.deps.artists.watermarks(s.user, artistUuid, { limit: 1, offset: 0 });

async function watermarksScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const done = (req.query as { done?: string }).done;
  return screen(ctx, reply, s, 200, { notice: done ? NOTICES[done] : undefined });
}

async function createTextWatermark(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const artistUuid = uuidOf(req, 'media library');
  const text = form.str('text') ?? '';
  const field = (name: string) => form.str(name);
  const key = `text-${artistUuid}`;
  const refused = (err: unknown) => screen(ctx, reply, s, 422, { error: refusal(err, key), draft: { form: key, text, look: lookDraft(field) } });
  let look: WatermarkLook;
  try {
    look = readLook(form);
  } catch (err) {
    await ownLibrary(ctx, s, artistUuid);
    return refused(err);
  }
  try {
    await ctx.deps.artists.createOwnWatermark(s.user, { artistUuid, isDefault: form.str('default') === 'yes', look, text });
  } catch (err) {
    return refused(err);
  }
  return ctx.redirect(reply, '/studio/watermarks?done=created');
}

// An image, streamed to the service (bounded there: WATERMARK_IMAGE_MAX_BYTES). The CSRF token
// comes first in the form: nothing is received before it is checked (ctx.signedFile).
async function createImageWatermark(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const artistUuid = uuidOf(req, 'media library');
  // The look's fields come before the file in the form: they are known when the file starts.
  const { taken, fields } = await ctx.signedFile(req, s, (file, fields) => {
    let look: WatermarkLook;
    try {
      look = readLook(Body.of(fields));
    } catch (err) {
      return ownLibrary(ctx, s, artistUuid).then(() => Promise.reject(err));
    }
    // The service may stop reading (too large, another's library): the kit then drains busboy's stream.
    const body = new PassThrough();
    file.stream.pipe(body);
    const made = ctx.deps.artists.createOwnWatermark(s.user, { artistUuid, isDefault: fields.get('default') === 'yes', look, image: { fileName: file.fileName || 'watermark', stream: body } });
    made.catch(() => file.stream.unpipe(body));
    return made;
  });
  try {
    if (!taken) throw new ApiError('invalid_parameter', 'file: choose an image', { field: 'file' });
    await taken;
  } catch (err) {
    const key = `file-${artistUuid}`;
    return screen(ctx, reply, s, 422, { error: refusal(err, key), draft: { form: key, look: lookDraft((name) => fields.get(name)) } });
  }
  return ctx.redirect(reply, '/studio/watermarks?done=created');
}

async function makeDefault(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s } = ctx.signedPost(req);
  await ctx.deps.artists.makeDefault(s.user, uuidOf(req, 'watermark'));
  return ctx.redirect(reply, '/studio/watermarks?done=default');
}

async function deleteWatermark(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const uuid = uuidOf(req, 'watermark');
  if (form.str('confirm') !== 'yes') return screen(ctx, reply, s, 422, { error: { field: 'form', message: 'Tick “Yes, delete” to delete the watermark.' } });
  await ctx.deps.artists.deleteWatermark(s.user, uuid);
  return ctx.redirect(reply, '/studio/watermarks?done=deleted');
}

// How one looks. An extension (the API has no update): renditions already made keep their pixels
// (docs/watermarks.md, "Changing a watermark"); the preview is drawn again with the new look.
async function changeLook(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const uuid = uuidOf(req, 'watermark');
  const field = (name: string) => form.str(name);
  let look: WatermarkLook;
  try {
    look = readLook(form);
  } catch (err) {
    // Another user's watermark is a 404 before its form's values are judged.
    await ctx.deps.artists.changeLook(s.user, uuid, {});
    return screen(ctx, reply, s, 422, { error: refusal(err, uuid), draft: { form: uuid, look: lookDraft(field) } });
  }
  await ctx.deps.artists.changeLook(s.user, uuid, look);
  return ctx.redirect(reply, '/studio/watermarks?done=look');
}

// The watermark on the user's latest photo (or a grey canvas), as the renditions draw it.
async function preview(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const jpeg = await ctx.deps.artists.preview(s.user, uuidOf(req, 'watermark'), (key) => ctx.deps.storage.read(key));
  return reply
    .code(200)
    .header('content-type', 'image/jpeg')
    .header('cache-control', 'private, max-age=60')
    .header('x-content-type-options', 'nosniff')
    .header('content-length', jpeg.length)
    .send(jpeg);
}

