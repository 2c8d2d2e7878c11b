// The background worker: runners per lane (src/jobs/lanes.ts), each claiming
// one job at a time and running one chunk of it per turn (then the lane's next
// job, maybe the same). Each chunk's work and the cursor move commit together,
// guarded by the runner's lease (renewed while the job is held), so a restart
// resumes after the last committed chunk and never redoes one.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { JobSettings } from '../config.js';
import type { Logger } from 'pino';
import type { JobRow } from '../database/schema.js';
import type { JobHandlers } from './handlers.js';
import type { Lane } from './lanes.js';
import { LeaseLost, type ClaimScope, type JobsRepository } from './repository.js';
import { appendErrors, parseErrors } from './service.js';

/** One claim-and-run loop of a lane; its id is the lease holder's name on the jobs it claims. */
class Runner {
  stopping = false;
  running: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;

  constructor(
    readonly id: string,
    readonly lane: Lane,
    /** Which jobs of the lane it claims: any, or only those of owners with none running (the runner kept for newcomers). */
    readonly scope: ClaimScope = 'any',
  ) {}

  wake(): void {
    this.wakeUp?.();
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wakeUp = undefined;
        resolve();
      }
      this.wakeUp = done;
    });
  }
}

export class JobWorker {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly runners: Runner[];

  constructor(
    private readonly repo: JobsRepository,
    private readonly log: Logger,
    private readonly handlers: JobHandlers,
    readonly options: JobSettings,
  ) {
    // Each lane has runners of its own: interactive work never waits for a background runner to be free.
    // Every runner leases under its own name, so two runners of one process never share a lease.
    this.runners = [
      ...Array.from({ length: options.interactiveConcurrency }, (_, i) => new Runner(`${this.id}/i${i}`, 'interactive')),
      ...Array.from({ length: options.backgroundConcurrency }, (_, i) => new Runner(`${this.id}/b${i}`, 'background')),
      // Kept for owners with no background job running: one photographer's long line of renditions
      // never makes another's first one wait for a running ladder (issue 22: within 3 x one rendition).
      ...Array.from({ length: options.newcomerConcurrency }, (_, i) => new Runner(`${this.id}/n${i}`, 'background', 'newcomers')),
    ];
  }

  start(): void {
    for (const r of this.runners) {
      if (r.running) continue;
      r.stopping = false;
      r.running = this.loop(r);
    }
  }

  /** Finishes the chunks in progress, gives their jobs back, and returns; start() may follow. */
  async stop(): Promise<void> {
    for (const r of this.runners) {
      r.stopping = true;
      r.wake();
    }
    await Promise.all(this.runners.map((r) => r.running));
    for (const r of this.runners) r.running = undefined;
  }

  /** A job was enqueued in this process: look now rather than at the next poll. */
  wake(): void {
    for (const r of this.runners) r.wake();
  }

  private async loop(r: Runner): Promise<void> {
    // The job claimed at the end of the previous turn (passTurn), if any.
    let next: JobRow | undefined;
    while (!r.stopping) {
      let job = next;
      next = undefined;
      if (!job) {
        try {
          job = await this.repo.claim(r.id, this.options.leaseSeconds, r.lane, r.scope);
        } catch (err) {
          this.log.error({ err, lane: r.lane }, 'job queue: claiming failed');
        }
      }
      if (job) {
        const held = job;
        // The lease is renewed while the job is held, however long its chunk takes (a video's ladder and ffmpeg runs).
        const beat = this.heartbeat(r, held);
        try {
          // A failure outside a chunk (the database gone while failing or finishing a job) must not end the runner:
          // the job's lease expires and it is taken over.
          const more = await this.run(r, held).catch((err: unknown) => {
            this.log.error({ err, job: held.uuid, lane: r.lane }, 'job run failed; its lease lets another runner take it over');
            return false;
          });
          if (more) next = await this.endTurn(r, held);
        } finally {
          await beat.stop();
        }
      } else if (!r.stopping) await r.sleep(this.options.pollMs);
    }
  }

