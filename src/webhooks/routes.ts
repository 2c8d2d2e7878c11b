// Webhook endpoints (API extension, docs/api.md "Webhooks"; docs/integrations.md): the user's
// endpoints, create (the signing secret in that reply only), read, change, delete, the delivery log
// and a replay of one delivery.
import { userOf, type RequestContext } from '../http/context.js';
import { fields, pagination, specInput } from '../http/input.js';
import { totalPages } from '../http/params.js';
import { route, type RouteSpec } from '../http/router.js';
import { xmlArray } from '../http/xml.js';
import { WEBHOOK_API, WEBHOOK_FIELDS } from './fields.js';
import { WEBHOOKS_MAX_PER_PAGE, type WebhooksService } from './service.js';
import { deliveryXml, endpointXml, webhookLocation } from './xml.js';

export function webhookRoutes({ webhooks }: { webhooks: WebhooksService }): RouteSpec[] {
  const endpoint = (ctx: RequestContext) => webhooks.get(userOf(ctx), ctx.path.uuid);
  return [
    route({
      method: 'GET',
      path: '/webhooks.xml',
      input: fields({ page: pagination(WEBHOOKS_MAX_PER_PAGE) }),
      handler: async (ctx, { page }) => {
        const r = await webhooks.list(userOf(ctx), page.perPage, (page.page - 1) * page.perPage);
        return { webhooks: xmlArray('webhook', r.endpoints.map(endpointXml)), 'total-pages': totalPages(r.total, page.perPage), 'total-entries': r.total };
      },
    }),
    route({
      method: 'POST',
      path: '/webhooks.xml',
      input: specInput(WEBHOOK_FIELDS, WEBHOOK_API, 'create'),
      handler: async (ctx, input) => {
        const { endpoint: e, secret } = await webhooks.create(userOf(ctx), input);
        // The secret is in this reply only: it is never shown again.
        return { webhook: { ...endpointXml(e), secret }, location: webhookLocation(e.uuid), message: 'Webhook endpoint created. Keep its secret: it is not shown again.' };
      },
    }),
    route({
      method: 'GET',
      path: '/webhooks/:uuid.xml',
      handler: async (ctx) => {
        const e = await endpoint(ctx);
        return { webhook: endpointXml(e), location: webhookLocation(e.uuid) };
      },
    }),
    route({
      method: 'PUT',
      path: '/webhooks/:uuid.xml',
      input: specInput(WEBHOOK_FIELDS, WEBHOOK_API, 'update'),
      found: endpoint,
      handler: async (ctx, input) => {
        const e = await webhooks.update(userOf(ctx), ctx.path.uuid, input);
        return { webhook: endpointXml(e), location: webhookLocation(e.uuid), message: 'Webhook endpoint updated.' };
      },
    }),
    route({
      method: 'DELETE',
      path: '/webhooks/:uuid.xml',
      handler: async (ctx) => {
        await webhooks.delete(userOf(ctx), ctx.path.uuid);
        return { message: 'Webhook endpoint deleted.' };
      },
    }),
    route({
      method: 'GET',
      path: '/webhooks/:uuid/deliveries.xml',
      input: fields({ page: pagination(WEBHOOKS_MAX_PER_PAGE) }),
      found: endpoint,
      handler: async (ctx, { page }) => {
        const r = await webhooks.deliveries(userOf(ctx), ctx.path.uuid, page.perPage, (page.page - 1) * page.perPage);
        return { deliveries: xmlArray('delivery', r.deliveries.map(deliveryXml)), 'total-pages': totalPages(r.total, page.perPage), 'total-entries': r.total };
      },
    }),
    route({
      method: 'POST',
      path: '/webhooks/:uuid/deliveries/:delivery/replay.xml',
      handler: async (ctx) => {
        const d = await webhooks.replay(userOf(ctx), ctx.path.uuid, ctx.path.delivery);
        return { delivery: deliveryXml(d), message: 'Delivery queued again.' };
      },
    }),
  ];
}
