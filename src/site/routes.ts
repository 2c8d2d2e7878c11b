// The website's one route table: each path below a website's home is written once
// (pages/routes.ts, delivery/favourites-routes.ts, signin/routes.ts) and registered
// as a Fastify route under both addresses of a website, `/sites/<urlname><path>`
// and `<path>` at its own host name. What matches no row is a 404 page under
// `/sites/<urlname>`, and the API's 404 at a host (it keeps the API's refusals).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pathAndQuery } from './address.js';
import { favouriteRoutes } from './delivery/favourites-routes.js';
import { FORM_BYTES, PAGE, pageRoutes } from './pages/routes.js';
import { downloadControlRoutes } from './delivery/download-routes.js';
import type { Addressing, SiteHelpers, SiteRoute, WebsiteDeps } from './plugin-deps.js';
import { cartRoutes } from './shop/cart-routes.js';
import { signInRoutes } from './signin/routes.js';
import { shareRoutes } from './signin/share-routes.js';
import { notFound, visiting } from './visit.js';

export function siteRoutes(f: FastifyInstance, helpers: SiteHelpers, deps: WebsiteDeps): void {
  const table: SiteRoute[] = [...pageRoutes(helpers, deps), ...favouriteRoutes(helpers, deps), ...signInRoutes(helpers, deps), ...shareRoutes(helpers, deps), ...cartRoutes(helpers, deps), ...downloadControlRoutes(helpers, deps)];
  const byUrlname: Addressing = {
    prefix: '/sites/:urlname',
    find: (req) => helpers.byUrlname(req, (req.params as { urlname: string }).urlname),
    async missing(req) {
      await helpers.withinBudget(req);
      throw notFound();
    },
  };
  const byHost: Addressing = {
    prefix: '',
    find: (req) => helpers.byHost(req),
    missing: async (_req, reply) => reply.callNotFound(),
  };
  for (const route of table) {
    for (const by of [byUrlname, byHost]) {
      f.route({ method: route.method, url: `${by.prefix}${route.path}`, bodyLimit: route.bodyLimit, exposeHeadRoute: route.head, handler: (req, reply) => route.handler(req, reply, by) });
    }
  }

  // Under `/sites/<urlname>` alone: any other path below the home is a 404 page in the website's frame.
  const nothingHere = visiting(helpers, deps, async () => {
    throw notFound();
  });
  f.route({ method: ['GET', 'POST'], url: '/sites/:urlname/*', bodyLimit: FORM_BYTES, handler: (req, reply) => nothingHere(req, reply, byUrlname) });
  // The home without its slash: straight to the root gallery's own address, where only a valid page number is kept.
  const home = async (req: FastifyRequest, reply: FastifyReply) => {
    const at = await byUrlname.find(req);
    if (!at) return byUrlname.missing(req, reply);
    const { path, query } = pathAndQuery(req.raw.url);
    if (path !== at.homePath) return nothingHere(req, reply, byUrlname);
    const p = query.get('page');
    return reply.code(301).header('location', `${at.homePath}/${p !== null && PAGE.test(p) && p !== '1' ? `?page=${p}` : ''}`).send();
  };
  f.route({ method: ['GET', 'POST'], url: '/sites/:urlname', bodyLimit: FORM_BYTES, handler: home });
}
