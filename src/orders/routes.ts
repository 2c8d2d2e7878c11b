// Order endpoints (API extension, docs/shop.md "Orders"): the photographer's
// orders, one with its items and payments, and the change of status (a manual
// payment, a cancellation, a refund). Another user's order is a 404.
import { userOf, type RequestContext } from '../http/context.js';
import { totalPages } from '../http/params.js';
import { route, type RouteSpec } from '../http/router.js';
import { xmlArray } from '../http/xml.js';
import { gallerySaleInput, labInput, orderListInput, orderUpdateInput } from './input.js';
import type { OrdersService } from './service.js';
import { labXml, orderHeadXml, orderLocation, orderXml, saleXml } from './xml.js';

/** Without page/per_page, this many orders. */
const UNPAGINATED_CAP = 1000;

export function orderRoutes({ orders }: { orders: OrdersService }): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/orders.xml',
      input: orderListInput,
      handler: async (ctx, { page, filter }) => {
        const limit = page.explicit ? page.perPage : UNPAGINATED_CAP;
        const r = await orders.list(userOf(ctx), filter, limit, (page.page - 1) * limit);
        return { orders: xmlArray('order', r.rows.map(orderHeadXml)), 'total-pages': totalPages(r.total, limit), 'total-entries': r.total };
      },
    }),
    route({
      method: 'GET',
      path: '/orders/:uuid.xml',
      handler: async (ctx) => {
        const o = await orders.get(userOf(ctx), ctx.path.uuid);
        return { order: orderXml(o), location: orderLocation(o.uuid) };
      },
    }),
    route({
      method: 'PUT',
      path: '/orders/:uuid.xml',
      input: orderUpdateInput,
      found: (ctx: RequestContext) => orders.get(userOf(ctx), ctx.path.uuid),
      handler: async (ctx, change) => {
        let o = change.status ? await orders.setStatus(userOf(ctx), ctx.path.uuid, change.status, change.trackingUrl) : undefined;
        if (change.sendToLab) o = await orders.sendToLab(userOf(ctx), ctx.path.uuid);
        if (change.downloadDays !== undefined || change.resend) o = await orders.downloads(userOf(ctx), ctx.path.uuid, { days: change.downloadDays, resend: change.resend });
        return { order: orderXml(o!), location: orderLocation(o!.uuid), message: `Order ${o!.uuid} is ${o!.status}.` };
      },
    }),
    // The print sheet: CSV, one row per print item, with signed links to the files at print size.
    route({
      method: 'GET',
      path: '/orders/:uuid/sheet.csv',
      handler: async (ctx) => {
        const sheet = await orders.sheet(userOf(ctx), ctx.path.uuid);
        await ctx.reply
          .code(200)
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${sheet.fileName}"`)
          .header('cache-control', 'private, no-store')
          .header('x-content-type-options', 'nosniff')
          .send(sheet.csv);
        return {};
      },
    }),
    route({
      method: 'GET',
      path: '/lab.xml',
      handler: async (ctx) => ({ lab: labXml(await orders.lab(userOf(ctx))) }),
    }),
    route({
      method: 'PUT',
      path: '/lab.xml',
      input: labInput,
      handler: async (ctx, lab) => ({ lab: labXml(await orders.setLab(userOf(ctx), lab)), message: 'Print lab saved.' }),
    }),
    route({
      method: 'GET',
      path: '/galleries/:uuid/sale.xml',
      handler: async (ctx) => ({ sale: saleXml(await orders.gallerySale(userOf(ctx), ctx.path.uuid)) }),
    }),
    route({
      method: 'PUT',
      path: '/galleries/:uuid/sale.xml',
      input: gallerySaleInput,
      found: (ctx: RequestContext) => orders.gallerySale(userOf(ctx), ctx.path.uuid),
      handler: async (ctx, sale) => {
        const s = await orders.setGallerySale(userOf(ctx), ctx.path.uuid, sale);
        return { sale: saleXml(s), message: s.sale ? `Gallery ${s.gallery.uuid} is sold whole.` : `Gallery ${s.gallery.uuid} is not sold whole.` };
      },
    }),
  ];
}
