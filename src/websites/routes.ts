// GET /websites.xml (spec 4.2) and GET /websites/<urlname>/gallery_display_styles.xml (spec 4.4).
import type { Config } from '../config.js';
import { userOf } from '../http/context.js';
import { choice, fields, pagination } from '../http/input.js';
import { totalPages } from '../http/params.js';
import { route, type RouteSpec } from '../http/router.js';
import type { WebsitesService } from './service.js';
import { displayStylesXml, websitesXml } from './xml.js';

export const WEBSITES_MAX_PER_PAGE = 100;
/** Without page/per_page every website is returned, up to this many. */
const UNPAGINATED_CAP = 1000;
export const DISPLAY_STYLES_MAX_PER_PAGE = 500;

export interface WebsiteRoutesDeps {
  websites: WebsitesService;
  /** Read per request: home URLs name the address the service is reached at. */
  config: Pick<Config, 'publicUrl'>;
}

export function websiteRoutes({ websites, config }: WebsiteRoutesDeps): RouteSpec[] {
  const view = choice('view', ['list', 'details'] as const, 'list');
  return [
    route({
      method: 'GET',
      path: '/websites.xml',
      input: fields({ view, page: pagination(WEBSITES_MAX_PER_PAGE) }),
      handler: async (ctx, { view, page }) => {
        const limit = page.explicit ? page.perPage : UNPAGINATED_CAP;
        const found = await websites.list(userOf(ctx), { limit, offset: (page.page - 1) * limit });
        return websitesXml(found.websites, view, config.publicUrl, totalPages(found.total, limit));
      },
    }),
    route({
      method: 'GET',
      path: '/websites/:urlname/gallery_display_styles.xml',
      // A website has a handful of styles: unpaginated means all of them (up to the page maximum).
      input: fields({ view, page: pagination(DISPLAY_STYLES_MAX_PER_PAGE, DISPLAY_STYLES_MAX_PER_PAGE) }),
      // The website's own lookup answers its 404 (one style read on that path only).
      found: (ctx) => websites.displayStyles(userOf(ctx), ctx.path.urlname, { limit: 1, offset: 0 }),
      handler: async (ctx, { view, page }) => {
        const found = await websites.displayStyles(userOf(ctx), ctx.path.urlname, { limit: page.perPage, offset: (page.page - 1) * page.perPage });
        return displayStylesXml(found.styles, view, totalPages(found.total, page.perPage));
      },
    }),
  ];
}
