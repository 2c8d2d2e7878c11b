// GET /jobs/<uuid>.xml: the status of a job of the user.
import type { RouteSpec } from '../http/router.js';
import { userOf } from '../http/context.js';
import { notFound } from '../http/errors.js';
import { findOwnedJob } from './queue.js';
import { jobXml } from './xml.js';

export function jobRoutes(): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/jobs/:uuid.xml',
      params: [],
      handler: async (ctx) => {
        const job = await findOwnedJob(ctx.services.db, userOf(ctx).id, ctx.path.uuid);
        if (!job) throw notFound(`job ${ctx.path.uuid}`);
        return { job: jobXml(job) };
      },
    },
  ];
}
