// Coupon endpoints (API extension, docs/shop.md "Coupons"): a website's coupons, scoped by
// the website's urlname as its galleries are; another user's website or coupon is a 404.
import { bracketNames } from '../core/fields.js';
import { userOf, type RequestContext } from '../http/context.js';
import { fields, pagination, specInput } from '../http/input.js';
import { totalPages } from '../http/params.js';
import { route, type RouteSpec } from '../http/router.js';
import { xmlArray } from '../http/xml.js';
import { COUPON_FIELDS } from './fields.js';
import type { CouponsService } from './service.js';
import { couponLocation, couponXml } from './xml.js';

export const COUPONS_MAX_PER_PAGE = 500;
const UNPAGINATED_CAP = 1000;
const names = bracketNames('coupon', COUPON_FIELDS);

export function couponRoutes({ coupons }: { coupons: CouponsService }): RouteSpec[] {
  const coupon = (ctx: RequestContext) => coupons.get(userOf(ctx), ctx.path.urlname, ctx.path.uuid);
  const website = (ctx: RequestContext) => coupons.list(userOf(ctx), ctx.path.urlname, 1, 0);
  const written = (c: Awaited<ReturnType<CouponsService['get']>>, verb: string) => ({ coupon: couponXml(c), location: couponLocation(c.urlname, c.uuid), message: `Coupon ${c.code} ${verb}.` });
  return [
    route({
      method: 'GET',
      path: '/websites/:urlname/coupons.xml',
      input: fields({ page: pagination(COUPONS_MAX_PER_PAGE) }),
      found: website,
      handler: async (ctx, { page }) => {
        const limit = page.explicit ? page.perPage : UNPAGINATED_CAP;
        const r = await coupons.list(userOf(ctx), ctx.path.urlname, limit, (page.page - 1) * limit);
        return { coupons: xmlArray('coupon', r.rows.map(couponXml)), 'total-pages': totalPages(r.total, limit), 'total-entries': r.total };
      },
    }),
    route({
      method: 'GET',
      path: '/websites/:urlname/coupons/:uuid.xml',
      handler: async (ctx) => {
        const c = await coupon(ctx);
        return { coupon: couponXml(c), location: couponLocation(c.urlname, c.uuid) };
      },
    }),
    route({
      method: 'POST',
      path: '/websites/:urlname/coupons.xml',
      input: specInput(COUPON_FIELDS, names, 'create'),
      found: website,
      handler: async (ctx, input) => written(await coupons.create(userOf(ctx), ctx.path.urlname, input), 'created'),
    }),
    route({
      method: 'PUT',
      path: '/websites/:urlname/coupons/:uuid.xml',
      input: specInput(COUPON_FIELDS, names, 'update'),
      found: coupon,
      handler: async (ctx, input) => written(await coupons.update(userOf(ctx), ctx.path.urlname, ctx.path.uuid, input), 'updated'),
    }),
    route({
      method: 'DELETE',
      path: '/websites/:urlname/coupons/:uuid.xml',
      handler: async (ctx) => {
        const c = await coupons.delete(userOf(ctx), ctx.path.urlname, ctx.path.uuid);
        return { message: `Coupon ${c.code} deleted.` };
      },
    }),
  ];
}
