// Account → Webhooks (docs/studio.md "Webhooks"): endpoints made, enabled, deleted and their log
// read and replayed through WebhooksService, the form read through the endpoint's field spec.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readFields } from '../../core/fields.js';
import { WEBHOOK_API, WEBHOOK_FIELDS } from '../../webhooks/fields.js';
import { SMALL_FORM_BYTES, type StudioContext, type StudioRoute } from '../context.js';
import { webhookLogPage, webhooksPage } from '../pages/webhooks.js';
import { specForm } from '../spec-form.js';

const base = '/studio/account/webhooks';
const form = specForm(WEBHOOK_FIELDS, WEBHOOK_API, {}, { url: 'The address', events: 'The events' });
/** Deliveries the log screen shows. */
const LOG_SIZE = 100;

export const webhookStudioRoutes: StudioRoute[] = [
  { method: 'GET', path: base, handler: listScreen },
  { method: 'POST', path: base, bodyLimit: SMALL_FORM_BYTES, handler: createEndpoint },
  { method: 'GET', path: `${base}/:uuid`, handler: logScreen },
  { method: 'POST', path: `${base}/:uuid/enable`, bodyLimit: SMALL_FORM_BYTES, handler: enable },
  { method: 'POST', path: `${base}/:uuid/delete`, bodyLimit: SMALL_FORM_BYTES, handler: remove },
  { method: 'POST', path: `${base}/:uuid/deliveries/:delivery/replay`, bodyLimit: SMALL_FORM_BYTES, handler: replay },
];

const NOTICES: Record<string, string> = { deleted: 'The endpoint is deleted.', enabled: 'The endpoint is enabled again.', replayed: 'The event is queued to be sent again.' };

async function listScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const { endpoints } = await ctx.deps.webhooks.list(s.user, 100, 0);
  return ctx.send(reply, 200, webhooksPage({ viewer: s.viewer, endpoints, notice: NOTICES[(req.query as { done?: string }).done ?? ''] }));
}

async function createEndpoint(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form: body } = ctx.signedPost(req);
  // The events are checkboxes: one value each, read as the spec's comma list.
  const events = body.list('events', 20);
  const source = { value: (key: string) => (key === 'url' ? (body.str('url') ?? '') : key === 'events' ? events.join(',') : undefined) };
  try {
    const { secret, endpoint } = await ctx.deps.webhooks.create(s.user, readFields(WEBHOOK_FIELDS, source, WEBHOOK_API, 'create'));
    const { endpoints } = await ctx.deps.webhooks.list(s.user, 100, 0);
    return ctx.send(reply, 200, webhooksPage({ viewer: s.viewer, endpoints, created: { url: endpoint.url, secret } }));
  } catch (err) {
    const error = form.refusal(err);
    const { endpoints } = await ctx.deps.webhooks.list(s.user, 100, 0);
    return ctx.send(reply, 422, webhooksPage({ viewer: s.viewer, endpoints, error, form: { url: body.str('url'), events } }));
  }
}

async function logScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const uuid = (req.params as { uuid: string }).uuid;
  const endpoint = await ctx.deps.webhooks.get(s.user, uuid);
  const { deliveries, total } = await ctx.deps.webhooks.deliveries(s.user, uuid, LOG_SIZE, 0);
  return ctx.send(reply, 200, webhookLogPage({ viewer: s.viewer, endpoint, deliveries, total, notice: NOTICES[(req.query as { done?: string }).done ?? ''] }));
}

async function enable(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s } = ctx.signedPost(req);
  const uuid = (req.params as { uuid: string }).uuid;
  await ctx.deps.webhooks.update(s.user, uuid, { enabled: true });
  return ctx.redirect(reply, `${base}/${encodeURIComponent(uuid)}?done=enabled`);
}

async function remove(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s } = ctx.signedPost(req);
  await ctx.deps.webhooks.delete(s.user, (req.params as { uuid: string }).uuid);
  return ctx.redirect(reply, `${base}?done=deleted`);
}

async function replay(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s } = ctx.signedPost(req);
  const { uuid, delivery } = req.params as { uuid: string; delivery: string };
  await ctx.deps.webhooks.replay(s.user, uuid, delivery);
  return ctx.redirect(reply, `${base}/${encodeURIComponent(uuid)}?done=replayed`);
}
