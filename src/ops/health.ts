// GET /healthz (the process lives) and GET /readyz (its dependencies answer and
// it is not draining): unsigned, outside the API's rate limit, plain text, so a
// load balancer or orchestrator needs no API key.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

export interface ReadinessCheck {
  name: string;
  check(): Promise<unknown>;
}

/** A check that has not answered within this is a failure: a probe must not hang. */
const CHECK_TIMEOUT_MS = 2000;

export class Readiness {
  private draining = false;

  constructor(
    private readonly checks: readonly ReadinessCheck[],
    private readonly log: Logger,
  ) {}

  /** From now on /readyz answers 503 (SIGTERM): the balancer stops sending new work. */
  drain(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** The names of the failing dependencies (empty: ready). */
  async failures(): Promise<string[]> {
    if (this.draining) return ['draining'];
    const results = await Promise.all(
      this.checks.map(async ({ name, check }) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            check(),
            new Promise((_, reject) => {
              timer = setTimeout(() => reject(new Error(`no answer in ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
            }),
          ]);
          return undefined;
        } catch (err) {
          this.log.warn({ err, dependency: name }, 'readiness: dependency unreachable');
          return name;
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    return results.filter((n): n is string => n !== undefined);
  }
}

export function installHealthRoutes(fastify: FastifyInstance, readiness: Readiness): void {
  fastify.get('/healthz', async (_req, reply) => {
    reply.header('cache-control', 'no-store').type('text/plain; charset=utf-8');
    return 'ok\n';
  });
  fastify.get('/readyz', async (_req, reply) => {
    const failing = await readiness.failures();
    reply.header('cache-control', 'no-store').type('text/plain; charset=utf-8');
    if (failing.length === 0) return 'ready\n';
    reply.code(503);
    return `not ready: ${failing.join(', ')}\n`;
  });
}
