// Pages cost what they show (issue 22): growth ratios of the website's gallery
// pages (first, last), media page (previous/next) and the API's gallery and
// library, collection, lightbox and smart-collection lists (per_page 100, first
// and last page; a smart collection matching the whole library and one matching
// 10 % of it), the groups list with counts, and the sitemap's last part, between
// a gallery of 500
// and one of 50 000 published medias and a library of 1 000 and one of
// 100 000. Median of BENCH_PAGES_RUNS (30) sequential requests after warm-up,
// on SQLite and (with BENCH_DATABASE_URL or TEST_DATABASE_URL) PostgreSQL;
// with the site page cache off, then on under a query string that varies per
// request (as a crawler sends); the service's peak RSS (VmHWM) after serving
// the 50 000-media pages. Medias are seeded by SQL in batches (no files: the
// pages show placeholders, the lists read rows only).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaPortfolioClient } from '../src/client/index.js';
import { text } from '../src/client/xml.js';
import { buildCore, type Core } from '../src/app.js';
import { freshPgDatabase } from '../test/support/pg.js';
import { freePort } from '../test/support/processes.js';
import { type BenchContext, type BenchLine, median, signedHeaders, stopChild } from './lib.js';

const PG_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const RUNS = Number(process.env.BENCH_PAGES_RUNS ?? 30);
const WARM = 5;
const SMALL = { gallery: 500, library: 1_000 };
const BIG = { gallery: Number(process.env.BENCH_PAGES_GALLERY ?? 50_000), library: Number(process.env.BENCH_PAGES_LIBRARY ?? 100_000) };
const PER_PAGE = 100;
const SITE_PER_PAGE = 60;
const BATCH = 500;

interface Seeded {
  galleries: { small: { uuid: string; mid: string }; big: { uuid: string; mid: string } };
  libraries: { small: string; big: string };
  /** A collection and a lightbox holding each library's medias. */
  collections: { small: string; big: string };
  lightboxes: { small: string; big: string };
  /** Smart collections of each library: one matching all its medias, one matching 10 % of them. */
  smartAll: { small: string; big: string };
  smartFew: { small: string; big: string };
}

/** A smart collection's rules as stored (src/groups/smart-rules.ts). */
const SMART_ALL = JSON.stringify({ match: 'all', rules: [{ field: 'rating', operator: 'gte', value: '0' }] });
// Titles are `Photo ${j}`: those ending in 0 are 10 % of a library, the fewest that still fill
// a page of 100 in the small one (at 1 % its pages showed 9 medias against the big one's 100).
const SMART_FEW = JSON.stringify({ match: 'all', rules: [{ field: 'title', operator: 'ends_with', value: '0' }] });

interface Running {
  url: string;
  child: ChildProcess;
}

async function start(dataDir: string, databaseUrl: string | undefined, cacheSeconds: number): Promise<Running> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['dist/main.js'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl ?? '',
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      STORAGE_URL: '',
      REDIS_URL: '',
      PUBLIC_URL: url,
      RATE_LIMIT: 'off',
      VISITOR_RATE_LIMIT: 'off',
      SITE_CACHE_SECONDS: String(cacheSeconds),
      MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; ; i++) {
    if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) break;
    if (i > 600) throw new Error('pages: the service did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, child };
}

/** `count` live medias of `artistId`, published in `galleryId` when given, in batches of BATCH rows per statement. */
async function seedMedias(core: Core, ownerId: number, artistId: number, count: number, galleryId?: number): Promise<string[]> {
  const uuids: string[] = [];
  const db = core.store.db;
  const base = Date.parse('2020-01-01T00:00:00Z');
  for (let i = 0; i < count; i += BATCH) {
    const n = Math.min(BATCH, count - i);
    await db.transaction().execute(async (trx) => {
      const rows = Array.from({ length: n }, (_, k) => {
        const j = i + k;
        const at = new Date(base + j * 60_000).toISOString();
        return {
          uuid: randomUUID(),
          owner_id: ownerId,
          artist_id: artistId,
          status: 'live',
          file_name: `IMG_${(j * 7919) % count}.jpg`,
          title: `Photo ${j}`,
          width: 3000,
          height: 2000,
          shot_at: at,
          created_at: at,
          updated_at: at,
          renditions_state: 'none',
        };
      });
      const ids = await trx.insertInto('medias').values(rows).returning(['id', 'uuid']).execute();
      uuids.push(...ids.map((r) => r.uuid));
      if (galleryId !== undefined) {
        await trx
          .insertInto('media_galleries')
          .values(ids.map((m, k) => ({ gallery_id: galleryId, media_id: m.id, position: i + k + 1, published_at: rows[k].created_at })))
          .execute();
      }
    });
  }
  return uuids;
}

