// The job status resource (docs/batch-updates.md).
import { xmlArray, type XmlObject } from '../http/xml.js';
import { parseErrors } from './service.js';
import type { JobRow } from '../store/schema.js';

export function jobLocation(job: Pick<JobRow, 'uuid'>): string {
  return `/jobs/${job.uuid}.xml`;
}

const date = (v: string | null) => (v === null ? null : new Date(v));

export function jobXml(job: JobRow): XmlObject {
  return {
    uuid: job.uuid,
    kind: job.kind,
    state: job.state,
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
