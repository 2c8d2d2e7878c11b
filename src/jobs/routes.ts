// GET /jobs/<uuid>.xml: the status of a job of the user.
import { userOf } from '../http/context.js';
import type { RouteSpec } from '../http/router.js';
import type { JobQueue } from './service.js';
import { jobXml } from './xml.js';

export function jobRoutes(deps: { jobs: JobQueue }): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/jobs/:uuid.xml',
      handler: async (ctx) => {
        const { job, placeInLine } = await deps.jobs.status(userOf(ctx), ctx.path.uuid);
        return { job: jobXml(job, placeInLine) };
      },
    },
  ];
}
