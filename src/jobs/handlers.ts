// What the worker knows about each kind of job: features provide handlers,
// the composition root hands them to the worker.
import type { JobRow } from '../database/schema.js';
import type { Unit } from '../database/unit-of-work.js';

export interface ChunkResult {
  /** Items of the chunk that were handled (successfully or not). */
  processed: number;
  /** Items that could not be handled; each gets a line in `errors` (capped). */
  failed: number;
  errors: string[];
}

export interface JobHandler<Prepared = unknown> {
  /**
   * Slow work for items [start, end) that must not hold a transaction open
   * (decoding images, storing files): runs before the chunk's transaction,
   * whose runChunk receives its result. A throw counts as a failed chunk.
   */
  prepare?(job: JobRow, payload: unknown, start: number, end: number): Promise<Prepared>;
  /**
   * Handles items [start, end) of the payload in `unit`, whose transaction
   * also moves the job's cursor, so a chunk is applied exactly once. Work for
   * after the commit (removing stored files) goes to `unit.afterCommit`.
   */
  runChunk(unit: Unit, job: JobRow, payload: unknown, start: number, end: number, prepared?: Prepared): Promise<ChunkResult>;
  /** The job is given up after too many attempts: leave what it was about in a final state. */
  giveUp?(job: JobRow, payload: unknown): Promise<void>;
}

/** The handler of each kind of job, built once by the composition root (src/app.ts). */
export type JobHandlers = ReadonlyMap<string, JobHandler<any>>;

/** What times the chunks (the metrics, src/ops/metrics.ts), by job kind. */
export interface ChunkTimer {
  timeChunk<T>(kind: string, work: () => Promise<T>): Promise<T>;
  timePrepare<T>(kind: string, work: () => Promise<T>): Promise<T>;
}

/** The handlers of each feature (`[kind, handler]`, e.g. `MediaService.jobHandler()`), each chunk timed when a timer is given. */
export function jobHandlers(entries: ReadonlyArray<readonly [string, JobHandler<any>]>, timer?: ChunkTimer): JobHandlers {
  if (!timer) return new Map(entries);
  return new Map(
    entries.map(([kind, h]) => {
      const prepare = h.prepare;
      const timed: JobHandler<any> = {
        ...h,
        runChunk: (...args: Parameters<typeof h.runChunk>) => timer.timeChunk(kind, () => h.runChunk(...args)),
        ...(prepare ? { prepare: (...args: Parameters<typeof prepare>) => timer.timePrepare(kind, () => prepare(...args)) } : {}),
      };
      return [kind, timed] as const;
    }),
  );
}
