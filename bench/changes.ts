// `npm run bench -- changes` (docs/integrations.md, "Change feed"): BENCH_CHANGES (100 000) medias inserted
// by SQL, each a row of the feed; a full page (per_page 500) at cursor 0 and at the last full page, median of
// BENCH_CHANGES_RUNS (30) signed sequential requests each, alternating after warm-up, with statistics taken
// as autovacuum would. Target: end / start ≤ 1.5. SQLite, and PostgreSQL with BENCH_ or TEST_DATABASE_URL.
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { buildCore } from '../src/app.js';
import { MediaPortfolioClient } from '../src/client/index.js';
import { text } from '../src/client/xml.js';
import type { Database } from '../src/database/schema.js';
import { freshPgDatabase } from '../test/support/pg.js';
import { type BenchContext, type BenchLine, median, stopChild } from './lib.js';

const PG_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const N = Number(process.env.BENCH_CHANGES ?? 100_000);
const RUNS = Number(process.env.BENCH_CHANGES_RUNS ?? 30);
const PER_PAGE = 500;

async function measure(label: string, db: Kysely<Database>, client: MediaPortfolioClient, ownerId: number): Promise<BenchLine[]> {
  const artist = await db.selectFrom('artists').select('id').where('owner_id', '=', ownerId).executeTakeFirstOrThrow();
  const now = new Date().toISOString();
  for (let i = 0; i < N; i += 500) {
    const rows = Array.from({ length: Math.min(500, N - i) }, (_, j) => ({ uuid: randomUUID(), owner_id: ownerId, artist_id: artist.id, status: 'live', file_name: `IMG_${i + j}.jpg`, created_at: now, updated_at: now }));
    await db.insertInto('medias').values(rows).execute();
  }
  // What autovacuum does within a minute of such a load; without statistics PostgreSQL's planner guessed 34 rows
  // past cursor 0 and chose a bitmap scan and a sort of the whole log (43 ms against 0.35 ms).
  await sql`ANALYZE change_log`.execute(db);
  // Follow the whole feed once, as a client would: the cursor of the last full page is the end's.
  let cursor = '0';
  let lastFull = '0';
  for (;;) {
    const r = await client.changes(cursor, PER_PAGE);
    const more = text(r.doc, 'has-more') === 'true';
    if (more) lastFull = cursor;
    cursor = text(r.doc, 'next-cursor')!;
    if (!more) break;
  }
  const page = async (since: string) => {
    const t0 = performance.now();
    const r = await client.changes(since, PER_PAGE);
    if (r.doc.children.find((c) => c.name === 'changes')!.children.length !== PER_PAGE) throw new Error(`the page at ${since} is not full`);
    return performance.now() - t0;
  };
  for (let i = 0; i < 5; i++) await Promise.all([page('0'), page(lastFull)]);
  const start: number[] = [];
  const end: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    start.push(await page('0'));
    end.push(await page(lastFull));
  }
  const ratio = median(end) / median(start);
  const spread = (v: number[]) => `${Math.min(...v).toFixed(1)}–${Math.max(...v).toFixed(1)}`;
  return [
    { name: `changes, ${label}: ${PER_PAGE} at cursor 0 of ${N} (${spread(start)} ms)`, value: median(start), unit: 'ms' },
    { name: `changes, ${label}: ${PER_PAGE} at the end (${spread(end)} ms)`, value: median(end), unit: 'ms' },
    { name: `changes, ${label}: end / cursor 0`, value: ratio, unit: 'x', target: '<= 1.5', ok: ratio <= 1.5 },
  ];
}

async function onPostgres(url: string): Promise<BenchLine[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mps-bench-changes-'));
  const core = await buildCore({ dataDir, databaseUrl: url });
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  const base = `http://127.0.0.1:${port}`;
  const env = { ...process.env, DATABASE_URL: url, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', STORAGE_URL: '', REDIS_URL: '', PUBLIC_URL: base, RATE_LIMIT: 'off' };
  const child = spawn(process.execPath, ['dist/main.js'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    for (let i = 0; !(await fetch(`${base}/readyz`).then((r) => r.ok, () => false)); i++) {
      if (i > 600) throw new Error('changes: the service did not become ready');
      await new Promise((r) => setTimeout(r, 100));
    }
    const password = 'bench-' + randomBytes(6).toString('hex');
    const { user } = await core.users.create({ email: 'changes@example.com', password });
    const app = await core.apps.create('changes');
    const client = new MediaPortfolioClient({ baseUrl: base, apiKey: app.key, apiSecret: app.secret, login: user.email, password, throttle: false });
    return await measure('PostgreSQL', core.store.db, client, user.id);
  } finally {
    await stopChild(child);
    await core.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export async function benchChanges(b: BenchContext): Promise<BenchLine[]> {
  const lines = await measure('SQLite', b.db, b.client, b.user.id);
  if (!PG_URL) {
    console.log('(changes: PostgreSQL lines skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL)');
    return lines;
  }
  const fresh = await freshPgDatabase(PG_URL, 'mps_bench_changes');
  try {
    return [...lines, ...(await onPostgres(fresh.url))];
  } finally {
    await fresh.drop();
  }
}
