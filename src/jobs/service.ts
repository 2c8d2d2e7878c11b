// The job queue as features and the status resource see it
// (docs/batch-updates.md): enqueue (which wakes this process's worker), a
// user's job, the purge of finished jobs, and the job's error lines.
import { notFound } from '../core/errors.js';
import type { JobRow, UserRow } from '../database/schema.js';
import type { QueueStats } from '../ops/metrics.js';
import { LANES, type Lane } from './lanes.js';
import type { JobsRepository, LaneStats } from './repository.js';

/** At most this many error lines are kept on a job (the counts stay exact). */
export const MAX_JOB_ERRORS = 100;

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

/** A job as its status resource shows it. */
export interface JobStatus {
  job: JobRow;
  /** 1: the next its lane's workers take; undefined when a worker holds it or it is finished. */
  placeInLine?: number;
}

export class JobQueue {
  /** `wake` tells this process's worker to look now rather than at its next poll. */
  constructor(
    private readonly repo: JobsRepository,
    private readonly wake: () => void,
  ) {}

  /**
   * Queues `total` items of work of `kind` for `ownerId` in `lane` (interactive: what a user waits
   * for); the handler of `kind` reads `payload` (JSON-serialisable).
   */
  async enqueue(ownerId: number, kind: string, payload: unknown, total: number, lane: Lane): Promise<JobRow> {
    const job = await this.repo.enqueue({ ownerId, kind, payload, total, lane });
    this.wake();
    return job;
  }

  /**
   * This process's worker looks now rather than at its next poll (after the
   * commit of a transaction that queued a job with its own writes, through
   * JobsRepository.enqueue: src/media/file-life.ts).
   */
  wakeWorker(): void {
    this.wake();
  }

  /** A job of the user and its place in line when it waits; any other is a 404, as if it did not exist. */
  async status(user: Pick<UserRow, 'id'>, uuid: string): Promise<JobStatus> {
    // One lookup by owner rather than Access: the row is what the reply shows.
    const job = await this.repo.findOwned(user.id, uuid);
    if (!job) throw notFound(`job ${uuid}`);
    return { job, placeInLine: await this.repo.placeInLine(job) };
  }

  /** The user's latest jobs, newest first (the studio's job list; each one's status is GET /jobs/<uuid>.xml's). */
  latest(user: Pick<UserRow, 'id'>, limit: number): Promise<JobRow[]> {
    return this.repo.latestOwned(user.id, limit);
  }

  /** The queue as an operator sees it: per lane, how many wait or run and the oldest's age; the jobs running now. */
  async overview(runningLimit: number): Promise<{ lanes: LaneStats[]; running: Array<JobRow & { owner_email: string }> }> {
    const [lanes, running] = await Promise.all([this.repo.pendingStats(), this.repo.running(runningLimit)]);
    return { lanes, running };
  }

  /** Deletes jobs finished before `finishedBefore` (JOB_RETENTION_SECONDS); how many went. */
  purgeFinished(finishedBefore: Date): Promise<number> {
    return this.repo.purgeFinished(finishedBefore);
  }

  /** The queue's depth and age for the metrics, in all and per lane. */
  async stats(): Promise<QueueStats> {
    const stats = await this.repo.pendingStats();
    const age = (createdAt?: string) => (createdAt ? Math.max(0, (Date.now() - Date.parse(createdAt)) / 1000) : 0);
    const lanes = LANES.map((lane) => {
      const s = stats.find((x) => x.lane === lane);
      return { lane, pending: s?.pending ?? 0, oldestAgeSeconds: age(s?.oldestCreatedAt) };
    });
    return {
      pending: lanes.reduce((n, l) => n + l.pending, 0),
      oldestAgeSeconds: Math.max(0, ...lanes.map((l) => l.oldestAgeSeconds)),
      lanes,
    };
  }
}
