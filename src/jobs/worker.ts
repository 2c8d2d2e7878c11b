// The background worker: claims one job at a time and runs it chunk by chunk.
// Each chunk's work and the cursor move commit together, guarded by the lease,
// so a restart resumes after the last committed chunk and never redoes one.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { JobSettings } from '../config.js';
import type { Logger } from 'pino';
import type { JobRow } from '../store/schema.js';
import type { JobHandlers } from './handlers.js';
import { LeaseLost, type JobsRepository } from './repository.js';
import { appendErrors, parseErrors } from './service.js';

export class JobWorker {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private stopping = false;
  private running: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;

  constructor(
    private readonly repo: JobsRepository,
    private readonly log: Logger,
    private readonly handlers: JobHandlers,
    readonly options: JobSettings,
  ) {}

  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.running = this.loop();
  }

  /** Finishes the chunk in progress, gives the job back, and returns; start() may follow. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeUp?.();
    await this.running;
    this.running = undefined;
  }

  /** A job was enqueued in this process: look now rather than at the next poll. */
  wake(): void {
    this.wakeUp?.();
  }

  private sleep(ms: number): Promise<void> {
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

  private async loop(): Promise<void> {
    while (!this.stopping) {
      let job: JobRow | undefined;
      try {
        job = await this.repo.claim(this.id, this.options.leaseSeconds);
      } catch (err) {
        this.log.error({ err }, 'job queue: claiming failed');
      }
      if (job) await this.run(job);
      else if (!this.stopping) await this.sleep(this.options.pollMs);
    }
  }

  private async run(job: JobRow): Promise<void> {
    const log = this.log.child({ job: job.uuid, kind: job.kind });
    const handler = this.handlers.get(job.kind);
    if (!handler) return this.fail(job, `no handler for job kind ${job.kind}`);
    let payload: unknown;
    try {
      payload = JSON.parse(job.payload);
    } catch {
      return this.fail(job, 'unreadable payload');
    }
    if (job.attempts > this.options.maxAttempts) {
      await handler.giveUp?.(job, payload).catch((err: unknown) => log.error({ err }, 'job give-up step failed'));
      return this.fail(job, `given up after ${job.attempts - 1} attempts`);
    }
    let cursor = job.cursor;
    let errors = parseErrors(job.errors);
    if (cursor >= job.total) return this.repo.finish(job.id, this.id);
    while (cursor < job.total) {
      if (this.stopping) {
        await this.repo.release(job.id, this.id);
        log.info({ cursor, total: job.total }, 'job released at shutdown; it resumes on the next start');
        return;
      }
      const end = Math.min(cursor + this.options.chunkSize, job.total);
      let afterCommit: () => Promise<void>;
      let nextErrors = errors;
      try {
        const prepared = handler.prepare ? await handler.prepare(job, payload, cursor, end) : undefined;
        ({ committed: afterCommit } = await this.repo.runChunk(job, this.id, cursor, this.options.leaseSeconds, async (unit) => {
          const r = await handler.runChunk(unit, job, payload, cursor, end, prepared);
          nextErrors = appendErrors(errors, r.errors);
          return { value: r, move: { end, processed: r.processed, failed: r.failed, errors: nextErrors } };
        }));
      } catch (err) {
        if (err instanceof LeaseLost) {
          log.warn('job lease lost to another worker; leaving it');
          return;
        }
        log.error({ err, cursor }, 'job chunk failed; the job is retried later');
        const backoff = Math.min(300, this.options.retrySeconds * 2 ** Math.max(0, job.attempts - 1));
        // The rolled-back chunk's lines are not kept; the failure itself is, for the status resource.
        const lines = appendErrors(errors, [`attempt ${job.attempts} failed at item ${cursor + 1} (see the service log); it is retried`]);
        await this.repo.release(job.id, this.id, backoff, lines).catch((e) => log.error({ err: e }, 'job release failed'));
        return;
      }
      cursor = end;
      errors = nextErrors;
      await afterCommit().catch((err: unknown) => log.error({ err }, 'job after-commit step failed'));
      if (this.options.chunkPauseMs > 0 && cursor < job.total && !this.stopping) await this.sleep(this.options.chunkPauseMs);
    }
    log.info({ total: job.total }, 'job done');
  }

  private fail(job: JobRow, message: string): Promise<void> {
    return this.repo.fail(job.id, this.id, appendErrors(parseErrors(job.errors), [message]));
  }
}
