// Gallery endpoints (spec 4.3). Handlers find the website among the user's
// own (anything else is a 404), read the input, run writes in one
// transaction and render galleries through galleryXml.
import type { RouteSpec } from '../http/router.js';
import { userOf, type RequestContext } from '../http/context.js';
import { notFound } from '../http/errors.js';
import { pageParams, PAGINATION_PARAMS, totalPages } from '../http/params.js';
import { xmlArray, type XmlObject } from '../http/xml.js';
import { DeletionsRepository } from '../storage/deletions-repository.js';
import { FileDeletions } from '../storage/file-deletions.js';
import { nowIso } from '../store/db.js';
import { hashPassword } from '../http/passwords.js';
import { findAccessibleWebsite } from '../websites/queries.js';
import { loadAcls } from './acl.js';
import { deleteGalleryTree } from './delete.js';
import { GALLERY_PARAMS, readGalleryInput, type GalleryInput } from './input.js';
import { orderedMediaUuids } from './medias.js';
import { mediasProxyUuid } from './proxy-uuid.js';
import {
  ancestorsOf,
  childrenOf,
  findGallery,
  findGalleryRecord,
  galleriesByIds,
  galleriesByListPos,
  galleryTotal,
  mediaCounts,
  type GalleryRecord,
} from './queries.js';
import { createGallery, lockWebsite, updateGallery, type Hashed } from './write.js';
import type { WebsiteRow } from '../store/schema.js';
import { galleryLocation, galleryXml } from './xml.js';

export const GALLERIES_MAX_PER_PAGE = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UPDATED_LATER = 'The website is updated within a few minutes.';
const byName = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

async function websiteOf(ctx: RequestContext): Promise<WebsiteRow> {
  const website = await findAccessibleWebsite(ctx.services.db, userOf(ctx).id, ctx.path.urlname);
  if (!website) throw notFound(`website ${ctx.path.urlname}`);
  return website;
}

function galleryUuidOf(ctx: RequestContext): string {
  const uuid = ctx.path.uuid;
  if (!UUID.test(uuid)) throw notFound(`gallery ${uuid}`);
  return uuid.toLowerCase();
}

async function galleryRecordOf(ctx: RequestContext, website: WebsiteRow): Promise<GalleryRecord> {
  const uuid = galleryUuidOf(ctx);
  const g = await findGalleryRecord(ctx.services.db, website.id, uuid);
  if (!g) throw notFound(`gallery ${uuid}`);
  return g;
}

async function hashed(input: GalleryInput): Promise<Hashed> {
  if (input.password === undefined) return {};
  return { passwordHash: input.password === null ? null : await hashPassword(input.password) };
}

/** The gallery as create, update and details show it: every field and its access list. */
async function fullGalleryXml(ctx: RequestContext, g: GalleryRecord, more: { medias?: string[]; subgalleries?: XmlObject[] } = {}): Promise<XmlObject> {
  const { db } = ctx.services;
  const [counts, acls] = await Promise.all([mediaCounts(db, [g]), loadAcls(db, [g.id])]);
  return galleryXml(g, 'details', { counts: counts.get(g.id), acl: acls.get(g.id) ?? [], ...more });
}

/** Direct sub-galleries in the parent's order: by name when order_subgalleries is set, else by creation. */
async function orderedChildren(ctx: RequestContext, g: GalleryRecord) {
  const children = await childrenOf(ctx.services.db, g.id);
  if (g.order_subgalleries === 1) children.sort((a, b) => byName.compare(a.name, b.name) || a.id - b.id);
  return children;
}

/** Galleries in the order of `ids`, with their media counts: a fixed number of queries whatever the number. */
async function recordsWithCounts(ctx: RequestContext, ids: number[]) {
  const { db } = ctx.services;
  const byId = new Map((await galleriesByIds(db, ids)).map((r) => [r.id, r]));
  const rows = ids.map((id) => byId.get(id)!);
  return { rows, counts: await mediaCounts(db, rows) };
}

async function renderedDetails(ctx: RequestContext, ids: number[]): Promise<XmlObject[]> {
  const { rows, counts } = await recordsWithCounts(ctx, ids);
  return rows.map((r) => galleryXml(r, 'details', { counts: counts.get(r.id) }));
}