  /**
   * Renews the job's lease every third of JOB_LEASE_SECONDS until stopped, so that no other
   * worker takes over a job whose chunk runs longer than the lease. A process that dies stops
   * renewing: its jobs are taken over once their lease runs out, as before.
   */
  private heartbeat(r: Runner, job: JobRow): { stop(): Promise<void> } {
    let beating: Promise<void> = Promise.resolve();
    const timer = setInterval(
      () => {
        beating = beating.then(async () => {
          const held = await this.repo.renew(job.id, r.id, this.options.leaseSeconds).catch((err: unknown) => {
            this.log.error({ err, job: job.uuid }, 'job lease renewal failed');
            return true;
          });
          // Not held any more: the job finished or was given back as the renewal waited for the chunk's
          // transaction (which renews the lease itself), or it was lost, which the chunk's own check reports.
          if (!held) clearInterval(timer);
        });
      },
      Math.max(100, (this.options.leaseSeconds * 1000) / 3),
    );
    timer.unref();
    return {
      stop: async () => {
        clearInterval(timer);
        await beating;
      },
    };
  }

  /**
   * After a chunk that left work: the pause between chunks, then the job is given back and the
   * lane's next job claimed in one step (another owner's, or this one again when it is next);
   * at shutdown, only given back.
   */
  private async endTurn(r: Runner, job: JobRow): Promise<JobRow | undefined> {
    if (this.options.chunkPauseMs > 0 && !r.stopping) await r.sleep(this.options.chunkPauseMs);
    try {
      if (!r.stopping) return await this.repo.passTurn(job.id, r.id, this.options.leaseSeconds, r.lane, r.scope);
      await this.repo.release(job.id, r.id);
      this.log.info({ job: job.uuid }, 'job released at shutdown; it resumes on the next start');
    } catch (err) {
      this.log.error({ err, job: job.uuid, lane: r.lane }, 'job turn could not be passed; its lease lets another runner take it over');
    }
    return undefined;
  }

  /** One turn of the job: one chunk. True when the chunk committed and work is left (the job is still this runner's). */
  private async run(r: Runner, job: JobRow): Promise<boolean> {
    const workerId = r.id;
    const log = this.log.child({ job: job.uuid, kind: job.kind });
    const handler = this.handlers.get(job.kind);
    if (!handler) return this.fail(workerId, job, `no handler for job kind ${job.kind}`);
    let payload: unknown;
    try {
      payload = JSON.parse(job.payload);
    } catch {
      return this.fail(workerId, job, 'unreadable payload');
    }
    if (job.attempts > this.options.maxAttempts) {
      await handler.giveUp?.(job, payload).catch((err: unknown) => log.error({ err }, 'job give-up step failed'));
      return this.fail(workerId, job, `given up after ${job.attempts - 1} attempts`);
    }
    const cursor = job.cursor;
    const errors = parseErrors(job.errors);
    if (cursor >= job.total) {
      await this.repo.finish(job.id, workerId);
      return false;
    }
    const end = Math.min(cursor + this.options.chunkSize, job.total);
    let afterCommit: () => Promise<void>;
    try {
      const prepared = handler.prepare ? await handler.prepare(job, payload, cursor, end) : undefined;
      ({ committed: afterCommit } = await this.repo.runChunk(job, workerId, cursor, this.options.leaseSeconds, async (unit) => {
        const r = await handler.runChunk(unit, job, payload, cursor, end, prepared);
        return { value: r, move: { end, processed: r.processed, failed: r.failed, errors: appendErrors(errors, r.errors) } };
      }));
    } catch (err) {
      if (err instanceof LeaseLost) {
        log.warn('job lease lost to another worker; leaving it');
        return false;
      }
      log.error({ err, cursor }, 'job chunk failed; the job is retried later');
      const backoff = Math.min(300, this.options.retrySeconds * 2 ** Math.max(0, job.attempts - 1));
      // The rolled-back chunk's lines are not kept; the failure itself is, for the status resource.
      const lines = appendErrors(errors, [`attempt ${job.attempts} failed at item ${cursor + 1} (see the service log); it is retried`]);
      await this.repo.release(job.id, workerId, backoff, lines).catch((e) => log.error({ err: e }, 'job release failed'));
      return false;
    }
    await afterCommit().catch((err: unknown) => log.error({ err }, 'job after-commit step failed'));
    if (end < job.total) return true;
    log.info({ total: job.total }, 'job done');
    return false;
  }

  private async fail(workerId: string, job: JobRow, message: string): Promise<false> {
    await this.repo.fail(job.id, workerId, appendErrors(parseErrors(job.errors), [message]));
    return false;
  }
}
