// The /medias routes (spec 4.7): listing, one media, create, update, delete,
// batch update.
import type { RouteSpec } from '../http/router.js';
import { userOf } from '../http/context.js';
import { notFound } from '../http/errors.js';
import { pageParams, PAGINATION_PARAMS, totalPages } from '../http/params.js';
import { xmlArray } from '../http/xml.js';
import { BATCH_PARAMS, batchUpdate } from './batch.js';
import { mediaAttributeParams } from './metadata.js';
import { loadMediaRecords, loadMediaRelations, NO_RELATIONS, findOwnedMedia } from './queries.js';
import { countMedias, mediaIds } from './selection.js';
import { CONTENT_FIELD, createMedia, deleteMedia, mediaElement, updateMedia } from './service.js';
import { filterFromParams } from './targets.js';
import { UPLOAD_PARAMS } from './uploads.js';
import { MEDIA_VIEWS, mediaXml } from './xml.js';

export const MEDIAS_MAX_PER_PAGE = 500;

const MEDIA_PARAMS = mediaAttributeParams('media', 'single');

export function mediaRoutes(): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/medias.xml',
      params: ['view', 'artist_id', 'gallery_id', 'medias_group_id', 'lightbox_id', ...PAGINATION_PARAMS],
      handler: async (ctx) => {
        const user = userOf(ctx);
        const { db } = ctx.services;
        const view = ctx.params.oneOf('view', MEDIA_VIEWS) ?? 'list';
        // Without page/per_page a listing holds the first 500 medias.
        const page = pageParams(ctx.params, MEDIAS_MAX_PER_PAGE, MEDIAS_MAX_PER_PAGE);
        const filter = await filterFromParams(db, user.id, ctx.params);
        const [total, ids] = await Promise.all([
          countMedias(db, user.id, filter),
          mediaIds(db, user.id, filter, { limit: page.perPage, offset: (page.page - 1) * page.perPage }),
        ]);
        const [records, relations] = await Promise.all([loadMediaRecords(db, ids), view === 'list' ? undefined : loadMediaRelations(db, ids)]);
        const items = records.map((m) => mediaXml(m, relations?.get(m.id) ?? NO_RELATIONS, view));
        return { medias: xmlArray('media', items), page: page.page, 'total-pages': totalPages(total, page.perPage), 'total-count': total };
      },
    },
    {
      method: 'GET',
      path: '/medias/:uuid.xml',
      params: ['view'],
      handler: async (ctx) => {
        const media = await findOwnedMedia(ctx.services.db, userOf(ctx).id, ctx.path.uuid);
        if (!media) throw notFound(`media ${ctx.path.uuid}`);
        const view = ctx.params.oneOf('view', MEDIA_VIEWS) ?? 'details';
        return { media: await mediaElement(ctx.services.db, media.id, view) };
      },
    },
    {
      method: 'POST',
      path: '/medias.xml',
      params: [...UPLOAD_PARAMS, ...MEDIA_PARAMS, 'media[replace]', 'artist_id'],
      files: [CONTENT_FIELD],
      handler: createMedia,
    },
    {
      method: 'PUT',
      path: '/medias/batch_update.xml',
      params: BATCH_PARAMS,
      handler: batchUpdate,
    },
    {
      method: 'PUT',
      path: '/medias/:uuid.xml',
      params: [...UPLOAD_PARAMS, ...MEDIA_PARAMS, 'media[replace]', 'artist_id'],
      files: [CONTENT_FIELD],
      multipartOnly: true,
      handler: updateMedia,
    },
    {
      method: 'DELETE',
      path: '/medias/:uuid.xml',
      params: [],
      handler: deleteMedia,
    },
  ];
}
