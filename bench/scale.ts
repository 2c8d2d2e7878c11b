// Running at scale (issue 10): authenticated whoami on PostgreSQL (sessions in
// PostgreSQL, rate limits in Redis) against the same on SQLite, both with the
// rate limit on, in alternating rounds; PostgreSQL without Redis (sessions
// cached 5 s in the process) shows what dropping the cache costs; and one node
// behind nginx against the same node alone. Needs BENCH_DATABASE_URL (or
// TEST_DATABASE_URL), BENCH_REDIS_URL (or TEST_REDIS_URL) and nginx; a missing
// one is reported and its lines left out.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaPortfolioClient } from '../src/client/index.js';
import { buildCore } from '../src/app.js';
import { findNginx, startNginx } from '../test/support/nginx.js';
import { freshPgDatabase } from '../test/support/pg.js';
import { freePort } from '../test/support/processes.js';
import { type BenchContext, type BenchLine, median, runLoad, signedHeaders, stopChild } from './lib.js';

const PG_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// Never refuses during the load, but every request goes through the limiter's store.
const RATE_LIMIT = '100000000/60s';

interface Node {
  url: string;
  child: ChildProcess;
  load(): ReturnType<typeof runLoad>;
  close(): Promise<void>;
}

/** A built service process (dist/main.js, built by bench/run.ts) with a user logged in. */
async function startNode(name: string, env: Record<string, string>): Promise<Node> {
  const dataDir = await mkdtemp(join(tmpdir(), `mps-bench-${name}-`));
  let dropDb: (() => Promise<void>) | undefined;
  let databaseUrl: string | undefined;
  if (env.DATABASE_URL === 'fresh') {
    const fresh = await freshPgDatabase(PG_URL!, 'mps_bench');
    databaseUrl = fresh.url;
    dropDb = fresh.drop;
  }
  const core = await buildCore({ dataDir, databaseUrl });
  const password = 'bench-' + randomBytes(6).toString('hex');
  const { user } = await core.users.create({ email: `${name}@example.com`, password });
  const app = await core.apps.create(name);
  await core.close();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['dist/main.js'], {
    env: { ...process.env, ...env, DATABASE_URL: databaseUrl ?? '', DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', STORAGE_URL: '', PUBLIC_URL: url, RATE_LIMIT, ...(env.RATE_LIMIT ? { RATE_LIMIT: env.RATE_LIMIT } : {}) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const client = new MediaPortfolioClient({ baseUrl: url, apiKey: app.key, apiSecret: app.secret, login: user.email, password, throttle: false });
  for (let i = 0; ; i++) {
    const up = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    if (up) break;
    if (i > 300) throw new Error(`${name} node did not become ready`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await client.whoami();
  const cookie = `_ficelle_session=${await client.sessionCookie()}`;
  return {
    url,
    child,
    load: () => runLoad(`${url}/whoami.xml`, { ...signedHeaders(app, 'GET', '/whoami.xml'), cookie }),
    async close() {
      await stopChild(child);
      await dropDb?.();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

function spread(values: number[]): string {
  return `${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))}`;
}

/** Failed requests of every load, reported as a line of their own (expected: 0). */
let failures = 0;
function checked(r: Awaited<ReturnType<typeof runLoad>>, what: string): number {
  if (r.non2xx > 0 || r.errors > 0) {
    failures += r.non2xx + r.errors;
    console.log(`(scale: ${what}: ${r.non2xx} non-2xx replies and ${r.errors} errors)`);
  }
  return r.rps;
}

export async function benchScale(b: BenchContext): Promise<BenchLine[]> {
  const lines: BenchLine[] = [];
  const nodes: Node[] = [];
  try {
    if (!PG_URL || !REDIS_URL) {
      console.log('(scale: PostgreSQL/Redis lines skipped: set BENCH_DATABASE_URL and BENCH_REDIS_URL, or the TEST_ ones)');
    } else {
      const sqlite = await startNode('sqlite', {});
      nodes.push(sqlite);
      const pgRedis = await startNode('pgredis', { DATABASE_URL: 'fresh', REDIS_URL });
      nodes.push(pgRedis);
      const pgOnly = await startNode('pgonly', { DATABASE_URL: 'fresh' });
      nodes.push(pgOnly);
      // Without the rate limit: the cost of reading the session on every request, apart from Redis's.
      const pgNoLimit = await startNode('pgnolimit', { DATABASE_URL: 'fresh', REDIS_URL, RATE_LIMIT: 'off' });
      nodes.push(pgNoLimit);
      const pgCachedNoLimit = await startNode('pgcachednolimit', { DATABASE_URL: 'fresh', RATE_LIMIT: 'off' });
      nodes.push(pgCachedNoLimit);
      for (const n of nodes) checked(await n.load(), 'warm-up');
      const rps: Record<'sqlite' | 'pgRedis' | 'pgOnly' | 'noLimit' | 'cachedNoLimit', number[]> = { sqlite: [], pgRedis: [], pgOnly: [], noLimit: [], cachedNoLimit: [] };
      const ratios: number[] = [];
      const cacheRatios: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const s = checked(await sqlite.load(), 'whoami on SQLite');
        const p = checked(await pgRedis.load(), 'whoami on PostgreSQL + Redis');
        const c = checked(await pgOnly.load(), 'whoami on PostgreSQL, cached sessions');
        const n = checked(await pgNoLimit.load(), 'whoami on PostgreSQL, no session cache, no rate limit');
        const cn = checked(await pgCachedNoLimit.load(), 'whoami on PostgreSQL, session cache, no rate limit');
        rps.noLimit.push(n);
        rps.cachedNoLimit.push(cn);
        cacheRatios.push(n / cn);
        rps.sqlite.push(s);
        rps.pgRedis.push(p);
        rps.pgOnly.push(c);
        ratios.push(p / s);
      }
      lines.push({ name: `whoami, SQLite, limits in memory (req/s, spread ${spread(rps.sqlite)})`, value: Math.round(median(rps.sqlite)), unit: 'req/s' });
      lines.push({ name: `whoami, PostgreSQL + Redis limits (spread ${spread(rps.pgRedis)})`, value: Math.round(median(rps.pgRedis)), unit: 'req/s' });
      lines.push({ name: `whoami, PostgreSQL, 5 s session cache (spread ${spread(rps.pgOnly)})`, value: Math.round(median(rps.pgOnly)), unit: 'req/s' });
      lines.push({ name: `PostgreSQL+Redis / SQLite (median of ${ROUNDS}; ${ratios.map((r) => r.toFixed(2)).join(', ')})`, value: median(ratios), unit: 'x' });
      lines.push({ name: `whoami, PostgreSQL, no cache, limit off (spread ${spread(rps.noLimit)})`, value: Math.round(median(rps.noLimit)), unit: 'req/s' });
      lines.push({ name: `whoami, PostgreSQL, 5 s cache, limit off (spread ${spread(rps.cachedNoLimit)})`, value: Math.round(median(rps.cachedNoLimit)), unit: 'req/s' });
      lines.push({ name: `no session cache / cache, PG (${cacheRatios.map((r) => r.toFixed(2)).join(', ')})`, value: median(cacheRatios), unit: 'x' });
    }

    const nginx = findNginx();
    if (!nginx) {
      console.log('(scale: nginx lines skipped: nginx is not installed)');
    } else {
      const port = Number(new URL(b.url).port);
      const lb = await startNginx(nginx, [port]);
      try {
        const direct: number[] = [];
        const proxied: number[] = [];
        const ratios: number[] = [];
        await b.load('/whoami.xml', { url: lb.url, durationSeconds: 1 });
        for (let i = 0; i < ROUNDS; i++) {
          const d = checked(await b.load('/whoami.xml'), 'whoami direct');
          const p = checked(await b.load('/whoami.xml', { url: lb.url }), 'whoami through nginx');
          direct.push(d);
          proxied.push(p);
          ratios.push(p / d);
        }
        lines.push({ name: `whoami direct (SQLite, spread ${spread(direct)})`, value: Math.round(median(direct)), unit: 'req/s' });
        lines.push({ name: `whoami through nginx (spread ${spread(proxied)})`, value: Math.round(median(proxied)), unit: 'req/s' });
        lines.push({ name: `nginx / direct (median of ${ROUNDS}; ${ratios.map((r) => r.toFixed(2)).join(', ')})`, value: median(ratios), unit: 'x' });
        const log = await lb.errorLog();
        if (log.trim()) console.log(`(scale: nginx error log)\n${log.split('\n').slice(-10).join('\n')}`);
      } finally {
        await lb.stop();
      }
    }
  } finally {
    for (const n of nodes) await n.close();
  }
  lines.push({ name: 'scale: failed requests in all loads', value: failures, unit: 'req', target: '0', ok: failures === 0 });
  return lines;
}
