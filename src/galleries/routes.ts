// Gallery endpoints (spec 4.3): each route reads its parameters into the
// service's typed input and renders the result through xml.ts.
import { userOf } from '../http/context.js';
import { pageParams, PAGINATION_PARAMS, totalPages } from '../http/params.js';
import type { RouteSpec } from '../http/router.js';
import { xmlArray } from '../http/xml.js';
import { GALLERY_PARAMS, readGalleryInput } from './input.js';
import { mediasProxyUuid } from './proxy-uuid.js';
import type { GalleriesService, GalleryDetails } from './service.js';
import { countedXml, detailsXml, galleryLocation, galleryXml } from './xml.js';

export const GALLERIES_MAX_PER_PAGE = 500;
const UPDATED_LATER = 'The website is updated within a few minutes.';
const LIST_VIEWS = ['list', 'details'] as const;
const DETAILS_VIEWS = ['details', 'details_with_medias', 'details_with_contents'] as const;

function written(d: GalleryDetails, verb: string) {
  return {
    gallery: detailsXml(d),
    location: galleryLocation(d.website.urlname, d.record.uuid),
    'user-medias-gallery-proxy-uuid': mediasProxyUuid(d.record.uuid),
    message: `Gallery ${d.record.name} ${verb}. ${UPDATED_LATER}`,
  };
}

export function galleryRoutes(galleries: GalleriesService): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/websites/:urlname/galleries.xml',
      params: ['view', ...PAGINATION_PARAMS],
      handler: async (ctx) => {
        let view: (typeof LIST_VIEWS)[number] = 'list';
        const r = await galleries.list(userOf(ctx), ctx.path.urlname, () => {
          view = ctx.params.oneOf('view', LIST_VIEWS) ?? 'list';
          const page = pageParams(ctx.params, GALLERIES_MAX_PER_PAGE);
          // Unpaginated requests get the first galleryListCap galleries (spec 8, 9).
          return { page: page.page, perPage: page.explicit ? page.perPage : undefined, withCounts: view === 'details' };
        });
        return {
          galleries: xmlArray('gallery', r.records.map((g) => galleryXml(g, view, { counts: r.counts?.get(g.id) }))),
          'total-pages': totalPages(r.total, r.perPage),
          'total-entries': r.total,
        };
      },
    },

    {
      method: 'GET',
      path: '/websites/:urlname/galleries/:uuid.xml',
      params: ['view'],
      handler: async (ctx) => {
        const d = await galleries.get(userOf(ctx), ctx.path.urlname, ctx.path.uuid, () => {
          const view = ctx.params.oneOf('view', DETAILS_VIEWS) ?? 'details';
          return { medias: view !== 'details', subgalleries: view === 'details_with_contents' };
        });
        return { gallery: detailsXml(d), location: galleryLocation(d.website.urlname, d.record.uuid) };
      },
    },

    {
      method: 'POST',
      path: '/websites/:urlname/galleries.xml',
      params: GALLERY_PARAMS,
      handler: async (ctx) => {
        const d = await galleries.create(userOf(ctx), ctx.path.urlname, () => readGalleryInput(ctx.params, 'create'));
        return { 'gallery-uuid': d.record.uuid, ...written(d, 'created') };
      },
    },

    {
      method: 'PUT',
      path: '/websites/:urlname/galleries/:uuid.xml',
      params: GALLERY_PARAMS,
      handler: async (ctx) => written(await galleries.update(userOf(ctx), ctx.path.urlname, ctx.path.uuid, () => readGalleryInput(ctx.params, 'update')), 'updated'),
    },

    {
      method: 'DELETE',
      path: '/websites/:urlname/galleries/:uuid.xml',
      params: ['delete_medias', 'medias_count'],
      handler: async (ctx) => {
        const r = await galleries.delete(userOf(ctx), ctx.path.urlname, ctx.path.uuid, () => ({
          deleteMedias: ctx.params.flag('delete_medias') ?? false,
          expectedMediasCount: ctx.params.int('medias_count', { min: 0 }),
        }));
        return {
          'deleted-galleries-count': r.galleriesDeleted,
          'deleted-medias-count': r.mediasDeleted,
          message: `Gallery deleted with ${r.galleriesDeleted - 1} sub-galleries and ${r.mediasDeleted} medias. ${UPDATED_LATER}`,
        };
      },
    },

    {
      method: 'GET',
      path: '/websites/:urlname/galleries/:uuid/subgalleries.xml',
      params: ['filter[name]', ...PAGINATION_PARAMS],
      handler: async (ctx) => {
        const r = await galleries.subgalleries(userOf(ctx), ctx.path.urlname, ctx.path.uuid, () => {
          const page = pageParams(ctx.params, GALLERIES_MAX_PER_PAGE);
          return { filter: ctx.params.str('filter[name]'), page: page.page, perPage: page.explicit ? page.perPage : undefined };
        });
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
    },
  ];
}
