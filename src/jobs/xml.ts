// The job status resource (docs/batch-updates.md).
import { xmlArray, type XmlObject } from '../http/xml.js';
import { parseErrors } from './service.js';
import type { JobRow } from '../database/schema.js';
import { laneName } from './lanes.js';

export function jobLocation(job: Pick<JobRow, 'uuid'>): string {
  return `/jobs/${job.uuid}.xml`;
}

const date = (v: string | null) => (v === null ? null : new Date(v));

/**
 * `lane` and `place-in-line` are extensions (docs/batch-updates.md): the lane
 * the job waits in, and while it waits, its place there (1: next); absent once
 * a worker holds it or it is finished, and in replies that only queued it.
 */
export function jobXml(job: JobRow, placeInLine?: number): XmlObject {
  return {
    uuid: job.uuid,
    kind: job.kind,
    state: job.state,
    lane: laneName(job.lane),
    'place-in-line': placeInLine,
    total: job.total,
    processed: job.processed,
    failed: job.failed,
    errors: xmlArray('error', parseErrors(job.errors)),
    'created-at': new Date(job.created_at),
    'started-at': date(job.started_at),
    'finished-at': date(job.finished_at),
    'updated-at': new Date(job.updated_at),
    location: jobLocation(job),
  };
}
