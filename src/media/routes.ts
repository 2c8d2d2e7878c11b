// The /medias routes (spec 4.7): listing, one media, create, update, delete,
// batch update. Each maps the request to typed input for MediaService and
// renders its result.
import type { RequestContext, UploadedFile } from '../http/context.js';
import { userOf } from '../http/context.js';
import { ApiError, invalid } from '../http/errors.js';
import { closeAfterReply } from '../http/linger.js';
import { pageParams, PAGINATION_PARAMS, totalPages, type Params } from '../http/params.js';
import type { RouteSpec } from '../http/router.js';
import { xmlArray, type XmlObject } from '../http/xml.js';
import { jobLocation, jobXml } from '../jobs/xml.js';
import { isUploadRequest, readUploadDeclaration, readUploadStep, UPLOAD_PARAMS } from '../uploads/input.js';
import type { IncomingFile } from '../uploads/service.js';
import { instructionsXml, storedFileXml } from '../uploads/xml.js';
import { mediaAttributeParams, readMediaInput } from './metadata.js';
import { NO_RELATIONS, type BatchSelection, type MediaFilterInput, type MediaService, type MediaWriteResult, type UploadOutcome } from './service.js';
import { MEDIA_VIEWS, mediaLocation, mediaXml } from './xml.js';

export const MEDIAS_MAX_PER_PAGE = 500;
/** UUIDs `select` or `medias[medias]` may name: a whole library, read in chunks. */
export const MAX_SELECTED_UUIDS = 100_000;
/** The file part that is the media itself on a direct upload. */
export const CONTENT_FIELD = 'media[content]';

const MEDIA_PARAMS = mediaAttributeParams('media', 'single');

const BATCH_PARAMS = [
  'select',
  'medias_count',
  'gallery_id',
  'medias_group_id',
  'lightbox_id',
  'medias[on]',
  'medias[medias]',
  ...mediaAttributeParams('medias', 'batch'),
];

/** The filters a request names (an empty value names none). */
function readFilter(p: Params): MediaFilterInput {
  return { artist: p.str('artist_id') || undefined, gallery: p.str('gallery_id') || undefined, group: p.str('medias_group_id') || undefined, lightbox: p.str('lightbox_id') || undefined };
}

/** `select` (all or UUIDs), or the older medias[on] with medias[medias]. */
function readSelection(p: Params): BatchSelection {
  return { select: p.str('select'), on: p.str('medias[on]'), selectList: p.csvList('select', MAX_SELECTED_UUIDS), mediasList: p.csvList('medias[medias]', MAX_SELECTED_UUIDS) };
}

function contentOf(ctx: RequestContext): UploadedFile | undefined {
  return ctx.file?.field === CONTENT_FIELD ? ctx.file : undefined;
}

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
  return [
    {
      method: 'GET',
      path: '/medias.xml',
      params: ['view', 'artist_id', 'gallery_id', 'medias_group_id', 'lightbox_id', ...PAGINATION_PARAMS],
      handler: async (ctx) => {
        const view = ctx.params.oneOf('view', MEDIA_VIEWS) ?? 'list';
        // Without page/per_page a listing holds the first 500 medias.
        const page = pageParams(ctx.params, MEDIAS_MAX_PER_PAGE, MEDIAS_MAX_PER_PAGE);
        const r = await media.list(userOf(ctx), readFilter(ctx.params), { limit: page.perPage, offset: (page.page - 1) * page.perPage }, view !== 'list');
        const items = r.records.map((m) => mediaXml(m, r.relations?.get(m.id) ?? NO_RELATIONS, view, r.renditions?.get(m.id)));
        return { medias: xmlArray('media', items), page: page.page, 'total-pages': totalPages(r.total, page.perPage), 'total-count': r.total };
      },
    },
    {
      method: 'GET',
      path: '/medias/:uuid.xml',
      params: ['view'],
      handler: async (ctx) => {
        const view = ctx.params.oneOf('view', MEDIA_VIEWS) ?? 'details';
        const m = await media.get(userOf(ctx), ctx.path.uuid, view !== 'list');
        return { media: mediaXml(m.record, m.relations, view, m.renditions) };
      },
    },
    {
      method: 'POST',
      path: '/medias.xml',
      params: [...UPLOAD_PARAMS, ...MEDIA_PARAMS, 'media[replace]', 'artist_id'],
      files: [CONTENT_FIELD],
      handler: async (ctx) => {
        const p = ctx.params;
        const file = contentOf(ctx);
        if (!file && !isUploadRequest(p)) {
          throw invalid('media[content][upload_location] must be REQUEST (upload step 1), or media[content] must be the file (direct upload)');
        }
        const fileName = (p.str('media[content][file_name]') ?? file?.fileName ?? '').trim();
        if (fileName === '') throw invalid('media[content][file_name] is required');
        const attributes = readMediaInput(p, 'media', 'single');
        const replace = p.flag('media[replace]') === true;
        const direct: IncomingFile | undefined = file && { fileName: file.fileName, stream: file.stream };
        const r = await closingWhenTooLarge(ctx, () =>
          media.create(
            userOf(ctx),
            { attributes, artist: p.str('artist_id'), replace, fileName, upload: direct ? { direct } : { declaration: readUploadDeclaration(p) } },
            ctx.req.raw,
          ),
        );
        return {
          media: writtenMediaXml(r),
          'media-uuid': r.media.record.uuid,
          location: mediaLocation(r.media.record),
          message: file ? 'media uploaded' : r.replaced ? 'upload the new file as instructed, then complete it with PUT' : 'media created: upload the file as instructed, then complete it with PUT',
        };
      },
    },
    {
      method: 'PUT',
      path: '/medias/batch_update.xml',
      params: BATCH_PARAMS,
      handler: async (ctx) => {
        const p = ctx.params;
        const attributes = readMediaInput(p, 'medias', 'batch');
        const { job, count } = await media.batchUpdate(userOf(ctx), {
          attributes,
          selection: readSelection(p),
          filter: readFilter(p),
          expectedCount: p.int('medias_count', { min: 0 }),
        });
        return {
          job: jobXml(job),
          'job-uuid': job.uuid,
          'medias-count': count,
          location: jobLocation(job),
          message: `batch update of ${count} medias queued; follow it at ${jobLocation(job)}`,
        };
      },
    },
    {
      method: 'PUT',
      path: '/medias/:uuid.xml',
      params: [...UPLOAD_PARAMS, ...MEDIA_PARAMS, 'media[replace]', 'artist_id'],
      files: [CONTENT_FIELD],
      multipartOnly: true,
      handler: async (ctx) => {
        const p = ctx.params;
        const attributes = readMediaInput(p, 'media', 'single');
        const upload = readUploadStep(p);
        const file = contentOf(ctx);
        const r = await closingWhenTooLarge(ctx, () =>
          media.update(userOf(ctx), ctx.path.uuid, { attributes, artist: p.str('artist_id'), upload, direct: file && { fileName: file.fileName, stream: file.stream } }, ctx.req.raw),
        );
        const last = r.uploads.at(-1)?.step ?? 'none';
        return { media: writtenMediaXml(r), location: mediaLocation(r.media.record), message: UPDATE_MESSAGES[last] };
      },
    },
    {
      method: 'DELETE',
      path: '/medias/:uuid.xml',
      params: [],
      handler: async (ctx) => {
        const uuid = await media.delete(userOf(ctx), ctx.path.uuid);
        return { message: 'media deleted', 'media-uuid': uuid };
      },
    },
  ];
}
