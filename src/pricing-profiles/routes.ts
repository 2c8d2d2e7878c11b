// Pricing profile endpoints (API extension, docs/shop.md): the user's price
// lists, one with its items, create, replace and delete. Medias attach them
// with add_pricing_profiles[] (spec 2.4), unchanged.
import { userOf, type RequestContext } from '../http/context.js';
import { fields, pagination } from '../http/input.js';
import { totalPages } from '../http/params.js';
import { route, type RouteSpec } from '../http/router.js';
import { xmlArray } from '../http/xml.js';
import { pricingProfileInput } from './input.js';
import type { PricingProfilesService } from './service.js';
import { profileLocation, profileXml, summaryXml } from './xml.js';

export const PRICING_PROFILES_MAX_PER_PAGE = 500;
/** Without page/per_page, this many profiles. */
const UNPAGINATED_CAP = 1000;

export function pricingProfileRoutes({ pricingProfiles }: { pricingProfiles: PricingProfilesService }): RouteSpec[] {
  const profile = (ctx: RequestContext) => pricingProfiles.get(userOf(ctx), ctx.path.uuid);
  return [
    route({
      method: 'GET',
      path: '/pricing_profiles.xml',
      input: fields({ page: pagination(PRICING_PROFILES_MAX_PER_PAGE) }),
      handler: async (ctx, { page }) => {
        const limit = page.explicit ? page.perPage : UNPAGINATED_CAP;
        const r = await pricingProfiles.list(userOf(ctx), limit, (page.page - 1) * limit);
        return { 'pricing-profiles': xmlArray('pricing-profile', r.profiles.map(summaryXml)), 'total-pages': totalPages(r.total, limit), 'total-entries': r.total };
      },
    }),
    route({
      method: 'GET',
      path: '/pricing_profiles/:uuid.xml',
      handler: async (ctx) => {
        const p = await pricingProfiles.get(userOf(ctx), ctx.path.uuid);
        return { 'pricing-profile': profileXml(p), location: profileLocation(p.uuid) };
      },
    }),
    route({
      method: 'POST',
      path: '/pricing_profiles.xml',
      input: pricingProfileInput('create'),
      handler: async (ctx, input) => {
        const p = await pricingProfiles.createList(userOf(ctx), input);
        return { 'pricing-profile': profileXml(p), location: profileLocation(p.uuid), message: `Pricing profile ${p.name} created.` };
      },
    }),
    route({
      method: 'PUT',
      path: '/pricing_profiles/:uuid.xml',
      input: pricingProfileInput('update'),
      found: profile,
      handler: async (ctx, input) => {
        const p = await pricingProfiles.update(userOf(ctx), ctx.path.uuid, input);
        return { 'pricing-profile': profileXml(p), location: profileLocation(p.uuid), message: `Pricing profile ${p.name} updated.` };
      },
    }),
    route({
      method: 'DELETE',
      path: '/pricing_profiles/:uuid.xml',
      handler: async (ctx) => {
        const p = await pricingProfiles.delete(userOf(ctx), ctx.path.uuid);
        return { message: `Pricing profile ${p.name} deleted.` };
      },
    }),
  ];
}
