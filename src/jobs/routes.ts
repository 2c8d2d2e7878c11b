// GET /jobs/<uuid>.xml, and the worker's life cycle with the service.
import type { Feature } from '../features.js';
import { userOf, type Services } from '../http/context.js';
import { notFound } from '../http/errors.js';
import { findOwnedJob } from './queue.js';
import { JobWorker } from './worker.js';
import { jobXml } from './xml.js';

const FEATURE_KEY = 'jobs';

/** The worker of this process, if the jobs feature started. */
export function jobWorkerOf(services: Services): JobWorker | undefined {
  return services.features.get(FEATURE_KEY) as JobWorker | undefined;
}

export const jobsFeature: Feature = {
  name: 'jobs',
  routes(router) {
    router.add({
      method: 'GET',
      path: '/jobs/:uuid.xml',
      params: [],
      handler: async (ctx) => {
        const job = await findOwnedJob(ctx.services.db, userOf(ctx).id, ctx.path.uuid);
        if (!job) throw notFound(`job ${ctx.path.uuid}`);
        return { job: jobXml(job) };
      },
    });
  },
  start(services) {
    const worker = new JobWorker(services, services.config.jobs);
    services.features.set(FEATURE_KEY, worker);
    worker.start();
  },
  async stop(services) {
    await jobWorkerOf(services)?.stop();
  },
};
