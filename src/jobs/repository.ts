// SQL of the job queue (docs/batch-updates.md): enqueue, the status lookup,
// claim with a lease, give back, fail, the chunk transaction, purge. Every
// write of a worker is guarded by its lease (`locked_by`).
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { nowIso, type Db, type Store } from '../database/db.js';
import type { JobRow } from '../database/schema.js';
import { unitOf, type Unit } from '../database/unit-of-work.js';
import { LANE_NUMBER, laneName, type Lane } from './lanes.js';

export interface NewJob {
  ownerId: number;
  kind: string;
  /** JSON-serialisable; the handler of `kind` reads it. */
  payload: unknown;
  /** Number of items the payload holds; the cursor runs from 0 to total. */
  total: number;
  lane: Lane;
}

/** Unfinished jobs of one lane (metrics). */
export interface LaneStats {
  lane: Lane;
  pending: number;
  oldestCreatedAt?: string;
}

/** Unfinished: what the partial indexes of the queue hold (migration 009). */
const PENDING = sql`state IN ('queued', 'running')`;

/** Where a chunk leaves the job: the cursor's new place, the counts to add, the job's error lines. */
export interface CursorMove {
  end: number;
  processed: number;
  failed: number;
  errors: string[];
}

/**
 * Which jobs a runner may claim: any, or only those of owners with no job of
 * the lane held by a runner now ("newcomers": the runner kept for them, so
 * that an owner's first job never waits for another owner's running ones).
 */
export type ClaimScope = 'any' | 'newcomers';

/** How far into the line the newcomers' runner looks (index entries, whatever the line's length). */
const NEWCOMER_WINDOW = 64;

