// GET /websites/<urlname>/gallery_display_styles.xml (spec 4.4).
import type { RouteSpec } from '../http/router.js';
import { userOf } from '../http/context.js';
import { notFound } from '../http/errors.js';
import { pageParams, PAGINATION_PARAMS, totalPages } from '../http/params.js';
import { xmlArray, type XmlObject } from '../http/xml.js';
import { findAccessibleWebsite } from '../websites/queries.js';

export const DISPLAY_STYLES_MAX_PER_PAGE = 500;

export function displayStyleRoutes(): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/websites/:urlname/gallery_display_styles.xml',
      params: ['view', ...PAGINATION_PARAMS],
      handler: async (ctx) => {
        const { db } = ctx.services;
        const website = await findAccessibleWebsite(db, userOf(ctx).id, ctx.path.urlname);
        if (!website) throw notFound(`website ${ctx.path.urlname}`);
        const view = ctx.params.oneOf('view', ['list', 'details'] as const) ?? 'list';
        // A website has a handful of styles: unpaginated means all of them (up to the page maximum).
        const page = pageParams(ctx.params, DISPLAY_STYLES_MAX_PER_PAGE, DISPLAY_STYLES_MAX_PER_PAGE);
        const [{ total }] = await db
          .selectFrom('display_styles')
          .select((eb) => eb.fn.countAll<number>().as('total'))
          .where('website_id', '=', website.id)
          .execute();
        const rows = await db
          .selectFrom('display_styles')
          .select(['uuid', 'name', 'layout', 'is_default', 'created_at'])
          .where('website_id', '=', website.id)
          .orderBy('id')
          .limit(page.perPage)
          .offset((page.page - 1) * page.perPage)
          .execute();
        const items = rows.map(
          (s): XmlObject =>
            view === 'list'
              ? { uuid: s.uuid, name: s.name }
              : { uuid: s.uuid, name: s.name, layout: s.layout, default: s.is_default === 1, 'created-at': new Date(s.created_at) },
        );
        return { 'gallery-display-styles': xmlArray('gallery-display-style', items), 'total-pages': totalPages(Number(total), page.perPage) };
      },
    },
  ];
}
