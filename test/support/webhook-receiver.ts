// A webhook receiver for the tests (docs/integrations.md "Webhooks"): an HTTP server on 127.0.0.1
// keeping every request it got, answering 200 (or 500 for the first `failFirst`); and waits on the
// service's outbox.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { World } from './world.js';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/** Answers `failFirst` requests with 500 (a 5000-byte body, longer than the log's excerpt), then 200; or what `answer` says, after `delayMs`. */
export class Receiver {
  readonly got: Received[] = [];
  failFirst = 0;
  delayMs = 0;
  answer?: (n: number) => { status: number; headers?: Record<string, string>; body?: string };
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const n = this.got.length;
        const a = this.answer?.(n) ?? { status: n < this.failFirst ? 500 : 200, body: n < this.failFirst ? 'x'.repeat(5000) : 'ok' };
        this.got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status: a.status });
        setTimeout(() => {
          res.writeHead(a.status, a.headers ?? {});
          res.end(a.body ?? '');
        }, this.delayMs);
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  /** Delivered (2xx) requests, parsed, with their webhook-id. */
  delivered(): Array<{ id: string; type: string; data: Record<string, unknown>; raw: Received }> {
    return this.got.filter((g) => g.status < 300).map((g) => ({ id: String(g.headers['webhook-id']), ...(JSON.parse(g.body) as { type: string; data: Record<string, unknown> }), raw: g }));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

export async function until<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 60_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Until no delivery waits or runs (a receiver has the request before its answer is recorded). */
export function settled(w: World): Promise<boolean> {
  return until('deliveries settled', async () => !(await w.svc.db.selectFrom('webhook_deliveries').select('id').where('state', '=', 'pending').executeTakeFirst()));
}

/** The environment that lets deliveries reach a receiver on loopback quickly. */
export const FAST_WEBHOOKS = { WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_RETRY_MAX_MS: '400', VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0' };
