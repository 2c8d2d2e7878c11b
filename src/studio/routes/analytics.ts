// The analytics screen (pages/analytics.tsx): the user's own websites' activity, read by the
// activity service (ActivityService.analytics), which counts only what the user owns.
import type { FastifyInstance } from 'fastify';
import type { StudioKit } from '../kit.js';
import { analyticsPage } from '../pages/analytics.js';

export function analyticsRoutes(f: FastifyInstance, kit: StudioKit): void {
  f.get('/studio/analytics', async (req, reply) => {
    const s = kit.need(req);
    return kit.send(reply, 200, analyticsPage({ viewer: s.viewer, analytics: await kit.deps.activity.analytics(s.user) }));
  });
}
