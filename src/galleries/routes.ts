// Gallery endpoints (spec 4.3): each route declares its input once (names,
// typed values, refusals) and renders the service's result through xml.ts.
import { userOf, type RequestContext } from '../http/context.js';
import { choice, fields, flag, int, pagination, text } from '../http/input.js';
import { totalPages, type Page } from '../http/params.js';
import { route, type RouteSpec } from '../http/router.js';
import { xmlArray } from '../http/xml.js';
import { galleryInput } from './input.js';
import { mediasProxyUuid } from './proxy-uuid.js';
import type { GalleriesService, GalleryDetails } from './service.js';
import { countedXml, detailsXml, galleryLocation, galleryXml } from './xml.js';

export const GALLERIES_MAX_PER_PAGE = 500;
const UPDATED_LATER = 'The website is updated within a few minutes.';
const LIST_VIEWS = ['list', 'details'] as const;
const DETAILS_VIEWS = ['details', 'details_with_medias', 'details_with_contents'] as const;

/** Unpaginated requests get the first galleryListCap galleries (spec 8, 9). */
function perPageOf(page: Page): number | undefined {
  return page.explicit ? page.perPage : undefined;
}

function written(d: GalleryDetails, verb: string) {
  return {
    gallery: detailsXml(d),
    location: galleryLocation(d.website.urlname, d.record.uuid),
    'user-medias-gallery-proxy-uuid': mediasProxyUuid(d.record.uuid),
    message: `Gallery ${d.record.name} ${verb}. ${UPDATED_LATER}`,
  };
}

export function galleryRoutes(galleries: GalleriesService): RouteSpec[] {
  // What a gallery route's path names: the website, and the gallery in it.
  const website = (ctx: RequestContext) => galleries.website(userOf(ctx), ctx.path.urlname);
  const gallery = (ctx: RequestContext) => galleries.get(userOf(ctx), ctx.path.urlname, ctx.path.uuid);
  return [
    route({
      method: 'GET',
      path: '/websites/:urlname/galleries.xml',
      input: fields({ view: choice('view', LIST_VIEWS, 'list'), page: pagination(GALLERIES_MAX_PER_PAGE) }),
      found: website,
      handler: async (ctx, { view, page }) => {
        const r = await galleries.list(userOf(ctx), ctx.path.urlname, { page: page.page, perPage: perPageOf(page), withCounts: view === 'details' });
        return {
          galleries: xmlArray('gallery', r.records.map((g) => galleryXml(g, view, { counts: r.counts?.get(g.id) }))),
          'total-pages': totalPages(r.total, r.perPage),
          'total-entries': r.total,
        };
      },
    }),

    route({
      method: 'GET',
      path: '/websites/:urlname/galleries/:uuid.xml',
      input: choice('view', DETAILS_VIEWS, 'details'),
      found: gallery,
      handler: async (ctx, view) => {
        const d = await galleries.get(userOf(ctx), ctx.path.urlname, ctx.path.uuid, { medias: view !== 'details', subgalleries: view === 'details_with_contents' });
        return { gallery: detailsXml(d), location: galleryLocation(d.website.urlname, d.record.uuid) };
      },
    }),

    route({
      method: 'POST',
      path: '/websites/:urlname/galleries.xml',
      input: galleryInput('create'),
      found: website,
      handler: async (ctx, input) => {
        const d = await galleries.create(userOf(ctx), ctx.path.urlname, input);
        return { 'gallery-uuid': d.record.uuid, ...written(d, 'created') };
      },
    }),

    route({
      method: 'PUT',
      path: '/websites/:urlname/galleries/:uuid.xml',
      input: galleryInput('update'),
      found: gallery,
      handler: async (ctx, input) => written(await galleries.update(userOf(ctx), ctx.path.urlname, ctx.path.uuid, input), 'updated'),
    }),

    route({
      method: 'DELETE',
      path: '/websites/:urlname/galleries/:uuid.xml',
      input: fields({ deleteMedias: flag('delete_medias'), expectedMediasCount: int('medias_count', { min: 0 }) }),
      found: gallery,
      handler: async (ctx, { deleteMedias, expectedMediasCount }) => {
        const r = await galleries.delete(userOf(ctx), ctx.path.urlname, ctx.path.uuid, { deleteMedias: deleteMedias ?? false, expectedMediasCount });
        return {
          'deleted-galleries-count': r.galleriesDeleted,
          'deleted-medias-count': r.mediasDeleted,
          message: `Gallery deleted with ${r.galleriesDeleted - 1} sub-galleries and ${r.mediasDeleted} medias. ${UPDATED_LATER}`,
        };
      },
    }),

    route({
      method: 'GET',
      path: '/websites/:urlname/galleries/:uuid/subgalleries.xml',
      input: fields({ filter: text('filter[name]'), page: pagination(GALLERIES_MAX_PER_PAGE) }),
      found: gallery,
      handler: async (ctx, { filter, page }) => {
        const r = await galleries.subgalleries(userOf(ctx), ctx.path.urlname, ctx.path.uuid, { filter, page: page.page, perPage: perPageOf(page) });
        const pages = totalPages(r.total, r.perPage);
        return {
          galleries: xmlArray('gallery', [
            ...r.ancestors.map((a) => galleryXml(a, 'list')),
            galleryXml(r.gallery.record, 'details', { counts: r.gallery.counts, page: r.page, totalPages: pages }),
            ...r.children.map((c) => countedXml(c, 'details')),
          ]),
          page: r.page,
          'total-pages': pages,
        };
      },
    }),
  ];
}
