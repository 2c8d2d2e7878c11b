// Shop settings endpoints (API extension, docs/shop.md "Taxes and terms"): one small resource
// per website, read and changed; another user's website is a 404.
import { bracketNames } from '../core/fields.js';
import { userOf, type RequestContext } from '../http/context.js';
import { specInput } from '../http/input.js';
import { route, type RouteSpec } from '../http/router.js';
import { SHOP_SETTINGS_FIELDS } from './fields.js';
import type { ShopSettingsService } from './service.js';
import { shopSettingsLocation, shopSettingsXml } from './xml.js';

export function shopSettingsRoutes({ shopSettings }: { shopSettings: ShopSettingsService }): RouteSpec[] {
  const found = (ctx: RequestContext) => shopSettings.get(userOf(ctx), ctx.path.urlname);
  return [
    route({
      method: 'GET',
      path: '/websites/:urlname/shop_settings.xml',
      handler: async (ctx) => {
        const s = await found(ctx);
        return { 'shop-settings': shopSettingsXml(s), location: shopSettingsLocation(s.urlname) };
      },
    }),
    route({
      method: 'PUT',
      path: '/websites/:urlname/shop_settings.xml',
      input: specInput(SHOP_SETTINGS_FIELDS, bracketNames('shop_settings', SHOP_SETTINGS_FIELDS), 'update'),
      found,
      handler: async (ctx, input) => {
        const s = await shopSettings.update(userOf(ctx), ctx.path.urlname, input);
        return { 'shop-settings': shopSettingsXml(s), location: shopSettingsLocation(s.urlname), message: `The shop settings of ${s.urlname} are saved.` };
      },
    }),
  ];
}
