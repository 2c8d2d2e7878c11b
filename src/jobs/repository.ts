// SQL of the job queue (docs/batch-updates.md): enqueue, the status lookup,
// claim with a lease, give back, fail, the chunk transaction, purge. Every
// write of a worker is guarded by its lease (`locked_by`).
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { nowIso, type Db, type Store } from '../store/db.js';
import type { JobRow } from '../store/schema.js';
import { unitOf, type Unit } from '../store/unit-of-work.js';

export interface NewJob {
  ownerId: number;
  kind: string;
  /** JSON-serialisable; the handler of `kind` reads it. */
  payload: unknown;
  /** Number of items the payload holds; the cursor runs from 0 to total. */
  total: number;
}

/** Where a chunk leaves the job: the cursor's new place, the counts to add, the job's error lines. */
export interface CursorMove {
  end: number;
  processed: number;
  failed: number;
  errors: string[];
}

/** The lease was taken over (it expired): this worker must not touch the job any more. */
export class LeaseLost extends Error {}

function leaseUntil(seconds: number, from = Date.now()): string {
  return new Date(from + seconds * 1000).toISOString();
}

export class JobsRepository {
  private readonly db: Db;

  constructor(private readonly store: Store) {
    this.db = store.db;
  }

  enqueue(job: NewJob, tx: Db = this.db): Promise<JobRow> {
    const now = nowIso();
    return tx
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
  findOwned(ownerId: number, uuid: string): Promise<JobRow | undefined> {
    return this.db.selectFrom('jobs').selectAll().where('uuid', '=', uuid).where('owner_id', '=', ownerId).executeTakeFirst();
  }

  /**
   * Takes the oldest unfinished job whose lease is free or expired, in one
   * statement: PostgreSQL skips rows another worker has locked; SQLite runs the
   * statement under its single writer lock, so two workers never get the same job.
   */
  async claim(workerId: string, leaseSeconds: number): Promise<JobRow | undefined> {
    const now = nowIso();
    // A read first: an idle poll then never takes the write lock (SQLite) or row locks.
    const candidate = await this.db
      .selectFrom('jobs')
      .select('id')
      .where('state', 'in', ['queued', 'running'])
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .limit(1)
      .executeTakeFirst();
    if (!candidate) return undefined;
    const skipLocked = this.store.dialect === 'postgres' ? sql`FOR UPDATE SKIP LOCKED` : sql``;
    const result = await sql<JobRow>`
      UPDATE jobs SET state = 'running', locked_by = ${workerId}, locked_until = ${leaseUntil(leaseSeconds)},
        attempts = attempts + 1, started_at = COALESCE(started_at, ${now}), updated_at = ${now}
      WHERE id = (
        SELECT id FROM jobs
        WHERE state IN ('queued', 'running') AND (locked_until IS NULL OR locked_until < ${now})
        ORDER BY id LIMIT 1 ${skipLocked}
      )
      RETURNING *`.execute(this.db);
    return result.rows[0];
  }

  /** Gives the job back (state unchanged) so any worker may resume it, after `delaySeconds`; `errors` replaces its error lines. */
  async release(jobId: number, workerId: string, delaySeconds = 0, errors?: string[]): Promise<void> {
    await this.db
      .updateTable('jobs')
      .set({
        locked_by: null,
        locked_until: delaySeconds > 0 ? leaseUntil(delaySeconds) : null,
        updated_at: nowIso(),
        ...(errors ? { errors: JSON.stringify(errors) } : {}),
      })
      .where('id', '=', jobId)
      .where('locked_by', '=', workerId)
      .execute();
  }

  /** Ends the job as failed with these error lines. */
  async fail(jobId: number, workerId: string, errors: string[]): Promise<void> {
    const now = nowIso();
    await this.db
      .updateTable('jobs')
      .set({ state: 'failed', errors: JSON.stringify(errors), locked_by: null, locked_until: null, finished_at: now, updated_at: now })
      .where('id', '=', jobId)
      .where('locked_by', '=', workerId)
      .execute();
  }

  /** Ends a job that has nothing (left) to do. */
  async finish(jobId: number, workerId: string): Promise<void> {
    const now = nowIso();
    await this.db
      .updateTable('jobs')
      .set({ state: 'done', finished_at: now, updated_at: now, locked_by: null, locked_until: null })
      .where('id', '=', jobId)
      .where('locked_by', '=', workerId)
      .execute();
  }

  /**
   * One chunk in one transaction: locks the job row, proving the lease is
   * still `workerId`'s and the cursor still at `cursor` (and renews the lease),
   * runs `work` in the transaction's unit of work, then moves the cursor as
   * `work` says; the chunk that reaches `total` finishes the job. So a chunk's
   * work and its cursor move commit together or not at all. Throws LeaseLost,
   * having done nothing, when the lease was taken over. `committed` runs what
   * `work` left for after the commit: the worker calls it, so that its failure
   * is not taken for the chunk's.
   */
  async runChunk<T>(
    job: Pick<JobRow, 'id' | 'total'>,
    workerId: string,
    cursor: number,
    leaseSeconds: number,
    work: (unit: Unit) => Promise<{ value: T; move: CursorMove }>,
  ): Promise<{ value: T; committed: () => Promise<void> }> {
    let committed: () => Promise<void> = async () => {};
    const value = await this.db.transaction().execute(async (trx) => {
      const held = await trx
        .updateTable('jobs')
        .set({ locked_until: leaseUntil(leaseSeconds) })
        .where('id', '=', job.id)
        .where('locked_by', '=', workerId)
        .where('cursor', '=', cursor)
        .executeTakeFirst();
      if (Number(held.numUpdatedRows) !== 1) throw new LeaseLost();
      const chunk = unitOf(trx);
      committed = chunk.committed;
      const { value, move } = await work(chunk.unit);
      const now = nowIso();
      const last = move.end >= job.total;
      await trx
        .updateTable('jobs')
        .set((eb) => ({
          cursor: move.end,
          processed: eb('processed', '+', move.processed),
          failed: eb('failed', '+', move.failed),
          errors: JSON.stringify(move.errors),
          updated_at: now,
          ...(last ? { state: 'done', finished_at: now, locked_by: null, locked_until: null } : {}),
        }))
        .where('id', '=', job.id)
        .execute();
      return value;
    });
    return { value, committed };
  }

  /** How many jobs are not finished, and the oldest one's enqueue time (metrics). */
  async pendingStats(): Promise<{ pending: number; oldestCreatedAt?: string }> {
    const row = await this.db
      .selectFrom('jobs')
      .select((eb) => [eb.fn.countAll<number>().as('pending'), eb.fn.min('created_at').as('oldest')])
      .where('state', 'in', ['queued', 'running'])
      .executeTakeFirst();
    return { pending: Number(row?.pending ?? 0), oldestCreatedAt: (row?.oldest as string | null) ?? undefined };
  }

  /**
   * Deletes jobs that finished (done or failed) before `finishedBefore`: the
   * status resource keeps them JOB_RETENTION_SECONDS. Returns how many went.
   */
  async purgeFinished(finishedBefore: Date): Promise<number> {
    const gone = await this.db
      .deleteFrom('jobs')
      .where('state', 'in', ['done', 'failed'])
      .where('finished_at', '<', finishedBefore.toISOString())
      .executeTakeFirst();
    return Number(gone.numDeletedRows);
  }
}
