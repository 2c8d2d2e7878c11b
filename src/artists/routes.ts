// GET /artists.xml: the media libraries the user owns (spec 4.5), and
// GET /artists/<uuid>/watermarks.xml: the watermarks of one of them, which
// clients cache for a session and offer when uploading.
import type { RouteSpec } from '../http/router.js';
import { userOf } from '../http/context.js';
import { pageParams, PAGINATION_PARAMS, totalPages } from '../http/params.js';
import type { ArtistsService } from './service.js';
import { artistsXml, watermarksXml } from './xml.js';

export const ARTISTS_MAX_PER_PAGE = 100;
/** Without page/per_page every library is returned, up to this many. */
const UNPAGINATED_CAP = 1000;
export const WATERMARKS_MAX_PER_PAGE = 500;

export function artistRoutes({ artists }: { artists: ArtistsService }): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/artists.xml',
      params: ['view', ...PAGINATION_PARAMS],
      handler: async (ctx) => {
        const view = ctx.params.oneOf('view', ['list', 'details'] as const) ?? 'list';
        const page = pageParams(ctx.params, ARTISTS_MAX_PER_PAGE);
        const limit = page.explicit ? page.perPage : UNPAGINATED_CAP;
        const found = await artists.list(userOf(ctx), { limit, offset: (page.page - 1) * limit });
        return artistsXml(found.artists, view, totalPages(found.total, limit));
      },
    },
    {
      method: 'GET',
      path: '/artists/:uuid/watermarks.xml',
      params: ['view', ...PAGINATION_PARAMS],
      handler: async (ctx) => {
        const view = ctx.params.oneOf('view', ['list', 'details'] as const) ?? 'list';
        const page = pageParams(ctx.params, WATERMARKS_MAX_PER_PAGE, WATERMARKS_MAX_PER_PAGE);
        const found = await artists.watermarks(userOf(ctx), ctx.path.uuid, { limit: page.perPage, offset: (page.page - 1) * page.perPage });
        return watermarksXml(found.watermarks, view, totalPages(found.total, page.perPage));
      },
    },
  ];
}
