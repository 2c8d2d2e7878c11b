// Gallery list cost must stay flat as a website grows: on a website with
// 10 000 galleries, page 20 of view=details (per_page=500) within 1.2x of
// page 1. Also one gallery's details under load, against the bare baseline.
import { randomUUID } from 'node:crypto';
import { insertChildren } from '../test/support/gallery-seed.js';
import { nowIso } from '../src/database/db.js';
import { median, runLoadOfList, signedHeaders, type BenchContext, type BenchLine } from './lib.js';

const SECTIONS = 10;
const PER_SECTION = 999; // 1 root + 10 sections + 9 990 = 10 001 galleries
const MEDIAS = 5000;
const RUNS = Number(process.env.BENCH_GALLERY_RUNS ?? 9);

export async function seed(b: Pick<BenchContext, "db" | "user">, urlname: string): Promise<void> {
  const website = await b.db.selectFrom('websites').select('id').where('urlname', '=', urlname).executeTakeFirstOrThrow();
  const root = await b.db.selectFrom('galleries').selectAll().where('website_id', '=', website.id).where('parent_id', 'is', null).executeTakeFirstOrThrow();
  const sectionIds = await b.db.transaction().execute((trx) =>
    insertChildren(trx, root, Array.from({ length: SECTIONS }, (_, i) => `Section ${i + 1}`), nowIso()),
  );
  const leafIds: number[] = [];
  for (const [i, id] of sectionIds.entries()) {
    const section = await b.db.selectFrom('galleries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const names = Array.from({ length: PER_SECTION }, (_, j) => `Shoot ${i + 1}.${j + 1}`);
    leafIds.push(...(await b.db.transaction().execute((trx) => insertChildren(trx, section, names, nowIso()))));
  }
  // Medias spread over the leaves, so the counts have something to count.
  const artist = await b.db.selectFrom('artists').select('id').where('uuid', '=', b.user.defaultArtistUuid).executeTakeFirstOrThrow();
  await b.db.transaction().execute(async (trx) => {
    for (let i = 0; i < MEDIAS; i += 250) {
      const now = nowIso();
      const rows = Array.from({ length: Math.min(250, MEDIAS - i) }, (_, k) => ({
        uuid: randomUUID(),
        owner_id: b.user.id,
        artist_id: artist.id,
        status: 'live',
        file_name: `IMG_${i + k}.jpg`,
        created_at: now,
        updated_at: now,
      }));
      const medias = await trx.insertInto('medias').values(rows).returning('id').execute();
      await trx
        .insertInto('media_galleries')
        .values(medias.map((m, k) => ({ gallery_id: leafIds[((i + k) * 2) % leafIds.length], media_id: m.id, position: i + k + 1, published_at: now })))
        .execute();
    }
  });
}

export async function benchGalleries(b: BenchContext): Promise<BenchLine[]> {
  const urlname = 'bench';
  await seed(b, urlname);
  const get = (page: number) => b.client.request('GET', `/websites/${urlname}/galleries.xml`, { view: 'details', page, per_page: 500 });

  const total = await get(1);
  if (!total.body.includes('<total-pages type="integer">21</total-pages>')) throw new Error('expected 21 pages of 500 galleries');
  for (let i = 0; i < 2; i++) {
    await get(1);
    await get(20);
  }
  const first: number[] = [];
  const twentieth: number[] = [];
  // Alternate the two pages so a noisy neighbour hits both alike.
  for (let i = 0; i < RUNS; i++) {
    first.push(await b.time(() => get(1)));
    twentieth.push(await b.time(() => get(20)));
  }
  const p1 = median(first);
  const p20 = median(twentieth);
  const ratio = p20 / p1;

  const one = await b.db.selectFrom('galleries').select('uuid').where('name', '=', 'Shoot 5.500').executeTakeFirstOrThrow();
  const detailsPath = `/websites/${urlname}/galleries/${one.uuid}.xml`;
  await b.load(detailsPath, { durationSeconds: 1 }); // warm-up
  // Alternating rounds with the bare server, median ratio: the machine is shared (as for whoami).
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const ratios: number[] = [];
  const rps: number[] = [];
  let p99 = 0;
  for (let i = 0; i < rounds; i++) {
    const bare = await b.load('/whoami.xml', { url: b.bareUrl });
    const details = await b.load(detailsPath);
    if (details.non2xx > 0 || details.errors > 0) throw new Error(`gallery details load had ${details.non2xx} non-2xx replies and ${details.errors} errors`);
    ratios.push(details.rps / bare.rps);
    rps.push(details.rps);
    p99 = Math.max(p99, details.latencyP99);
  }
  const detailsRatio = median(ratios);

  // The same read, a different gallery each time (the 10 001 of the website in
  // turn, each client from its own starting point): what a client walking a
  // whole tree sees, with nothing of one gallery's read still warm for the next.
  const all = await b.db.selectFrom('galleries').select('uuid').orderBy('id').execute();
  const list = all.map(({ uuid }) => {
    const path = `/websites/${urlname}/galleries/${uuid}.xml`;
    return { path, headers: { ...signedHeaders(b.app, 'GET', path), cookie: b.sessionCookie } };
  });
  const missRounds = Math.max(1, Math.min(rounds, 3));
  const missRatios: number[] = [];
  for (let i = 0; i < missRounds; i++) {
    const bare = await b.load('/whoami.xml', { url: b.bareUrl });
    const many = await runLoadOfList(b.url, list);
    if (many.non2xx > 0 || many.errors > 0) throw new Error(`gallery details load (each a different gallery) had ${many.non2xx} non-2xx replies and ${many.errors} errors`);
    missRatios.push(many.rps / bare.rps);
  }
  return [
    { name: 'galleries view=details per_page=500, page 1 (10 001 galleries)', value: p1, unit: 'ms' },
    { name: 'galleries view=details per_page=500, page 20', value: p20, unit: 'ms' },
    { name: `page 20 / page 1 time (median of ${RUNS})`, value: ratio, unit: 'x', target: '<= 1.2', ok: ratio <= 1.2 },
    { name: 'GET one gallery (details)', value: Math.round(median(rps)), unit: 'req/s' },
    { name: `one gallery details / bare ratio (median of ${rounds} alternating rounds)`, value: detailsRatio, unit: 'x', target: '>= 0.3', ok: detailsRatio >= 0.3 },
    { name: 'one gallery details latency p99 (worst round)', value: p99, unit: 'ms' },
    { name: `details of a different gallery each time / bare (median of ${missRounds})`, value: median(missRatios), unit: 'x' },
  ];
}
