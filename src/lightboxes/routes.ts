// Lightbox endpoints (API extensions, docs/delivery.md): a user's lightboxes,
// the clients' selections among them; one lightbox with its medias, their
// notes and when they were picked; reopening a sent selection. Medias are
// listed and batch-updated by `lightbox_id` on the media endpoints (spec).
import { userOf, type RequestContext } from '../http/context.js';
import { fields, pagination, specInput } from '../http/input.js';
import { totalPages } from '../http/params.js';
import { route, type RouteSpec } from '../http/router.js';
import { xmlArray } from '../http/xml.js';
import { LIGHTBOX_API, LIGHTBOX_STATE_FIELDS, MAX_PICKS, type LightboxesService } from './service.js';
import { detailsXml, lightboxLocation, lightboxXml } from './xml.js';

export const LIGHTBOXES_MAX_PER_PAGE = 500;
/** Without page/per_page, this many lightboxes (and this many medias of one). */
const UNPAGINATED_CAP = 1000;
export const LIGHTBOX_MEDIAS_MAX_PER_PAGE = MAX_PICKS;

export function lightboxRoutes({ lightboxes }: { lightboxes: LightboxesService }): RouteSpec[] {
  const lightbox = (ctx: RequestContext) => lightboxes.get(userOf(ctx), ctx.path.uuid);
  return [
    route({
      method: 'GET',
      path: '/lightboxes.xml',
      input: fields({ page: pagination(LIGHTBOXES_MAX_PER_PAGE) }),
      handler: async (ctx, { page }) => {
        const limit = page.explicit ? page.perPage : UNPAGINATED_CAP;
        const r = await lightboxes.list(userOf(ctx), limit, (page.page - 1) * limit);
        return { lightboxes: xmlArray('lightbox', r.rows.map(lightboxXml)), 'total-pages': totalPages(r.total, limit), 'total-entries': r.total };
      },
    }),
    route({
      method: 'GET',
      path: '/lightboxes/:uuid.xml',
      input: fields({ page: pagination(LIGHTBOX_MEDIAS_MAX_PER_PAGE) }),
      found: lightbox,
      handler: async (ctx, { page }) => {
        const limit = page.explicit ? page.perPage : MAX_PICKS;
        const d = await lightboxes.details(userOf(ctx), ctx.path.uuid, limit, (page.page - 1) * limit);
        return detailsXml(d.lightbox, d.picks, totalPages(d.lightbox.count, limit));
      },
    }),
    route({
      method: 'PUT',
      path: '/lightboxes/:uuid.xml',
      // open: the client may change their selection again; sent: it is read-only for them.
      input: specInput(LIGHTBOX_STATE_FIELDS, LIGHTBOX_API),
      found: lightbox,
      handler: async (ctx, { state }) => {
        const l = await lightboxes.setState(userOf(ctx), ctx.path.uuid, state!);
        return { lightbox: lightboxXml(l), location: lightboxLocation(l.uuid), message: state === 'open' ? `Lightbox ${l.name} reopened.` : `Lightbox ${l.name} closed.` };
      },
    }),
  ];
}
