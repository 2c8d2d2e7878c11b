// SIGTERM / SIGINT: readiness goes false at once, the listener closes (the
// balancer's new connections go to other nodes), requests in flight finish
// within SHUTDOWN_TIMEOUT_SECONDS (then their connections are cut), keep-alive
// connections close after their current request, the worker finishes its chunk
// and gives its job back so another worker takes it at once; then exit 0.
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Readiness } from './health.js';

export interface Stoppable {
  readiness: Readiness;
  /** The API listener, whose last connections are cut at the deadline. */
  server: Server;
  /** Closes everything (src/app.ts App.close). */
  close(): Promise<void>;
}

export function stopOnSignals(target: Stoppable, log: Logger, timeoutMs: number, exit: (code: number) => void = (code) => process.exit(code)): void {
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      void stop(target, log, timeoutMs, signal).then(exit);
    });
  }
}

/** Drains and closes; the exit code (0 when everything closed). */
export async function stop(target: Stoppable, log: Logger, timeoutMs: number, signal = 'SIGTERM'): Promise<number> {
  log.info({ signal, timeoutMs }, 'stopping: not ready any more, finishing requests in flight');
  target.readiness.drain();
  const deadline = setTimeout(() => {
    log.warn({ timeoutMs }, 'stopping: requests still in flight at the deadline; their connections are cut');
    target.server.closeAllConnections();
  }, timeoutMs);
  deadline.unref();
  try {
    await target.close();
    log.info('stopped');
    return 0;
  } catch (err) {
    log.error({ err }, 'error while stopping');
    return 1;
  } finally {
    clearTimeout(deadline);
  }
}
