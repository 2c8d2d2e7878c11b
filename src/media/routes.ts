// The /medias routes (spec 4.7): listing, one media, create, update, delete,
// batch update. Each declares its input once (names, typed values, refusals)
// for MediaService and renders its result.
import type { RequestContext } from '../http/context.js';
import { userOf } from '../http/context.js';
import { ApiError, invalid } from '../core/errors.js';
import { closeAfterReply } from '../http/lingering-close.js';
import { choice, docsOf, fields, input, pagination, type Input, type ParamDoc } from '../http/input.js';
import { totalPages } from '../http/params.js';
import { route, type RouteSpec } from '../http/router.js';
import { xmlArray, type XmlObject } from '../http/xml.js';
import { jobLocation, jobXml } from '../jobs/xml.js';
import { isUploadRequest, uploadDeclaration, uploadStep } from '../uploads/input.js';
import { instructionsXml, storedFileXml } from '../uploads/xml.js';
import { mediaAttributes } from './metadata.js';
import { NO_RELATIONS, type BatchInput, type CreateMediaInput, type MediaFilterInput, type MediaService, type MediaWriteResult, type UpdateMediaInput, type UploadOutcome } from './service.js';
import { MEDIA_VIEWS, mediaLocation, mediaXml } from './xml.js';

export const MEDIAS_MAX_PER_PAGE = 500;
/** UUIDs `select` or `medias[medias]` may name: a whole library, read in chunks. */
export const MAX_SELECTED_UUIDS = 100_000;
/** The file part that is the media itself on a direct upload. */
export const CONTENT_FIELD = 'media[content]';

const MEDIA_ATTRIBUTES = mediaAttributes('media', 'single');

/** The filters a request names (an empty value names none), among those the route takes. */
function filterInput(names: { artist?: 'artist_id'; gallery: 'gallery_id'; group: 'medias_group_id'; lightbox: 'lightbox_id' }): Input<MediaFilterInput> {
  const entries = Object.entries(names) as Array<[keyof MediaFilterInput, string]>;
  return input(
    entries.map(([, name]) => name),
    (p) => Object.fromEntries(entries.map(([key, name]) => [key, p.str(name) || undefined])),
  );
}

const LIST_FILTER = filterInput({ artist: 'artist_id', gallery: 'gallery_id', group: 'medias_group_id', lightbox: 'lightbox_id' });

// What the OpenAPI description says of the two names both write routes read by hand.
const REPLACE_AND_ARTIST: ParamDoc[] = [{ name: 'media[replace]', kind: 'flag' }, { name: 'artist_id', kind: 'undeclared' }];

/** POST /medias.xml: an upload request (step 1), or the file itself in media[content] (direct upload). */
const CREATE_INPUT = input([...uploadDeclaration.names, ...MEDIA_ATTRIBUTES.names, 'media[replace]', 'artist_id'], (p, file): CreateMediaInput => {
  // The router lets no other file part through.
  const content = file?.field === CONTENT_FIELD ? file : undefined;
  if (!content && !isUploadRequest(p)) {
    throw invalid('media[content][upload_location] must be REQUEST (upload step 1), or media[content] must be the file (direct upload)');
  }
  const fileName = (p.str('media[content][file_name]') ?? content?.fileName ?? '').trim();
  if (fileName === '') throw invalid('media[content][file_name] is required');
  const attributes = MEDIA_ATTRIBUTES.read(p, file);
  const replace = p.flag('media[replace]') === true;
  return {
    attributes,
    artist: p.str('artist_id'),
    replace,
    fileName,
    upload: content ? { direct: { fileName: content.fileName, stream: content.stream } } : { declaration: uploadDeclaration.read(p, file) },
  };
}, [...docsOf(uploadDeclaration), ...docsOf(MEDIA_ATTRIBUTES), ...REPLACE_AND_ARTIST]);

/** PUT /medias/<uuid>.xml: attributes, and an upload step or a new file (media[replace] is implied, accepted and not read). */
const UPDATE_INPUT = input([...uploadStep.names, ...MEDIA_ATTRIBUTES.names, 'media[replace]', 'artist_id'], (p, file): UpdateMediaInput => {
  const attributes = MEDIA_ATTRIBUTES.read(p, file);
  const upload = uploadStep.read(p, file);
  const content = file?.field === CONTENT_FIELD ? file : undefined;
  return { attributes, artist: p.str('artist_id'), upload, direct: content && { fileName: content.fileName, stream: content.stream } };
}, [...docsOf(uploadStep), ...docsOf(MEDIA_ATTRIBUTES), ...REPLACE_AND_ARTIST]);

const BATCH_ATTRIBUTES = mediaAttributes('medias', 'batch');
const BATCH_FILTER = filterInput({ gallery: 'gallery_id', group: 'medias_group_id', lightbox: 'lightbox_id' });
const SELECTION_NAMES = ['select', 'medias[on]', 'medias[medias]'];

