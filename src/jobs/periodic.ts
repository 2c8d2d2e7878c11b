// Work a process repeats on a timer (cleanup sweeps, purges): one run at a
// time, errors logged rather than thrown, and a stop that waits for the run
// in progress so nothing is cut halfway when the service closes.
import type { Logger } from 'pino';

export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly work: () => Promise<unknown>,
    private readonly log: Logger,
  ) {}

  /** Starts the timer; `now` also runs the work once at once (in the background). */
  start(opts: { now?: boolean } = {}): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.runOnce(), this.intervalMs);
    this.timer.unref();
    if (opts.now) this.runOnce();
  }

  /** One run, unless one is already in progress. */
  runOnce(): Promise<void> {
    this.running ??= this.work()
      .then(() => undefined)
      .catch((err: unknown) => this.log.error({ err, task: this.name }, 'periodic task failed; it runs again later'))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
