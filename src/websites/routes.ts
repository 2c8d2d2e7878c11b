// GET /websites.xml (spec 4.2).
import type { RouteSpec } from '../http/router.js';
import { userOf } from '../http/context.js';
import { pageParams, PAGINATION_PARAMS, totalPages } from '../http/params.js';
import { xmlArray, type XmlObject } from '../http/xml.js';
import { accessibleWebsites } from './queries.js';

export const WEBSITES_MAX_PER_PAGE = 100;
/** Without page/per_page every website is returned, up to this many. */
const UNPAGINATED_CAP = 1000;

export function homeUrl(publicUrl: string, w: { urlname: string; hostname: string | null }): string {
  return w.hostname ? `https://${w.hostname}` : `${publicUrl}/sites/${w.urlname}`;
}

export function websiteRoutes(): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/websites.xml',
      params: ['view', ...PAGINATION_PARAMS],
      handler: async (ctx) => {
        const user = userOf(ctx);
        const view = ctx.params.oneOf('view', ['list', 'details'] as const) ?? 'list';
        const page = pageParams(ctx.params, WEBSITES_MAX_PER_PAGE);
        const limit = page.explicit ? page.perPage : UNPAGINATED_CAP;
        const { db } = ctx.services;
        const [{ total }] = await accessibleWebsites(db, user.id).select((eb) => eb.fn.countAll<number>().as('total')).execute();
        const rows = await accessibleWebsites(db, user.id)
          .leftJoin('galleries', (j) => j.onRef('galleries.website_id', '=', 'websites.id').on('galleries.parent_id', 'is', null))
          .select(['websites.uuid', 'websites.urlname', 'websites.title', 'websites.hostname', 'websites.created_at', 'websites.updated_at', 'galleries.uuid as root_uuid'])
          .orderBy('websites.id')
          .limit(limit)
          .offset((page.page - 1) * limit)
          .execute();
        const publicUrl = ctx.services.config.publicUrl;
        const items = rows.map((w): XmlObject =>
          view === 'list'
            ? { uuid: w.uuid, urlname: w.urlname, title: w.title }
            : {
                uuid: w.uuid,
                urlname: w.urlname,
                title: w.title,
                hostname: w.hostname,
                'home-url': homeUrl(publicUrl, w),
                'root-gallery-uuid': w.root_uuid,
                'created-at': new Date(w.created_at),
                'updated-at': new Date(w.updated_at),
              },
        );
        return { websites: xmlArray('website', items), 'total-pages': totalPages(Number(total), limit) };
      },
    },
  ];
}