const BATCH_INPUT = input([...SELECTION_NAMES, 'medias_count', ...BATCH_FILTER.names, ...BATCH_ATTRIBUTES.names], (p, file): BatchInput => ({
  attributes: BATCH_ATTRIBUTES.read(p, file),
  // `select` (all or UUIDs), or the older medias[on] with medias[medias].
  selection: { select: p.str('select'), on: p.str('medias[on]'), selectList: p.csvList('select', MAX_SELECTED_UUIDS), mediasList: p.csvList('medias[medias]', MAX_SELECTED_UUIDS) },
  filter: BATCH_FILTER.read(p, file),
  expectedCount: p.int('medias_count', { min: 0 }),
}), [...SELECTION_NAMES.map((name) => ({ name, kind: 'undeclared' as const })), { name: 'medias_count', kind: 'int', min: 0 }, ...docsOf(BATCH_FILTER), ...docsOf(BATCH_ATTRIBUTES)]);

/** The rest of an oversized direct upload is not read: the connection ends with the reply. */
async function closingWhenTooLarge<T>(ctx: RequestContext, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError && err.code === 'payload_too_large') closeAfterReply(ctx.req, ctx.reply);
    throw err;
  }
}

/** `<media>` with the fields of the upload steps the request took merged in, later ones winning. */
function writtenMediaXml(r: MediaWriteResult): XmlObject {
  let element = mediaXml(r.media.record, r.media.relations, 'details', r.media.renditions);
  for (const u of r.uploads) element = { ...element, ...(u.step === 'begun' ? instructionsXml(u.instructions) : storedFileXml(u.file)) };
  return element;
}

const UPDATE_MESSAGES: Record<UploadOutcome['step'] | 'none', string> = {
  none: 'media updated',
  begun: 'upload the new file as instructed, then complete it with PUT',
  completed: 'upload complete',
  received: 'media uploaded',
};

export function mediaRoutes(media: MediaService): RouteSpec[] {
  // What a /medias/<uuid> path names: one of the user's medias, pending ones included.
  const found = (ctx: RequestContext) => media.get(userOf(ctx), ctx.path.uuid, false);
  return [
    route({
      method: 'GET',
      path: '/medias.xml',
      // Without page/per_page a listing holds the first 500 medias.
      input: fields({ view: choice('view', MEDIA_VIEWS, 'list'), filter: LIST_FILTER, page: pagination(MEDIAS_MAX_PER_PAGE, MEDIAS_MAX_PER_PAGE) }),
      handler: async (ctx, { view, filter, page }) => {
        const r = await media.list(userOf(ctx), filter, { limit: page.perPage, offset: (page.page - 1) * page.perPage }, view !== 'list');
        const items = r.records.map((m) => mediaXml(m, r.relations?.get(m.id) ?? NO_RELATIONS, view, r.renditions?.get(m.id)));
        return { medias: xmlArray('media', items), page: page.page, 'total-pages': totalPages(r.total, page.perPage), 'total-count': r.total };
      },
    }),
    route({
      method: 'GET',
      path: '/medias/:uuid.xml',
      input: choice('view', MEDIA_VIEWS, 'details'),
      found,
      handler: async (ctx, view) => {
        const m = await media.get(userOf(ctx), ctx.path.uuid, view !== 'list');
        return { media: mediaXml(m.record, m.relations, view, m.renditions) };
      },
    }),
    route({
      method: 'POST',
      path: '/medias.xml',
      input: CREATE_INPUT,
      files: [CONTENT_FIELD],
      handler: async (ctx, input) => {
        const r = await closingWhenTooLarge(ctx, () => media.create(userOf(ctx), input, ctx.req.raw));
        return {
          media: writtenMediaXml(r),
          'media-uuid': r.media.record.uuid,
          location: mediaLocation(r.media.record),
          message: 'direct' in input.upload ? 'media uploaded' : r.replaced ? 'upload the new file as instructed, then complete it with PUT' : 'media created: upload the file as instructed, then complete it with PUT',
        };
      },
    }),
    route({
      method: 'PUT',
      path: '/medias/batch_update.xml',
      input: BATCH_INPUT,
      handler: async (ctx, input) => {
        const { job, count } = await media.batchUpdate(userOf(ctx), input);
        return {
          job: jobXml(job),
          'job-uuid': job.uuid,
          'medias-count': count,
          location: jobLocation(job),
          message: `batch update of ${count} medias queued; follow it at ${jobLocation(job)}`,
        };
      },
    }),
    route({
      method: 'PUT',
      path: '/medias/:uuid.xml',
      input: UPDATE_INPUT,
      found,
      files: [CONTENT_FIELD],
      multipartOnly: true,
      handler: async (ctx, input) => {
        const r = await closingWhenTooLarge(ctx, () => media.update(userOf(ctx), ctx.path.uuid, input, ctx.req.raw));
        const last = r.uploads.at(-1)?.step ?? 'none';
        return { media: writtenMediaXml(r), location: mediaLocation(r.media.record), message: UPDATE_MESSAGES[last] };
      },
    }),
    route({
      method: 'DELETE',
      path: '/medias/:uuid.xml',
      handler: async (ctx) => {
        const uuid = await media.delete(userOf(ctx), ctx.path.uuid);
        return { message: 'media deleted', 'media-uuid': uuid };
      },
    }),
  ];
}
