// A 500-media gallery page of the visitor website: its render time, and its
// requests/s against a bare node:http server answering the same bytes, in
// alternating rounds (target: at least 0.45x, issue 20: no regression from theming). Under load anonymous visitors
// are served by the page micro-cache, as in production.
import { randomUUID } from 'node:crypto';
import { text } from '../src/client/xml.js';
import { nowIso } from '../src/database/db.js';
import { median, runLoad, startPortPrinter, stopChild, type BenchContext, type BenchLine } from './lib.js';

const MEDIAS = 500;
const RUNS = Number(process.env.BENCH_SITE_RUNS ?? 30);

export async function benchSite(b: BenchContext): Promise<BenchLine[]> {
  const urlname = 'bench';
  const website = await b.db.selectFrom('websites').select('id').where('urlname', '=', urlname).executeTakeFirstOrThrow();
  const root = await b.db.selectFrom('galleries').select('uuid').where('website_id', '=', website.id).where('parent_id', 'is', null).executeTakeFirstOrThrow();
  const path = await seedGalleryPage(b, urlname, root.uuid, { name: 'Site bench', urlPath: 'site-bench', medias: MEDIAS });
  const page = await fetch(b.url + path);
  const html = Buffer.from(await page.arrayBuffer());
  if (page.status !== 200 || !html.includes('data-layout=')) throw new Error(`the gallery page answered ${page.status}`);

  // A visitor with a pass is never served from the micro-cache (and an unknown query is only
  // redirected): the full cost (queries, order, rendering). The pass comes from a password gallery.
  const locked = text((await b.client.createGallery(urlname, { name: 'Site bench pass', parent: root.uuid, url_path: 'site-bench-pass', password: 'bench' })).doc, 'gallery/uuid')!;
  const opened = await fetch(`${b.url}/sites/${urlname}/_password`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ gallery: locked, password: 'bench', back: `/sites/${urlname}/` }).toString(),
    redirect: 'manual',
  });
  const cookie = opened.headers.get('set-cookie')?.split(';')[0];
  if (opened.status !== 303 || !cookie) throw new Error(`the password form answered ${opened.status}`);
  const times: number[] = [];
  for (let i = 0; i < 5; i++) await fetch(b.url + path, { headers: { cookie } }).then((r) => r.arrayBuffer());
  for (let i = 0; i < RUNS; i++) times.push(await b.time(() => fetch(b.url + path, { headers: { cookie } }).then((r) => r.arrayBuffer())));
  times.sort((x, y) => x - y);

  const bare = await startPortPrinter(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts', 'body', html.toString('base64')]);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const ratios: number[] = [];
  const siteRps: number[] = [];
  try {
    await runLoad(`http://127.0.0.1:${bare.port}${path}`, {}, undefined, 1);
    await runLoad(b.url + path, {}, undefined, 1);
    for (let i = 0; i < rounds; i++) {
      const base = await runLoad(`http://127.0.0.1:${bare.port}${path}`, {});
      const site = await runLoad(b.url + path, {});
      if (site.non2xx > 0 || site.errors > 0) throw new Error(`site load had ${site.non2xx} non-2xx replies and ${site.errors} errors`);
      siteRps.push(site.rps);
      ratios.push(site.rps / base.rps);
    }
  } finally {
    await stopChild(bare.child);
  }
  const ratio = median(ratios);
  return [
    { name: `gallery page, ${MEDIAS} medias (60 shown), HTML bytes`, value: html.length, unit: 'B' },
    { name: `gallery page render, uncached, median of ${RUNS} (min ${times[0].toFixed(1)}, max ${times[times.length - 1].toFixed(1)})`, value: median(times), unit: 'ms' },
    { name: 'gallery page under load (anonymous: micro-cache, SITE_CACHE_SECONDS=2)', value: Math.round(median(siteRps)), unit: 'req/s' },
    { name: `gallery page / bare ratio (median of ${rounds}; ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`, value: ratio, unit: 'x', target: '>= 0.45', ok: ratio >= 0.45 },
  ];
}

/**
 * A gallery of `medias` live photos (rows only, no files) under `root`, published in bulk;
 * its website path. The page the site and guard sections load.
 */
export async function seedGalleryPage(b: BenchContext, urlname: string, root: string, opts: { name: string; urlPath: string; medias: number }): Promise<string> {
  const created = await b.client.createGallery(urlname, { name: opts.name, parent: root, url_path: opts.urlPath, content_order: 'file_name_nat' });
  const galleryUuid = text(created.doc, 'gallery/uuid')!;
  const gallery = await b.db.selectFrom('galleries').select('id').where('uuid', '=', galleryUuid).executeTakeFirstOrThrow();
  const artist = await b.db.selectFrom('artists').select('id').where('uuid', '=', b.user.defaultArtistUuid).executeTakeFirstOrThrow();
  const now = nowIso();
  for (let i = 0; i < opts.medias; i += 250) {
    const rows = Array.from({ length: Math.min(250, opts.medias - i) }, (_, k) => ({
      uuid: randomUUID(),
      owner_id: b.user.id,
      artist_id: artist.id,
      status: 'live',
      file_name: `IMG_${i + k}.jpg`,
      title: `Photo ${i + k}`,
      width: 3000,
      height: 2000,
      created_at: now,
      updated_at: now,
    }));
    const medias = await b.db.insertInto('medias').values(rows).returning('id').execute();
    await b.db
      .insertInto('media_galleries')
      .values(medias.map((m, k) => ({ gallery_id: gallery.id, media_id: m.id, position: i + k + 1, published_at: now })))
      .execute();
  }
  return `/sites/${urlname}/-/${opts.urlPath}`;
}