async function seed(core: Core, client: MediaPortfolioClient, userId: number, urlname: string): Promise<Seeded> {
  const db = core.store.db;
  const website = await db.selectFrom('websites').select('id').where('urlname', '=', urlname).executeTakeFirstOrThrow();
  const root = await db.selectFrom('galleries').select('uuid').where('website_id', '=', website.id).where('parent_id', 'is', null).executeTakeFirstOrThrow();
  const artist = await db.selectFrom('artists').select('id').where('owner_id', '=', userId).orderBy('id').executeTakeFirstOrThrow();
  const gallery = async (name: string, count: number) => {
    // An order sorted in JavaScript (natural file names): the costliest the spec offers.
    const uuid = text((await client.createGallery(urlname, { name, parent: root.uuid, url_path: name, content_order: 'file_name_nat' })).doc, 'gallery/uuid')!;
    const g = await db.selectFrom('galleries').select('id').where('uuid', '=', uuid).executeTakeFirstOrThrow();
    const uuids = await seedMedias(core, userId, artist.id, count, g.id);
    return { uuid, mid: uuids[Math.floor(count / 2)] };
  };
  const library = async (name: string, count: number) => {
    const { uuid } = await core.artists.create({ id: userId }, name);
    const a = await db.selectFrom('artists').select('id').where('uuid', '=', uuid).executeTakeFirstOrThrow();
    await seedMedias(core, userId, a.id, count);
    // The library's medias in a collection and in a lightbox too (GET /medias.xml?medias_group_id= and ?lightbox_id=).
    const now = new Date().toISOString();
    const group = await db.insertInto('media_groups').values({ uuid: randomUUID(), owner_id: userId, artist_id: a.id, kind: 'collection', name, rules: null, created_at: now, updated_at: now }).returning(['id', 'uuid']).executeTakeFirstOrThrow();
    const box = await db.insertInto('lightboxes').values({ uuid: randomUUID(), owner_id: userId, name, created_at: now }).returning(['id', 'uuid']).executeTakeFirstOrThrow();
    const ids = (await db.selectFrom('medias').select('id').where('artist_id', '=', a.id).orderBy('id').execute()).map((r) => r.id);
    for (let i = 0; i < ids.length; i += BATCH) {
      const slice = ids.slice(i, i + BATCH);
      await db.insertInto('media_group_medias').values(slice.map((id, k) => ({ group_id: group.id, media_id: id, position: i + k + 1 }))).execute();
      await db.insertInto('lightbox_medias').values(slice.map((id, k) => ({ lightbox_id: box.id, media_id: id, position: i + k + 1 }))).execute();
    }
    const smart = async (rules: string) =>
      (await db.insertInto('media_groups').values({ uuid: randomUUID(), owner_id: userId, artist_id: a.id, kind: 'smart', name, rules, created_at: now, updated_at: now }).returning('uuid').executeTakeFirstOrThrow()).uuid;
    return { uuid, collection: group.uuid, lightbox: box.uuid, smartAll: await smart(SMART_ALL), smartFew: await smart(SMART_FEW) };
  };
  const galleries = { small: await gallery('small', SMALL.gallery), big: await gallery('big', BIG.gallery) };
  const small = await library('small', SMALL.library);
  const big = await library('big', BIG.library);
  return {
    galleries,
    libraries: { small: small.uuid, big: big.uuid },
    collections: { small: small.collection, big: big.collection },
    lightboxes: { small: small.lightbox, big: big.lightbox },
    smartAll: { small: small.smartAll, big: big.smartAll },
    smartFew: { small: small.smartFew, big: big.smartFew },
  };
}

type Timing = { median: number; min: number; max: number };

/**
 * The small and the big case's requests in alternation (so that the neighbours' load on the
 * shared machine weighs on both alike), WARM of each first, then RUNS of each, one at a time.
 */
