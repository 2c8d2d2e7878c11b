// GET /artists.xml: the media libraries the user owns (spec 4.5), and
// GET /artists/<uuid>/watermarks.xml: the watermarks of one of them, which
// clients cache for a session and offer when uploading.
import { userOf } from '../http/context.js';
import { choice, fields, pagination } from '../http/input.js';
import { totalPages } from '../http/params.js';
import { route, type RouteSpec } from '../http/router.js';
import type { ArtistsService } from './service.js';
import { artistsXml, watermarksXml } from './xml.js';

export const ARTISTS_MAX_PER_PAGE = 100;
/** Without page/per_page every library is returned, up to this many. */
const UNPAGINATED_CAP = 1000;
export const WATERMARKS_MAX_PER_PAGE = 500;

export function artistRoutes({ artists }: { artists: ArtistsService }): RouteSpec[] {
  const view = choice('view', ['list', 'details'] as const, 'list');
  return [
    route({
      method: 'GET',
      path: '/artists.xml',
      input: fields({ view, page: pagination(ARTISTS_MAX_PER_PAGE) }),
      handler: async (ctx, { view, page }) => {
        const limit = page.explicit ? page.perPage : UNPAGINATED_CAP;
        const found = await artists.list(userOf(ctx), { limit, offset: (page.page - 1) * limit });
        return artistsXml(found.artists, view, totalPages(found.total, limit));
      },
    }),
    route({
      method: 'GET',
      path: '/artists/:uuid/watermarks.xml',
      input: fields({ view, page: pagination(WATERMARKS_MAX_PER_PAGE, WATERMARKS_MAX_PER_PAGE) }),
      // The library's own lookup answers its 404 (one watermark read on that path only).
      found: (ctx) => artists.watermarks(userOf(ctx), ctx.path.uuid, { limit: 1, offset: 0 }),
      handler: async (ctx, { view, page }) => {
        const found = await artists.watermarks(userOf(ctx), ctx.path.uuid, { limit: page.perPage, offset: (page.page - 1) * page.perPage });
        return watermarksXml(found.watermarks, view, totalPages(found.total, page.perPage));
      },
    }),
  ];
}
