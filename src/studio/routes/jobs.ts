// The user's jobs with their state and progress (JobQueue.latest: their own only), as a page
// and as JSON for its script to follow the queue.
import type { FastifyInstance } from 'fastify';
import { parseErrors } from '../../jobs/service.js';
import type { JobRow } from '../../database/schema.js';
import type { StudioKit } from '../kit.js';
import { jobsPage, type JobItem } from '../pages/jobs.js';

/** The latest jobs a user sees (finished ones are purged after JOB_RETENTION_SECONDS). */
const JOBS_SHOWN = 50;

const itemOf = (j: JobRow): JobItem => ({ uuid: j.uuid, kind: j.kind, state: j.state, processed: j.processed, failed: j.failed, total: j.total, createdAt: j.created_at, errors: parseErrors(j.errors).slice(0, 10) });

export function jobRoutes(f: FastifyInstance, kit: StudioKit): void {
  f.get('/studio/jobs', async (req, reply) => {
    const s = kit.need(req);
    return kit.send(reply, 200, jobsPage({ viewer: s.viewer, jobs: (await kit.deps.jobs.latest(s.user, JOBS_SHOWN)).map(itemOf) }));
  });
  f.get('/studio/jobs.json', async (req, reply) => {
    const s = kit.need(req);
    return kit.json(reply, 200, { jobs: (await kit.deps.jobs.latest(s.user, JOBS_SHOWN)).map(itemOf) });
  });
}