async function timedPair(
  url: string,
  small: (i: number) => string,
  big: (i: number) => string,
  headers: (path: string) => Record<string, string>,
  redirect: RequestRedirect,
): Promise<[Timing, Timing]> {
  const get = async (path: string) => {
    const t0 = performance.now();
    const r = await fetch(url + path, { headers: headers(path), redirect });
    await r.arrayBuffer();
    if (r.status >= 400) throw new Error(`pages: ${path} answered ${r.status}`);
    return performance.now() - t0;
  };
  for (let i = 0; i < WARM; i++) {
    await get(small(i));
    await get(big(i));
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = WARM; i < WARM + RUNS; i++) {
    a.push(await get(small(i)));
    b.push(await get(big(i)));
  }
  const of = (t: number[]): Timing => ({ median: median(t), min: Math.min(...t), max: Math.max(...t) });
  return [of(a), of(b)];
}

async function rssOf(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(/(\d+) kB/.exec(status.split('\n').find((l) => l.startsWith(name)) ?? '')?.[1] ?? 0);
  return { rss: kb('VmRSS:') / 1024, hwm: kb('VmHWM:') / 1024 };
}

async function onDatabase(label: string, databaseUrl: string | undefined, dropDb?: () => Promise<void>): Promise<BenchLine[]> {
  const dataDir = await mkdtemp(join(tmpdir(), `mps-bench-pages-${label}-`));
  const lines: BenchLine[] = [];
  let running: Running | undefined;
  let core: Core | undefined;
  try {
    core = await buildCore({ dataDir, databaseUrl });
    const password = 'bench-' + randomBytes(6).toString('hex');
    const { user } = await core.users.create({ email: `pages-${label}@example.com`, password });
    const urlname = 'pages';
    await core.websites.create(user, { urlname, title: 'Pages' });
    const app = await core.apps.create('pages');
    running = await start(dataDir, databaseUrl, 0);
    const client = new MediaPortfolioClient({ baseUrl: running.url, apiKey: app.key, apiSecret: app.secret, login: user.email, password, throttle: false });
    await client.whoami();
    const cookie = `_ficelle_session=${await client.sessionCookie()}`;
    // A second website with one gallery of SMALL.gallery medias: the sitemap's small case. Its gallery is
    // made before the long seeding (a request after it may meet a keep-alive socket the service closed).
    const smallSite = 'pages-small';
    await core.websites.create(user, { urlname: smallSite, title: 'Small' });
    const smallWebsite = await core.store.db.selectFrom('websites').select('id').where('urlname', '=', smallSite).executeTakeFirstOrThrow();
    const smallRoot = await core.store.db.selectFrom('galleries').select('uuid').where('website_id', '=', smallWebsite.id).where('parent_id', 'is', null).executeTakeFirstOrThrow();
    const smallUuid = text((await client.createGallery(smallSite, { name: 'only', parent: smallRoot.uuid, url_path: 'only', content_order: 'file_name_nat' })).doc, 'gallery/uuid')!;
    const t0 = performance.now();
    const s = await seed(core, client, user.id, urlname);
    {
      const g = await core.store.db.selectFrom('galleries').select('id').where('uuid', '=', smallUuid).executeTakeFirstOrThrow();
      const artist = await core.store.db.selectFrom('artists').select('id').where('owner_id', '=', user.id).orderBy('id').executeTakeFirstOrThrow();
      await seedMedias(core, user.id, artist.id, SMALL.gallery, g.id);
    }
    const seconds = (performance.now() - t0) / 1000;
    lines.push({ name: `pages, ${label}: seeding ${SMALL.gallery + BIG.gallery + SMALL.library + BIG.library} medias`, value: seconds, unit: 's' });

    const api = (path: string) => ({ ...signedHeaders(app, 'GET', path), cookie });
    const none = () => ({});
    const site = `/sites/${urlname}/-`;
    const lastSite = (n: number) => Math.ceil(n / SITE_PER_PAGE);
    const lastApi = (n: number) => Math.ceil(n / PER_PAGE);
    type Case = { name: string; small: (i: number) => string; big: (i: number) => string; headers: (p: string) => Record<string, string> };
    const siteCases = (vary: (i: number) => string): Case[] => [
      { name: 'website gallery page 1', small: (i) => `${site}/small${vary(i) ? `?${vary(i)}` : ''}`, big: (i) => `${site}/big${vary(i) ? `?${vary(i)}` : ''}`, headers: none },
      {
        name: 'website gallery last page',
        small: (i) => `${site}/small?page=${lastSite(SMALL.gallery)}${vary(i) ? `&${vary(i)}` : ''}`,
        big: (i) => `${site}/big?page=${lastSite(BIG.gallery)}${vary(i) ? `&${vary(i)}` : ''}`,
        headers: none,
      },
      {
        name: 'website media page (previous/next)',
        small: (i) => `${site}/small/_/${s.galleries.small.mid}${vary(i) ? `?${vary(i)}` : ''}`,
        big: (i) => `${site}/big/_/${s.galleries.big.mid}${vary(i) ? `?${vary(i)}` : ''}`,
        headers: none,
      },
    ];
    const apiCases: Case[] = [
      { name: 'API gallery medias page 1', small: () => `/medias.xml?gallery_id=${s.galleries.small.uuid}&page=1&per_page=${PER_PAGE}`, big: () => `/medias.xml?gallery_id=${s.galleries.big.uuid}&page=1&per_page=${PER_PAGE}`, headers: api },
      {
        name: 'API gallery medias last page',
        small: () => `/medias.xml?gallery_id=${s.galleries.small.uuid}&page=${lastApi(SMALL.gallery)}&per_page=${PER_PAGE}`,
        big: () => `/medias.xml?gallery_id=${s.galleries.big.uuid}&page=${lastApi(BIG.gallery)}&per_page=${PER_PAGE}`,
        headers: api,
      },
      { name: 'API library page 1', small: () => `/medias.xml?artist_id=${s.libraries.small}&page=1&per_page=${PER_PAGE}`, big: () => `/medias.xml?artist_id=${s.libraries.big}&page=1&per_page=${PER_PAGE}`, headers: api },
      {
        name: 'API library last page',
        small: () => `/medias.xml?artist_id=${s.libraries.small}&page=${lastApi(SMALL.library)}&per_page=${PER_PAGE}`,
        big: () => `/medias.xml?artist_id=${s.libraries.big}&page=${lastApi(BIG.library)}&per_page=${PER_PAGE}`,
        headers: api,
      },
    ];
    const scoped = [
      ['collection', 'medias_group_id', s.collections, 1],
      ['lightbox', 'lightbox_id', s.lightboxes, 1],
      ['smart collection (rating gte 0: all)', 'medias_group_id', s.smartAll, 1],
      ['smart collection (title ends_with 0: 10 %)', 'medias_group_id', s.smartFew, 0.1],
    ] as const;
    for (const [what, param, of, share] of scoped) {
      apiCases.push(
        { name: `API ${what} page 1`, small: () => `/medias.xml?${param}=${of.small}&page=1&per_page=${PER_PAGE}`, big: () => `/medias.xml?${param}=${of.big}&page=1&per_page=${PER_PAGE}`, headers: api },
        {
          name: `API ${what} last page`,
          small: () => `/medias.xml?${param}=${of.small}&page=${lastApi(Math.floor(SMALL.library * share))}&per_page=${PER_PAGE}`,
          big: () => `/medias.xml?${param}=${of.big}&page=${lastApi(Math.floor(BIG.library * share))}&per_page=${PER_PAGE}`,
          headers: api,
        },
      );
    }
    // A library's groups with their counts (its collection and its two smart collections), after their pages were read.
    apiCases.push({
      name: 'API groups list with counts (a library: collection, 2 smart collections)',
      small: () => `/medias_groups.xml?view=details&artist_id=${s.libraries.small}`,
      big: () => `/medias_groups.xml?view=details&artist_id=${s.libraries.big}`,
      headers: api,
    });
    // The sitemap: the big website's last part (its addresses beyond the first 50 000: the small
    // gallery's and the big one's last) against a website of about as many addresses in all.
    const bigParts = Math.ceil((1 + 2 + SMALL.gallery + BIG.gallery) / 50_000);
    const sitemapCase: Case = {
      name: `website sitemap, last part (${bigParts}) of ${SMALL.gallery + BIG.gallery} medias, against a whole sitemap of ${SMALL.gallery}`,
      small: () => `/sites/${smallSite}/sitemap.xml`,
      big: () => `/sites/${urlname}/sitemap${bigParts > 1 ? `-${bigParts}` : ''}.xml`,
      headers: none,
    };
    const measure = async (cases: Case[], suffix: string, redirect: RequestRedirect) => {
      for (const c of cases) {
        const [a, b] = await timedPair(running!.url, c.small, c.big, c.headers, redirect);
        const ratio = b.median / a.median;
        lines.push({
          name: `${c.name}, ${label}${suffix}: ${a.median.toFixed(1)} (${a.min.toFixed(1)}–${a.max.toFixed(1)}) → ${b.median.toFixed(1)} (${b.min.toFixed(1)}–${b.max.toFixed(1)}) ms`,
          value: ratio,
          unit: 'x',
          target: '<= 1.5',
          ok: ratio <= 1.5,
        });
      }
    };
    await measure([...siteCases(() => ''), sitemapCase, ...apiCases], ', cache off', 'manual');
    // The price of the memos: the first view after a write rebuilds the order (site) or the ids (API) once.
    const afterWrite = async (name: string, write: () => Promise<unknown>, path: string, headers: Record<string, string>) => {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        await write();
        const t0 = performance.now();
        const r = await fetch(running!.url + path, { headers, redirect: 'manual' });
        await r.arrayBuffer();
        if (r.status >= 400) throw new Error(`pages: ${path} answered ${r.status}`);
        times.push(performance.now() - t0);
      }
      lines.push({ name: `${name}, ${label}, first view after a write (${Math.min(...times).toFixed(0)}–${Math.max(...times).toFixed(0)})`, value: median(times), unit: 'ms' });
    };
    const db = core.store.db;
    const bigGallery = await db.selectFrom('galleries').select('id').where('uuid', '=', s.galleries.big.uuid).executeTakeFirstOrThrow();
    const oneOf = await db.selectFrom('media_galleries').select('media_id').where('gallery_id', '=', bigGallery.id).orderBy('media_id').limit(1).executeTakeFirstOrThrow();
    let tick = 0;
    await afterWrite(
      `website gallery page 1, ${BIG.gallery} medias`,
      () => db.updateTable('medias').set({ updated_at: new Date(Date.UTC(2021, 0, 1, 0, 0, ++tick)).toISOString() }).where('id', '=', oneOf.media_id).execute(),
      `${site}/big`,
      {},
    );
    const libraryPath = `/medias.xml?artist_id=${s.libraries.big}&page=${lastApi(BIG.library)}&per_page=${PER_PAGE}`;
    await afterWrite(
      `API library last page, ${BIG.library} medias`,
      () => db.updateTable('media_stamps').set((eb) => ({ stamp: eb('stamp', '+', 1) })).where('owner_id', '=', user.id).execute(),
      libraryPath,
      api(libraryPath),
    );
    const bigLibrary = await db.selectFrom('artists').select('id').where('uuid', '=', s.libraries.big).executeTakeFirstOrThrow();
    const oneOfLibrary = await db.selectFrom('medias').select('id').where('artist_id', '=', bigLibrary.id).orderBy('id').limit(1).executeTakeFirstOrThrow();
    const smartPath = `/medias.xml?medias_group_id=${s.smartAll.big}&page=${lastApi(BIG.library)}&per_page=${PER_PAGE}`;
    await afterWrite(
      `API smart collection (all) last page, ${BIG.library} medias`,
      // A title edit moves the rule stamp only: the smart collection's ids are read again, the library's are not.
      () => db.updateTable('medias').set({ title: `Edited ${++tick}` }).where('id', '=', oneOfLibrary.id).execute(),
      smartPath,
      api(smartPath),
    );
    const mem = await rssOf(running.child.pid!);
    lines.push({ name: `pages, ${label}: service RSS after the big pages (now ${mem.rss.toFixed(0)} MiB)`, value: Math.round(mem.hwm), unit: 'MiB peak', target: '< 256', ok: mem.hwm < 256 });
    await stopChild(running.child);
    running = await start(dataDir, databaseUrl, 2);
    // A query string of its own on every request, as a crawler sends: the service redirects to the
    // page's one address (before any query), which the crawler then asks for (the micro-cache's,
    // rendered at most once per SITE_CACHE_SECONDS): both requests are timed.
    await measure(siteCases((i) => `utm_source=crawler-${i}`), ', cache on, varying query (301 + page)', 'follow');
  } finally {
    if (running) await stopChild(running.child);
    await core?.close();
    await dropDb?.();
    await rm(dataDir, { recursive: true, force: true });
  }
  return lines;
}

export async function benchPages(_b: BenchContext): Promise<BenchLine[]> {
  const lines = await onDatabase('SQLite', undefined);
  if (!PG_URL) {
    console.log('(pages: PostgreSQL lines skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL)');
    return lines;
  }
  const fresh = await freshPgDatabase(PG_URL, 'mps_bench_pages');
  return [...lines, ...(await onDatabase('PostgreSQL', fresh.url, fresh.drop))];
}