export function galleryRoutes(): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/websites/:urlname/galleries.xml',
      params: ['view', ...PAGINATION_PARAMS],
      handler: async (ctx) => {
        const website = await websiteOf(ctx);
        const view = ctx.params.oneOf('view', ['list', 'details'] as const) ?? 'list';
        const page = pageParams(ctx.params, GALLERIES_MAX_PER_PAGE);
        // Unpaginated requests get the first galleryListCap galleries (spec 8, 9).
        const perPage = page.explicit ? page.perPage : ctx.services.config.galleryListCap;
        const { db } = ctx.services;
        const first = (page.page - 1) * perPage + 1;
        const [total, rows] = await Promise.all([galleryTotal(db, website.id), galleriesByListPos(db, website.id, first, first + perPage - 1)]);
        const counts = view === 'details' ? await mediaCounts(db, rows) : undefined;
        return {
          galleries: xmlArray('gallery', rows.map((r) => galleryXml(r, view, { counts: counts?.get(r.id) }))),
          'total-pages': totalPages(total, perPage),
          'total-entries': total,
        };
      },
    },

    {
      method: 'GET',
      path: '/websites/:urlname/galleries/:uuid.xml',
      params: ['view'],
      handler: async (ctx) => {
        const website = await websiteOf(ctx);
        const view = ctx.params.oneOf('view', ['details', 'details_with_medias', 'details_with_contents'] as const) ?? 'details';
        const g = await galleryRecordOf(ctx, website);
        const withMedias = view !== 'details';
        const medias = withMedias ? await orderedMediaUuids(ctx.services.db, g) : undefined;
        const subgalleries =
          view === 'details_with_contents' ? await renderedDetails(ctx, (await orderedChildren(ctx, g)).map((c) => c.id)) : undefined;
        return { gallery: await fullGalleryXml(ctx, g, { medias, subgalleries }), location: galleryLocation(website.urlname, g.uuid) };
      },
    },

    {
      method: 'POST',
      path: '/websites/:urlname/galleries.xml',
      params: GALLERY_PARAMS,
      handler: async (ctx) => {
        const website = await websiteOf(ctx);
        const input = readGalleryInput(ctx.params, 'create');
        const hash = await hashed(input);
        const { db } = ctx.services;
        const id = await db.transaction().execute((trx) => createGallery(trx, website, input, hash, nowIso()));
        const [g] = await galleriesByIds(db, [id]);
        return {
          'gallery-uuid': g.uuid,
          gallery: await fullGalleryXml(ctx, g),
          location: galleryLocation(website.urlname, g.uuid),
          'user-medias-gallery-proxy-uuid': mediasProxyUuid(g.uuid),
          message: `Gallery ${g.name} created. ${UPDATED_LATER}`,
        };
      },
    },

    {
      method: 'PUT',
      path: '/websites/:urlname/galleries/:uuid.xml',
      params: GALLERY_PARAMS,
      handler: async (ctx) => {
        const website = await websiteOf(ctx);
        const uuid = galleryUuidOf(ctx);
        const { db } = ctx.services;
        const existing = await findGallery(db, website.id, uuid);
        if (!existing) throw notFound(`gallery ${uuid}`);
        const input = readGalleryInput(ctx.params, 'update');
        const hash = await hashed(input);
        await db.transaction().execute(async (trx) => {
          // Lock, then re-read: the tree may have changed since the first read.
          const now = nowIso();
          await lockWebsite(trx, website.id, now);
          const g = await findGallery(trx, website.id, uuid);
          if (!g) throw notFound(`gallery ${uuid}`);
          await updateGallery(trx, website, g, input, hash, now);
        });
        const [g] = await galleriesByIds(db, [existing.id]);
        return {
          gallery: await fullGalleryXml(ctx, g),
          location: galleryLocation(website.urlname, g.uuid),
          'user-medias-gallery-proxy-uuid': mediasProxyUuid(g.uuid),
          message: `Gallery ${g.name} updated. ${UPDATED_LATER}`,
        };
      },
    },

    {
      method: 'DELETE',
      path: '/websites/:urlname/galleries/:uuid.xml',
      params: ['delete_medias', 'medias_count'],
      handler: async (ctx) => {
        const website = await websiteOf(ctx);
        const uuid = galleryUuidOf(ctx);
        const deleteMedias = ctx.params.flag('delete_medias') ?? false;
        const expectedMediasCount = ctx.params.int('medias_count', { min: 0 });
        const { db } = ctx.services;
        const result = await db.transaction().execute(async (trx) => {
          const now = nowIso();
          await lockWebsite(trx, website.id, now);
          const g = await findGallery(trx, website.id, uuid);
          if (!g) throw notFound(`gallery ${uuid}`);
          return deleteGalleryTree(trx, g, { callerId: userOf(ctx).id, deleteMedias, expectedMediasCount }, now);
        });
        if (result.storageKeys.length > 0) {
          await new FileDeletions(ctx.services.storage, new DeletionsRepository(ctx.services.db), ctx.services.log).remove(result.storageKeys).catch((err: unknown) =>
            ctx.services.log.warn({ err, count: result.storageKeys.length }, 'files of deleted medias left for the media cleanup'),
          );
        }
        return {
          'deleted-galleries-count': result.galleriesDeleted,
          'deleted-medias-count': result.mediasDeleted,
          message: `Gallery deleted with ${result.galleriesDeleted - 1} sub-galleries and ${result.mediasDeleted} medias. ${UPDATED_LATER}`,
        };
      },
    },

    {
      method: 'GET',
      path: '/websites/:urlname/galleries/:uuid/subgalleries.xml',
      params: ['filter[name]', ...PAGINATION_PARAMS],
      handler: async (ctx) => {
        const website = await websiteOf(ctx);
        const g = await galleryRecordOf(ctx, website);
        const page = pageParams(ctx.params, GALLERIES_MAX_PER_PAGE);
        const filter = ctx.params.str('filter[name]')?.trim().toLowerCase();
        let children = await orderedChildren(ctx, g);
        if (filter) children = children.filter((c) => c.name.toLowerCase().includes(filter));
        // Without pagination every sub-gallery is listed (1000 at most).
        const perPage = page.explicit ? page.perPage : Math.max(1, children.length);
        const pageIds = children.slice((page.page - 1) * perPage, page.page * perPage).map((c) => c.id);
        const pages = totalPages(children.length, perPage);
        const [ancestors, { rows, counts }] = await Promise.all([ancestorsOf(ctx.services.db, g), recordsWithCounts(ctx, [g.id, ...pageIds])]);
        return {
          galleries: xmlArray('gallery', [
            ...ancestors.map((a) => galleryXml(a, 'list')),
            galleryXml(g, 'details', { counts: counts.get(g.id), page: page.page, totalPages: pages }),
            ...rows.slice(1).map((r) => galleryXml(r, 'details', { counts: counts.get(r.id) })),
          ]),
          page: page.page,
          'total-pages': pages,
        };
      },
    },
  ];
}
