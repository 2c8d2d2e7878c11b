// GET /artists.xml: the media libraries the user can access (spec 4.5).
import type { RouteSpec } from '../http/router.js';
import { userOf } from '../http/context.js';
import { pageParams, PAGINATION_PARAMS, totalPages } from '../http/params.js';
import { xmlArray } from '../http/xml.js';

export const ARTISTS_MAX_PER_PAGE = 100;
const UNPAGINATED_CAP = 1000;

export function artistRoutes(): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/artists.xml',
      params: ['view', ...PAGINATION_PARAMS],
      handler: async (ctx) => {
        const user = userOf(ctx);
        const view = ctx.params.oneOf('view', ['list', 'details'] as const) ?? 'list';
        const page = pageParams(ctx.params, ARTISTS_MAX_PER_PAGE);
        const limit = page.explicit ? page.perPage : UNPAGINATED_CAP;
        const { db } = ctx.services;
        const [{ total }] = await db.selectFrom('artists').select((eb) => eb.fn.countAll<number>().as('total')).where('owner_id', '=', user.id).execute();
        const rows = await db
          .selectFrom('artists')
          .select(['uuid', 'name', 'is_default', 'created_at'])
          .where('owner_id', '=', user.id)
          .orderBy('id')
          .limit(limit)
          .offset((page.page - 1) * limit)
          .execute();
        const items = rows.map((a) =>
          view === 'list'
            ? { uuid: a.uuid, name: a.name }
            : { uuid: a.uuid, name: a.name, default: a.is_default === 1, 'created-at': new Date(a.created_at) },
        );
        return { artists: xmlArray('artist', items), 'total-pages': totalPages(Number(total), limit) };
      },
    },
  ];
}