/** `front.owner_id` holds no job of lane `n` under a live lease (a lapsed lease is a job to take over, not one running). */
function nothingRunning(n: number, now: string) {
  return sql`NOT EXISTS (
    SELECT 1 FROM jobs AS held
    WHERE held.owner_id = front.owner_id AND held.lane = ${n} AND held.state IN ('queued', 'running')
      AND held.locked_by IS NOT NULL AND held.locked_until >= ${now})`;
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

  /**
   * Queues the job at its owner's next turn in its lane: one after the
   * owner's last unfinished job there, and never before the lane's current
   * turn (the lowest turn a worker holds or may take now). So an owner new to
   * the lane is at most one job from the front (a job already waiting at that
   * turn goes first), and owners with many jobs take turns, one job each
   * (start-time fair queuing, with a job as the unit). Two reads of the
   * partial indexes, whatever the queue's length.
   */
  async enqueue(job: NewJob, tx: Db = this.db): Promise<JobRow> {
    const now = nowIso();
    const lane = LANE_NUMBER[job.lane];
    // A job waiting out a retry delay (released, locked_until ahead) does not hold the lane's turn back.
    const { rows } = await sql<{ owner_last: number | null; lane_now: number | null }>`
      SELECT
        (SELECT max(turn) FROM jobs WHERE owner_id = ${job.ownerId} AND lane = ${lane} AND ${PENDING}) AS owner_last,
        (SELECT min(turn) FROM jobs WHERE lane = ${lane} AND ${PENDING} AND (locked_by IS NOT NULL OR locked_until IS NULL)) AS lane_now`.execute(tx);
    const ownerLast = rows[0]?.owner_last;
    const laneNow = Number(rows[0]?.lane_now ?? 0);
    const turn = ownerLast === null || ownerLast === undefined ? laneNow : Math.max(Number(ownerLast) + 1, laneNow);
    return tx
      .insertInto('jobs')
      .values({
        uuid: randomUUID(),
        owner_id: job.ownerId,
        kind: job.kind,
        state: 'queued',
        payload: JSON.stringify(job.payload),
        total: job.total,
        lane,
        turn,
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

  /** The user's latest jobs, newest first (the studio's job list). */
  latestOwned(ownerId: number, limit: number): Promise<JobRow[]> {
    return this.db.selectFrom('jobs').selectAll().where('owner_id', '=', ownerId).orderBy('id', 'desc').limit(limit).execute();
  }

  /** Jobs a worker holds now, oldest first, with their owner's e-mail (the administration's queue). */
  running(limit: number): Promise<Array<JobRow & { owner_email: string }>> {
    return this.db
      .selectFrom('jobs')
      .innerJoin('users', 'users.id', 'jobs.owner_id')
      .selectAll('jobs')
      .select('users.email as owner_email')
      .where('jobs.state', '=', 'running')
      .orderBy('jobs.id')
      .limit(limit)
      .execute();
  }

  /**
   * Takes the next job of `lane` (lowest turn, then oldest) whose lease is
   * free or expired, in one statement: PostgreSQL skips rows another worker
   * has locked; SQLite runs the statement under its single writer lock, so two
   * workers never get the same job. With `only` 'newcomers' it takes the
   * first job, among the first NEWCOMER_WINDOW in line, of an owner with no
   * job of the lane held now. That is a rule of fairness, not of safety: on
   * PostgreSQL two claims at the same instant may both see an owner with
   * nothing running, and the newcomers' runner then runs one more of that
   * owner's jobs (once; each job is still claimed by one runner only).
   */
  async claim(workerId: string, leaseSeconds: number, lane: Lane, only: ClaimScope = 'any', db: Db = this.db): Promise<JobRow | undefined> {
    const now = nowIso();
    const n = LANE_NUMBER[lane];
    const free = sql`lane = ${n} AND ${PENDING} AND (locked_until IS NULL OR locked_until < ${now})`;
    // A read first: an idle poll then never takes the write lock (SQLite) or row locks.
    const candidate = await (only === 'any'
      ? sql<{ id: number }>`SELECT id FROM jobs WHERE ${free} LIMIT 1`
      : sql<{ id: number }>`SELECT id FROM (SELECT id, owner_id FROM jobs WHERE ${free} ORDER BY turn, id LIMIT ${NEWCOMER_WINDOW}) AS front
          WHERE ${nothingRunning(n, now)}
          LIMIT 1`
    ).execute(db);
    if (candidate.rows.length === 0) return undefined;
    const skipLocked = this.store.dialect === 'postgres' ? sql`FOR UPDATE SKIP LOCKED` : sql``;
    // The newcomers' runner looks at the front of the line only (NEWCOMER_WINDOW jobs): a bounded read
    // whatever the line's length. A newcomer's job is queued at the lane's current turn, so it is there.
    const pick =
      only === 'any'
        ? sql`SELECT id FROM jobs WHERE ${free} ORDER BY turn, id LIMIT 1 ${skipLocked}`
        : // The outer query says again that the job is free: PostgreSQL re-checks only the outer conditions
          // of a row it waited for, so a job another runner claimed and committed meanwhile would
          // otherwise pass on the inner read's word and be claimed twice.
          sql`SELECT id FROM jobs WHERE ${free} AND id IN (
              SELECT id FROM (SELECT id, owner_id FROM jobs WHERE ${free} ORDER BY turn, id LIMIT ${NEWCOMER_WINDOW}) AS front
              WHERE ${nothingRunning(n, now)})
            ORDER BY turn, id LIMIT 1 ${skipLocked}`;
    const result = await sql<JobRow>`
      UPDATE jobs SET state = 'running', locked_by = ${workerId}, locked_until = ${leaseUntil(leaseSeconds)},
        attempts = attempts + 1, started_at = COALESCE(started_at, ${now}), updated_at = ${now}
      WHERE id = (${pick})
      RETURNING *`.execute(db);
    return result.rows[0];
  }

  /**
   * The end of a turn (a chunk committed, the job not finished): gives the
   * job back and claims the next job of the lane, in one transaction, so the
   * job is never without a lease should the process die in between. The next
   * job may be the same one (no other owner waits before its new turn). The
   * job given back loses the attempt its next claim adds: a turn is no new
   * attempt. Does nothing but claim when the lease was lost meanwhile.
   */
  async passTurn(jobId: number, workerId: string, leaseSeconds: number, lane: Lane, only: ClaimScope = 'any'): Promise<JobRow | undefined> {
    return this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('jobs')
        .set((eb) => ({ locked_by: null, locked_until: null, attempts: eb('attempts', '-', 1) }))
        .where('id', '=', jobId)
        .where('locked_by', '=', workerId)
        .execute();
      return this.claim(workerId, leaseSeconds, lane, only, trx);
    });
  }

  /** Extends the lease of a job the worker holds (the heartbeat of a long chunk); false when it was lost. */
  async renew(jobId: number, workerId: string, leaseSeconds: number): Promise<boolean> {
    const r = await this.db
      .updateTable('jobs')
      .set({ locked_until: leaseUntil(leaseSeconds) })
      .where('id', '=', jobId)
      .where('locked_by', '=', workerId)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * The job's place in line: 1 + the unfinished jobs of its lane no worker
   * holds that will be claimed before it; undefined when it is not waiting (a
   * worker holds it, or it is finished). Counts index entries of the partial
   * index up to the job's place, so it costs what the line before it is long.
   */
  async placeInLine(job: Pick<JobRow, 'id' | 'lane' | 'turn' | 'state' | 'locked_by'>): Promise<number | undefined> {
    if ((job.state !== 'queued' && job.state !== 'running') || job.locked_by !== null) return undefined;
    const { rows } = await sql<{ ahead: number | string }>`
      SELECT count(*) AS ahead FROM jobs
      WHERE lane = ${job.lane} AND ${PENDING} AND locked_by IS NULL
        AND (turn < ${job.turn} OR (turn = ${job.turn} AND id < ${job.id}))`.execute(this.db);
    return Number(rows[0]?.ahead ?? 0) + 1;
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
   * work and its cursor move commit together or not at all. A chunk is one
   * turn: one that leaves work moves the job one turn later (and the owner's
   * later jobs of the lane with it, so that they keep their order), still
   * leased to the worker, which then passes the turn (passTurn). Throws LeaseLost,
   * having done nothing, when the lease was taken over. `committed` runs what
   * `work` left for after the commit: the worker calls it, so that its failure
   * is not taken for the chunk's.
   */
  async runChunk<T>(
    job: Pick<JobRow, 'id' | 'total' | 'owner_id' | 'lane' | 'turn'>,
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
      if (!last) {
        await sql`UPDATE jobs SET turn = turn + 1
          WHERE owner_id = ${job.owner_id} AND lane = ${job.lane} AND ${PENDING} AND turn >= ${job.turn}`.execute(trx);
      }
      return value;
    });
    return { value, committed };
  }

  /** Per lane, how many jobs are not finished and the oldest one's enqueue time (metrics). */
  async pendingStats(): Promise<LaneStats[]> {
    const { rows } = await sql<{ lane: number; pending: number | string; oldest: string | null }>`
      SELECT lane, count(*) AS pending, min(created_at) AS oldest FROM jobs WHERE ${PENDING} GROUP BY lane`.execute(this.db);
    return rows.map((r) => ({ lane: laneName(Number(r.lane)), pending: Number(r.pending), oldestCreatedAt: r.oldest ?? undefined }));
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
