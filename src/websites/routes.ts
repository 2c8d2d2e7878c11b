// GET /websites.xml (spec 4.2) and GET /websites/<urlname>/gallery_display_styles.xml (spec 4.4).
import type { Config } from '../config.js';
import { userOf } from '../http/context.js';
import { choice, fields, NO_INPUT, pagination } from '../http/input.js';
import { totalPages } from '../http/params.js';
import { route, type RouteSpec } from '../http/router.js';
import { xmlArray } from '../http/xml.js';
import type { WebsitesService } from './service.js';
import { brandInput, pageInput } from './brand.js';
import { displayStylesXml, pageXml, websiteDetailsXml, websitesXml } from './xml.js';

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

    // ---- An API extension (docs/website.md "Brand and pages"): a website's brand and its pages.
    route({
      method: 'GET',
      path: '/websites/:urlname.xml',
      input: NO_INPUT,
      handler: async (ctx) => ({ website: websiteDetailsXml(await websites.details({ user: userOf(ctx) }, ctx.path.urlname), config.publicUrl) }),
    }),
    route({
      method: 'PUT',
      path: '/websites/:urlname.xml',
      input: brandInput,
      found: (ctx) => websites.details({ user: userOf(ctx) }, ctx.path.urlname),
      handler: async (ctx, input) => {
        const d = await websites.setBrand({ user: userOf(ctx) }, ctx.path.urlname, input);
        return {
          website: websiteDetailsXml(d, config.publicUrl),
          location: `/websites/${d.website.urlname}.xml`,
          message: 'Website updated. Its pages show the change within seconds.',
        };
      },
    }),
    // An extension (docs/website.md "Host names"): look for the proof of the pending host name now.
    route({
      method: 'POST',
      path: '/websites/:urlname/hostname_verification.xml',
      input: NO_INPUT,
      handler: async (ctx) => {
        const v = await websites.verifyHostname({ user: userOf(ctx) }, ctx.path.urlname);
        return {
          verified: v.verified,
          message: v.verified ? `The host name ${v.details.website.hostname} is in effect.` : v.reason,
          website: websiteDetailsXml(v.details, config.publicUrl),
        };
      },
    }),
    route({
      method: 'GET',
      path: '/websites/:urlname/pages.xml',
      input: NO_INPUT,
      handler: async (ctx) => {
        const d = await websites.details({ user: userOf(ctx) }, ctx.path.urlname);
        return { pages: xmlArray('page', d.pages.map((p) => pageXml(p, config.publicUrl, d.website, false))) };
      },
    }),
    route({
      method: 'GET',
      path: '/websites/:urlname/pages/:slug.xml',
      input: NO_INPUT,
      handler: async (ctx) => {
        const { page, website } = await websites.page({ user: userOf(ctx) }, ctx.path.urlname, ctx.path.slug);
        return { page: pageXml(page, config.publicUrl, website, true) };
      },
    }),
    route({
      method: 'PUT',
      path: '/websites/:urlname/pages/:slug.xml',
      input: pageInput,
      // The website answers the 404: a page that does not exist yet is created by this PUT.
      found: (ctx) => websites.details({ user: userOf(ctx) }, ctx.path.urlname),
      handler: async (ctx, input) => {
        const { page, website, created } = await websites.putPage({ user: userOf(ctx) }, ctx.path.urlname, ctx.path.slug, input);
        return {
          page: pageXml(page, config.publicUrl, website, true),
          location: `/websites/${website.urlname}/pages/${page.slug}.xml`,
          message: created ? 'Page created.' : 'Page updated.',
        };
      },
    }),
    route({
      method: 'DELETE',
      path: '/websites/:urlname/pages/:slug.xml',
      input: NO_INPUT,
      handler: async (ctx) => {
        await websites.deletePage({ user: userOf(ctx) }, ctx.path.urlname, ctx.path.slug);
        return { message: 'Page deleted.' };
      },
    }),
  ];
}
