// Share links (API extension, docs/api.md "Share links"; docs/integrations.md): a gallery's or a
// lightbox's links, create (the URL in that reply only), revoke either kind.
import { userOf } from '../http/context.js';
import { specInput } from '../http/input.js';
import { route, type RouteSpec } from '../http/router.js';
import { xmlArray } from '../http/xml.js';
import { SHARE_LINK_API, SHARE_LINK_FIELDS } from './fields.js';
import { SHARE_TARGETS, type ShareLinksService } from './service.js';
import { shareLinkXml } from './xml.js';

const PLURAL = { gallery: 'galleries', lightbox: 'lightboxes' } as const;

export function shareLinkRoutes({ shareLinks }: { shareLinks: ShareLinksService }): RouteSpec[] {
  return [
    // The same two routes for each kind of target, over the one service.
    ...SHARE_TARGETS.flatMap((kind) => [
      route({
        method: 'GET',
        path: `/${PLURAL[kind]}/:uuid/share_links.xml`,
        handler: async (ctx) => ({ 'share-links': xmlArray('share-link', (await shareLinks.list(userOf(ctx), kind, ctx.path.uuid)).map(shareLinkXml)) }),
      }),
      route({
        method: 'POST',
        path: `/${PLURAL[kind]}/:uuid/share_links.xml`,
        input: specInput(SHARE_LINK_FIELDS, SHARE_LINK_API, 'create'),
        // Another photographer's gallery or lightbox is a 404 before its parameters are read.
        found: (ctx) => shareLinks.targetOf(userOf(ctx), kind, ctx.path.uuid),
        handler: async (ctx, input) => {
          const { link, url } = await shareLinks.create(userOf(ctx), kind, ctx.path.uuid, input);
          // The URL is a bearer credential kept only as a hash: this reply is the one place it appears.
          return { 'share-link': { ...shareLinkXml(link), url }, message: 'Share link created. Copy its address now: it is not shown again.' };
        },
      }),
    ]),
    route({
      method: 'DELETE',
      path: '/share_links/:uuid.xml',
      handler: async (ctx) => {
        await shareLinks.revoke(userOf(ctx), ctx.path.uuid);
        return { message: 'Share link revoked.' };
      },
    }),
  ];
}
