// The analytics screen (pages/analytics.tsx): the user's own websites' activity, read by the
// activity service (ActivityService.analytics), which counts only what the user owns.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StudioContext, StudioRoute } from '../context.js';
import { analyticsPage } from '../pages/analytics.js';

export const analyticsRoutes: StudioRoute[] = [{ method: 'GET', path: '/studio/analytics', handler: analyticsScreen }];

async function analyticsScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  return ctx.send(reply, 200, analyticsPage({ viewer: s.viewer, analytics: await ctx.deps.activity.analytics(s.user) }));
}
