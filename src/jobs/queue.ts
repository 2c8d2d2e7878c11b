// The persistent job queue: enqueue, claim with a lease, and the job row as
// the status resource reads it (docs/batch-updates.md).
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../store/db.js';
import { nowIso } from '../store/db.js';
import type { Dialect } from '../store/migration-helpers.js';
import type { JobRow } from '../store/schema.js';

export type JobState = 'queued' | 'running' | 'done' | 'failed';

/** At most this many error lines are kept on a job (the counts stay exact). */
export const MAX_JOB_ERRORS = 100;

export interface NewJob {
  ownerId: number;
  kind: string;
  /** JSON-serialisable; the handler of `kind` reads it. */
  payload: unknown;
  /** Number of items the payload holds; the cursor runs from 0 to total. */
  total: number;
}

export async function enqueueJob(db: Db, job: NewJob): Promise<JobRow> {
  const now = nowIso();
  return db
    .insertInto('jobs')
    .values({
      uuid: randomUUID(),
      owner_id: job.ownerId,
      kind: job.kind,
      state: 'queued',
      payload: JSON.stringify(job.payload),
      total: job.total,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A job of the user; other users' jobs do not exist for them. */
export function findOwnedJob(db: Db, ownerId: number, uuid: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('uuid', '=', uuid).where('owner_id', '=', ownerId).executeTakeFirst();
}

export function leaseUntil(seconds: number, from = Date.now()): string {
  return new Date(from + seconds * 1000).toISOString();
}

/**
 * Takes the oldest unfinished job whose lease is free or expired, in one
 * statement: PostgreSQL skips rows another worker has locked; SQLite runs the
 * statement under its single writer lock, so two workers never get the same job.
 */
export async function claimJob(db: Db, dialect: Dialect, workerId: string, leaseSeconds: number): Promise<JobRow | undefined> {
  const now = nowIso();
  // A read first: an idle poll then never takes the write lock (SQLite) or row locks.
  const candidate = await db
    .selectFrom('jobs')
    .select('id')
    .where('state', 'in', ['queued', 'running'])
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .limit(1)
    .executeTakeFirst();
  if (!candidate) return undefined;
  const skipLocked = dialect === 'postgres' ? sql`FOR UPDATE SKIP LOCKED` : sql``;
  const result = await sql<JobRow>`
    UPDATE jobs SET state = 'running', locked_by = ${workerId}, locked_until = ${leaseUntil(leaseSeconds)},
      attempts = attempts + 1, started_at = COALESCE(started_at, ${now}), updated_at = ${now}
    WHERE id = (
      SELECT id FROM jobs
      WHERE state IN ('queued', 'running') AND (locked_until IS NULL OR locked_until < ${now})
      ORDER BY id LIMIT 1 ${skipLocked}
    )
    RETURNING *`.execute(db);
  return result.rows[0];
}

/** Gives the job back (state unchanged) so any worker may resume it, after `delaySeconds`; `errors` replaces its error lines. */
export async function releaseJob(db: Db, job: JobRow, workerId: string, delaySeconds = 0, errors?: string[]): Promise<void> {
  await db
    .updateTable('jobs')
    .set({
      locked_by: null,
      locked_until: delaySeconds > 0 ? leaseUntil(delaySeconds) : null,
      updated_at: nowIso(),
      ...(errors ? { errors: JSON.stringify(errors) } : {}),
    })
    .where('id', '=', job.id)
    .where('locked_by', '=', workerId)
    .execute();
}

export async function failJob(db: Db, job: JobRow, workerId: string, message: string): Promise<void> {
  const now = nowIso();
  const errors = appendErrors(parseErrors(job.errors), [message]);
  await db
    .updateTable('jobs')
    .set({ state: 'failed', errors: JSON.stringify(errors), locked_by: null, locked_until: null, finished_at: now, updated_at: now })
    .where('id', '=', job.id)
    .where('locked_by', '=', workerId)
    .execute();
}

export function parseErrors(text: string): string[] {
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v.map(String) : [];
  } catch {
    return [];
  }
}

export function appendErrors(errors: string[], more: string[]): string[] {
  return more.length === 0 ? errors : [...errors, ...more].slice(0, MAX_JOB_ERRORS);
}

/**
 * Deletes jobs that finished (done or failed) before `finishedBefore`: the
 * status resource keeps them JOB_RETENTION_SECONDS. Returns how many went.
 */
export async function purgeFinishedJobs(db: Db, finishedBefore: Date): Promise<number> {
  const gone = await db
    .deleteFrom('jobs')
    .where('state', 'in', ['done', 'failed'])
    .where('finished_at', '<', finishedBefore.toISOString())
    .executeTakeFirst();
  return Number(gone.numDeletedRows);
}
