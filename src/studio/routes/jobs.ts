// The user's jobs with their state and progress (JobQueue.latest: their own only), as a page
// and as JSON for its script to follow the queue.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseErrors } from '../../jobs/service.js';
import type { JobRow } from '../../database/schema.js';
import type { StudioContext, StudioRoute } from '../context.js';
import { jobsPage, type JobItem } from '../pages/jobs.js';

/** The latest jobs a user sees (finished ones are purged after JOB_RETENTION_SECONDS). */
const JOBS_SHOWN = 50;

export const jobRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/jobs', handler: jobsScreen },
  { method: 'GET', path: '/studio/jobs.json', handler: jobsJson },
];

const itemOf = (j: JobRow): JobItem => ({ uuid: j.uuid, kind: j.kind, state: j.state, processed: j.processed, failed: j.failed, total: j.total, createdAt: j.created_at, errors: parseErrors(j.errors).slice(0, 10) });

async function jobsScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  return ctx.send(reply, 200, jobsPage({ viewer: s.viewer, jobs: (await ctx.deps.jobs.latest(s.user, JOBS_SHOWN)).map(itemOf) }));
}

async function jobsJson(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  return ctx.json(reply, 200, { jobs: (await ctx.deps.jobs.latest(s.user, JOBS_SHOWN)).map(itemOf) });
}
