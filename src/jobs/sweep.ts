// The cleanup sweep (docs/uploads.md, docs/deploy.md): the parts each feature hands in, run one
// after another, each idempotent (several processes may sweep at once); a part that fails is
// logged and the others still run. Shared parts run on one worker at a time, local ones on every node.
import type { Logger } from 'pino';
import type { Exclusive } from '../ops/sweep-lock.js';
import { PeriodicTask } from './periodic.js';

/** What one run of the cleanup sweep removed. */
export interface SweepResult {
  /** Uploads whose step 3 never came. */
  uploads: number;
  /** Medias that never went live. */
  medias: number;
  tempFiles: number;
  /** Recorded file deletions carried out. */
  fileDeletions: number;
  /** Incoming objects removed that no pending upload pointed to. */
  incoming: number;
  jobs: number;
  /** Visitors' sign-in links long dead. */
  visitorLinks: number;
  /** Activity events and counters past ACTIVITY_RETENTION_DAYS. */
  activity: number;
  /** The studio's resumable uploads expired (an unfinished one with its bytes). */
  resumable: number;
  /** Expiry reminders mailed to galleries' clients. */
  reminders: number;
  /** Webhook events (with their deliveries) past WEBHOOK_LOG_RETENTION_DAYS. */
  webhookEvents: number;
}

/** One part of the sweep: `shared` work is the deployment's (under the lock), `local` this machine's (temporary files). */
export interface SweepPart {
  name: string;
  where: 'shared' | 'local';
  run(now: Date): Promise<Partial<SweepResult>>;
}

const NOTHING: SweepResult = { uploads: 0, medias: 0, tempFiles: 0, fileDeletions: 0, incoming: 0, jobs: 0, visitorLinks: 0, activity: 0, resumable: 0, reminders: 0, webhookEvents: 0 };

export class CleanupSweep {
  constructor(
    private readonly parts: readonly SweepPart[],
    private readonly log: Logger,
  ) {}

  /** Runs the parts of `which` once, as if it were `now`; what several parts count of one kind adds up. */
  async run(now = new Date(), which: 'all' | SweepPart['where'] = 'all'): Promise<SweepResult> {
    const result: SweepResult = { ...NOTHING };
    for (const part of this.parts) {
      if (which !== 'all' && part.where !== which) continue;
      try {
        for (const [key, n] of Object.entries(await part.run(now)) as Array<[keyof SweepResult, number]>) result[key] += n;
      } catch (err) {
        this.log.error({ err, part: part.name }, 'cleanup sweep: a part failed; the next sweep tries again');
      }
    }
    return result;
  }

  /**
   * Every `intervalMs` (and once at once): the local parts on this node, then, where `shared`
   * (a worker), the shared parts under the deployment-wide lock. Stop the task it returns.
   */
  start(intervalMs: number, shared: boolean, exclusive: Exclusive): PeriodicTask {
    const task = new PeriodicTask('cleanup sweep', intervalMs, async () => {
      const r = await this.run(new Date(), 'local');
      if (shared) await exclusive.run('cleanup-sweep', async () => Object.assign(r, await this.run(new Date(), 'shared'), { tempFiles: r.tempFiles }));
      if (Object.values(r).some((n) => n > 0)) this.log.info(r, 'cleanup sweep removed leftovers');
    }, this.log);
    task.start({ now: true });
    return task;
  }
}

/** Every so often, a fraction of the upload expiry: from 1 s to 10 min. */
export function sweepIntervalMs(uploadExpirySeconds: number): number {
  return Math.min(600_000, Math.max(1000, Math.floor((uploadExpirySeconds * 1000) / 4)));
}
