// A photographer's own applications (Account → Applications, an extension): the API key and
// secret their scripts and plugins sign requests with, made and revoked through AppsService;
// the secret is in the answer to the creation and in no other.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import { MAX_APPS_PER_USER } from '../../apps/service.js';
import { SMALL_FORM_BYTES, type Signed, type StudioContext, type StudioRoute } from '../context.js';
import { APP_NAME } from '../../apps/service.js';
import { appsPage, type AppItem } from '../pages/admin.js';

export const accountAppRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/account/apps', handler: appsScreen },
  { method: 'POST', path: '/studio/account/apps', bodyLimit: SMALL_FORM_BYTES, handler: createApp },
  { method: 'POST', path: '/studio/account/apps/:key/revoke', bodyLimit: SMALL_FORM_BYTES, handler: revokeApp },
];

async function screen(ctx: StudioContext, reply: FastifyReply, s: Signed, status: number, extra: { notice?: string; error?: string; created?: { name: string; key: string; secret: string } } = {}) {
  const found = await ctx.deps.apps.list({ user: s.user }, { limit: MAX_APPS_PER_USER, offset: 0 });
  const apps: AppItem[] = found.apps.map((a) => ({ name: a.name, key: a.api_key, owner: a.owner_email, ownerDisabled: a.owner_disabled_at !== null, createdAt: a.created_at, revoked: a.revoked_at !== null }));
  return ctx.send(reply, status, appsPage({ viewer: s.viewer, scope: 'account', apps, total: found.total, ...extra }));
}

async function appsScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  return screen(ctx, reply, s, 200, { notice: (req.query as { done?: string }).done === 'revoked' ? 'The application is revoked: its key signs nothing any more.' : undefined });
}

async function createApp(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const name = form.str('name') ?? '';
  try {
    const created = await ctx.deps.apps.create(name, s.user);
    return await screen(ctx, reply, s, 200, { created: { name: name.trim(), ...created } });
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 422) throw err;
    return screen(ctx, reply, s, 422, { error: err.message.replace(APP_NAME, 'The name') });
  }
}

async function revokeApp(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s } = ctx.signedPost(req);
  await ctx.deps.apps.revoke({ user: s.user }, (req.params as { key: string }).key);
  return ctx.redirect(reply, '/studio/account/apps?done=revoked');
}
