// Prometheus metrics (prom-client) of one process, on their own registry. They
// are never public by accident: served only on METRICS_PORT (a listener of its
// own, bound to HOST) or at /metrics behind METRICS_TOKEN, and not at all when
// neither is set.
import { timingSafeEqual, createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface QueueStats {
  /** Jobs not finished (queued or running). */
  pending: number;
  /** Seconds since the oldest unfinished job was enqueued (0 when none). */
  oldestAgeSeconds: number;
  /** The same per lane of the queue (interactive, background): every lane, 0 when empty. */
  lanes: Array<{ lane: string; pending: number; oldestAgeSeconds: number }>;
}

export interface MetricsSources {
  /** The job queue's depth and age, read when scraped. */
  queue?: () => Promise<QueueStats>;
  /** PostgreSQL pool counts, when the store has a pool. */
  pool?: () => { total: number; idle: number; waiting: number };
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route'>;
  private readonly rateLimited: Counter;
  private readonly uploadBytes: Counter;
  private readonly jobChunks: Histogram<'kind' | 'outcome'>;
  private readonly jobPrepares: Histogram<'kind' | 'outcome'>;
  private readonly watermarkDecodes: Counter;

  constructor(sources: MetricsSources = {}) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'mps_' });
    this.requests = new Counter({ name: 'mps_http_requests_total', help: 'HTTP requests by route pattern, method and status', labelNames: ['method', 'route', 'status'], registers });
    this.latency = new Histogram({ name: 'mps_http_request_duration_seconds', help: 'HTTP request latency by route pattern', labelNames: ['method', 'route'], buckets: LATENCY_BUCKETS, registers });
    this.rateLimited = new Counter({ name: 'mps_rate_limited_total', help: 'Requests refused by the rate limit or the login throttle (429)', registers });
    this.uploadBytes = new Counter({ name: 'mps_upload_bytes_total', help: 'Bytes of file bodies received (uploads through the service)', registers });
    this.jobChunks = new Histogram({ name: 'mps_job_chunk_duration_seconds', help: 'Duration of one job chunk by job kind', labelNames: ['kind', 'outcome'], buckets: LATENCY_BUCKETS, registers });
    // The slow step before a chunk's transaction (a rendition ladder, ffmpeg runs): its count is the ladders this process made.
    this.jobPrepares = new Histogram({ name: 'mps_job_prepare_duration_seconds', help: 'Duration of the slow step of a job chunk (renditions: the ladder) by job kind', labelNames: ['kind', 'outcome'], buckets: [...LATENCY_BUCKETS, 60, 120], registers });
    this.watermarkDecodes = new Counter({ name: 'mps_watermark_image_decodes_total', help: 'Watermark images decoded by the rendition ladders (one per ladder that draws one)', registers });
    const { queue, pool } = sources;
    if (queue) {
      // One query serves both gauges of a scrape.
      let pending: Promise<QueueStats> | undefined;
      const read = () => (pending ??= queue().finally(() => setTimeout(() => (pending = undefined), 100).unref()));
      new Gauge({ name: 'mps_jobs_pending', help: 'Jobs queued or running', registers, collect: async function () { this.set((await read()).pending); } });
      new Gauge({ name: 'mps_jobs_oldest_pending_age_seconds', help: 'Age of the oldest job not finished', registers, collect: async function () { this.set((await read()).oldestAgeSeconds); } });
      new Gauge({
        name: 'mps_jobs_lane_pending',
        help: 'Jobs queued or running, by lane of the queue (interactive, background)',
        labelNames: ['lane'],
        registers,
        collect: async function () {
          for (const l of (await read()).lanes) this.set({ lane: l.lane }, l.pending);
        },
      });
      new Gauge({
        name: 'mps_jobs_lane_oldest_age_seconds',
        help: 'Age of the oldest job not finished, by lane of the queue',
        labelNames: ['lane'],
        registers,
        collect: async function () {
          for (const l of (await read()).lanes) this.set({ lane: l.lane }, l.oldestAgeSeconds);
        },
      });
    }
    if (pool) {
      new Gauge({
        name: 'mps_db_pool_connections',
        help: 'PostgreSQL pool connections by state (waiting: queries waiting for a connection)',
        labelNames: ['state'],
        registers,
        collect() {
          const s = pool();
          this.set({ state: 'total' }, s.total);
          this.set({ state: 'idle' }, s.idle);
          this.set({ state: 'waiting' }, s.waiting);
        },
      });
    }
  }

  /** Counts every response of `fastify` (installed only when metrics are on: it costs on every request). */
  instrument(fastify: FastifyInstance): void {
    fastify.addHook('onResponse', (req, reply, done) => {
      const route = req.routeOptions.url ?? '(unmatched)';
      const status = reply.statusCode;
      this.requests.inc({ method: req.method, route, status: String(status) });
      this.latency.observe({ method: req.method, route }, reply.elapsedTime / 1000);
      if (status === 429) this.rateLimited.inc();
      if (status < 300 && isFileBody(req.headers['content-type'])) {
        const length = Number(req.headers['content-length']);
        if (Number.isFinite(length) && length > 0) this.uploadBytes.inc(length);
      }
      done();
    });
  }

  /** A job handler's chunk, timed. */
  timeChunk<T>(kind: string, run: () => Promise<T>): Promise<T> {
    return timed(this.jobChunks, kind, run);
  }

  /** A watermark image was decoded (src/renditions/ladder.ts). */
  watermarkDecoded(): void {
    this.watermarkDecodes.inc();
  }

  /** A job handler's slow step before its chunk, timed. */
  timePrepare<T>(kind: string, run: () => Promise<T>): Promise<T> {
    return timed(this.jobPrepares, kind, run);
  }

  /** GET /metrics on the API port, answered only with `Authorization: Bearer <token>`. */
  installRoute(fastify: FastifyInstance, token: string): void {
    const expected = createHash('sha256').update(token).digest();
    fastify.get('/metrics', async (req, reply) => {
      const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
      // Hashes of equal length: the comparison's time says nothing about the token.
      if (!timingSafeEqual(createHash('sha256').update(given).digest(), expected)) {
        reply.code(401).header('www-authenticate', 'Bearer').type('text/plain; charset=utf-8');
        return 'metrics need Authorization: Bearer <METRICS_TOKEN>\n';
      }
      reply.type(this.registry.contentType).header('cache-control', 'no-store');
      return this.registry.metrics();
    });
  }

  /** The metrics alone on `port` (0: any free port), bound to `host`; everything else is a 404. */
  async listen(port: number, host: string): Promise<Server> {
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: GET /metrics\n');
        return;
      }
      this.registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': this.registry.contentType, 'cache-control': 'no-store' }).end(body),
        () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n'),
      );
    });
    server.on('clientError', (_err, socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return server;
  }
}

function isFileBody(contentType: string | undefined): boolean {
  return contentType !== undefined && !contentType.startsWith('application/x-www-form-urlencoded');
}

function timed<T>(histogram: Histogram<'kind' | 'outcome'>, kind: string, run: () => Promise<T>): Promise<T> {
  const end = histogram.startTimer({ kind });
  return run().then(
    (v) => {
      end({ outcome: 'done' });
      return v;
    },
    (err: unknown) => {
      end({ outcome: 'failed' });
      throw err;
    },
  );
}

