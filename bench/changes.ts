// `npm run bench -- changes`: the change feed (docs/integrations.md, "Change feed") on a library of
// BENCH_CHANGES medias (100 000) inserted by SQL in batches, each a row of the feed: a full page
// (per_page 500) at cursor 0 and at the last full page, median of BENCH_CHANGES_RUNS (30) signed
// sequential requests each, in alternation after warm-up. Target: end / start ≤ 1.5 (an index range).
import { randomUUID } from 'node:crypto';
import { text } from '../src/client/xml.js';
import { type BenchContext, type BenchLine, median } from './lib.js';

export async function benchChanges(b: BenchContext): Promise<BenchLine[]> {
  const n = Number(process.env.BENCH_CHANGES ?? 100_000);
  const runs = Number(process.env.BENCH_CHANGES_RUNS ?? 30);
  const artist = await b.db.selectFrom('artists').select('id').where('owner_id', '=', b.user.id).executeTakeFirstOrThrow();
  const now = new Date().toISOString();
  for (let i = 0; i < n; i += 500) {
    const rows = Array.from({ length: Math.min(500, n - i) }, (_, j) => ({
      uuid: randomUUID(), owner_id: b.user.id, artist_id: artist.id, status: 'live', file_name: `IMG_${i + j}.jpg`, created_at: now, updated_at: now,
    }));
    await b.db.insertInto('medias').values(rows).execute();
  }
  // Follow the whole feed once, as a client would: the cursor of the last full page is the end's.
  const perPage = 500;
  let cursor = '0';
  let lastFull = '0';
  for (;;) {
    const r = await b.client.changes(cursor, perPage);
    const more = text(r.doc, 'has-more') === 'true';
    if (more) lastFull = cursor;
    cursor = text(r.doc, 'next-cursor')!;
    if (!more) break;
  }
  const page = async (since: string) => {
    const t0 = performance.now();
    const r = await b.client.changes(since, perPage);
    if (r.doc.children.find((c) => c.name === 'changes')!.children.length !== perPage) throw new Error(`the page at ${since} is not full`);
    return performance.now() - t0;
  };
  for (let i = 0; i < 5; i++) await Promise.all([page('0'), page(lastFull)]);
  const start: number[] = [];
  const end: number[] = [];
  for (let i = 0; i < runs; i++) {
    start.push(await page('0'));
    end.push(await page(lastFull));
  }
  const ratio = median(end) / median(start);
  const spread = (v: number[]) => `${Math.min(...v).toFixed(1)}–${Math.max(...v).toFixed(1)}`;
  return [
    { name: `GET /changes.xml, ${perPage} at cursor 0 (${n} medias; ${spread(start)} ms)`, value: median(start), unit: 'ms' },
    { name: `GET /changes.xml, ${perPage} at the end (${spread(end)} ms)`, value: median(end), unit: 'ms' },
    { name: 'change feed page: end / cursor 0', value: ratio, unit: 'x', target: '<= 1.5', ok: ratio <= 1.5 },
  ];
}
