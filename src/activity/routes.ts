// Activity endpoints (API extension, docs/delivery.md "Activity"): a gallery's
// activity, one client's across the user's galleries, and the deletion of a
// client's data on request.
import { userOf } from '../http/context.js';
import { fields, pagination, text } from '../http/input.js';
import { route, type RouteSpec } from '../http/router.js';
import { ACTIVITY_MAX_PER_PAGE, type ActivityService } from './service.js';
import { clientActivityXml, forgottenXml, galleryActivityXml } from './xml.js';

export function activityRoutes(activity: ActivityService): RouteSpec[] {
  const page = pagination(ACTIVITY_MAX_PER_PAGE);
  return [
    route({
      method: 'GET',
      path: '/galleries/:uuid/activity.xml',
      input: fields({ client: text('client'), page }),
      found: (ctx) => activity.galleryOf(userOf(ctx), ctx.path.uuid),
      handler: async (ctx, { client, page }) =>
        galleryActivityXml(await activity.gallery(userOf(ctx), ctx.path.uuid, { client, page: page.page, perPage: page.perPage })),
    }),
    route({
      method: 'GET',
      path: '/activity.xml',
      input: fields({ client: text('client'), page }),
      handler: async (ctx, { client, page }) => clientActivityXml(await activity.client(userOf(ctx), client, { page: page.page, perPage: page.perPage })),
    }),
    route({
      method: 'DELETE',
      path: '/activity.xml',
      input: text('client'),
      handler: async (ctx, client) => forgottenXml(await activity.forget(userOf(ctx), client)),
    }),
  ];
}
