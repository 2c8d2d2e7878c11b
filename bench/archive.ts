// `npm run bench -- archive`: a gallery of BENCH_ARCHIVE_PHOTOS (200) originals
// of 24 MP as one streamed ZIP (`<gallery>/_archive.zip`, hires_download), against
// a bare node:http server streaming the same files one after another in the
// same run (bare-server.ts `files`): throughput ratio (median of alternating
// rounds), time to the first byte, and the service's RSS growth while it sends.
// The photos are realistic 24 MP JPEGs (test/site/site-support.ts
// realisticPhoto: noise and texture, about 7 MB); BENCH_ARCHIVE_DISTINCT
// (default 20) of them are made once and cached under the system's temp dir, and copied to
// make the gallery's files (each its own file in the store).
import { copyFile, mkdir, readFile, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { text } from '../src/client/xml.js';
import { nowIso } from '../src/database/db.js';
import { realisticPhoto } from '../test/site/site-support.js';
import { type BenchContext, type BenchLine, median, startPortPrinter, stopChild } from './lib.js';

const PHOTOS = Number(process.env.BENCH_ARCHIVE_PHOTOS ?? 200);
const DISTINCT = Math.min(PHOTOS, Number(process.env.BENCH_ARCHIVE_DISTINCT ?? 20));
const ROUNDS = Number(process.env.BENCH_ARCHIVE_ROUNDS ?? 3);

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** One GET read through and thrown away: bytes, seconds, ms to the first byte, and the service's RSS growth (MiB) when `pid`. */
async function download(url: string, pid?: number): Promise<{ bytes: number; seconds: number; firstByteMs: number; rssGrowth: number }> {
  const before = pid ? await rssMiB(pid) : 0;
  let peak = before;
  const sampler = pid ? setInterval(() => void rssMiB(pid).then((r) => (peak = Math.max(peak, r)), () => undefined), 25) : undefined;
  const started = process.hrtime.bigint();
  try {
    return await new Promise((resolve, reject) => {
      const req = request(url, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${url} answered ${res.statusCode}`));
        let bytes = 0;
        let first = -1;
        res.on('data', (c: Buffer) => {
          if (first < 0) first = Number(process.hrtime.bigint() - started) / 1e6;
          bytes += c.length;
        });
        res.on('end', () => resolve({ bytes, seconds: Number(process.hrtime.bigint() - started) / 1e9, firstByteMs: first, rssGrowth: peak - before }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  } finally {
    if (sampler) clearInterval(sampler);
  }
}

/** CPU seconds a process has used so far (user + system, /proc/<pid>/stat). */
async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const spread = (xs: number[], digits = 2) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

export async function benchArchive(b: BenchContext): Promise<BenchLine[]> {
  // The gallery: everyone may read it and download the originals.
  const root = (await b.db.selectFrom('galleries').innerJoin('websites', 'websites.id', 'galleries.website_id').select('galleries.uuid').where('websites.urlname', '=', 'bench').where('galleries.parent_id', 'is', null).executeTakeFirstOrThrow()).uuid;
  const created = await b.client.createGallery('bench', { name: 'Archive bench', parent: root, acl: [{ email: 'DEFAULT', read: 1, comp_download: 0, hires_download: 1 }] });
  const galleryUuid = text(created.doc, 'gallery/uuid')!;
  const gallery = await b.db.selectFrom('galleries').select(['id', 'full_url_path']).where('uuid', '=', galleryUuid).executeTakeFirstOrThrow();

  // The files: made once (cached), copied into the store, one media each, published in order.
  const sources: string[] = [];
  for (let i = 0; i < DISTINCT; i++) {
    await realisticPhoto(1000 + i);
    sources.push(join((await import('node:os')).tmpdir(), 'mps-realistic-photos', `6000x4000-${1000 + i}.jpg`));
  }
  // The local store keeps key K at DATA_DIR/media/K.
  const folder = join(b.dataDir, 'media', 'media', 'zz', 'bench-archive');
  await mkdir(folder, { recursive: true });
  const artist = await b.db.selectFrom('artists').select('id').where('uuid', '=', b.user.defaultArtistUuid).executeTakeFirstOrThrow();
  let total = 0;
  const now = nowIso();
  for (let i = 0; i < PHOTOS; i++) {
    const name = `DSC_${String(i + 1).padStart(4, '0')}.jpg`;
    await copyFile(sources[i % DISTINCT], join(folder, name));
    const size = (await stat(join(folder, name))).size;
    total += size;
    const media = await b.db
      .insertInto('medias')
      .values({ uuid: crypto.randomUUID(), owner_id: b.user.id, artist_id: artist.id, status: 'live', file_name: name, mime_type: 'image/jpeg', storage_key: `media/zz/bench-archive/${name}`, file_size: size, width: 6000, height: 4000, renditions_state: 'ready', created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    await b.db.insertInto('media_galleries').values({ gallery_id: gallery.id, media_id: media.id, position: i + 1, published_at: now }).execute();
  }
  const archiveUrl = `${b.url}/sites/bench/-/${gallery.full_url_path}/_archive.zip`;
  const bare = await startPortPrinter(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts', 'files', folder]);
  const bareUrl = `http://127.0.0.1:${bare.port}/`;
  try {
    // Warm-up: the files in the page cache, the service's code paths compiled.
    await download(bareUrl);
    const warm = await download(archiveUrl, b.pid);
    if (warm.bytes < total) throw new Error(`the archive is ${warm.bytes} bytes for ${total} bytes of files`);
    const ratios: number[] = [];
    const bareMBs: number[] = [];
    const zipMBs: number[] = [];
    const firstBytes: number[] = [];
    const growths: number[] = [];
    // CPU seconds per GB sent, of the serving process alone: what the archive costs beyond a plain
    // read, whatever the neighbours do to the wall clock (the machine is shared).
    const bareCpu: number[] = [];
    const zipCpu: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const c0 = await cpuSeconds(bare.child.pid!);
      const plain = await download(bareUrl);
      const c1 = await cpuSeconds(b.pid);
      const zip = await download(archiveUrl, b.pid);
      const c2 = await cpuSeconds(b.pid);
      bareCpu.push((((await cpuSeconds(bare.child.pid!)) - c0) / plain.bytes) * 1e9);
      zipCpu.push(((c2 - c1) / zip.bytes) * 1e9);
      bareMBs.push(plain.bytes / plain.seconds / 1e6);
      zipMBs.push(total / zip.seconds / 1e6);
      ratios.push(total / zip.seconds / (plain.bytes / plain.seconds));
      firstBytes.push(zip.firstByteMs);
      growths.push(zip.rssGrowth);
    }
    const ratio = median(ratios);
    const first = Math.max(...firstBytes);
    const growth = Math.max(...growths);
    return [
      { name: `archive: ${PHOTOS} originals of 24 MP, ${(total / 1e9).toFixed(2)} GB in all`, value: total / PHOTOS / 1e6, unit: 'MB/photo' },
      { name: `bare node:http streaming the files (spread ${spread(bareMBs, 0)})`, value: median(bareMBs), unit: 'MB/s' },
      { name: `gallery archive (spread ${spread(zipMBs, 0)})`, value: median(zipMBs), unit: 'MB/s' },
      { name: `archive / bare ratio (median of ${ROUNDS}, spread ${spread(ratios)})`, value: ratio, unit: 'x', target: '>= 0.8', ok: ratio >= 0.8 },
      { name: `CPU per GB: bare server (spread ${spread(bareCpu)})`, value: median(bareCpu), unit: 's/GB' },
      { name: `CPU per GB: service sending the archive (spread ${spread(zipCpu)})`, value: median(zipCpu), unit: 's/GB' },
      { name: `archive: first byte (worst of ${ROUNDS}, spread ${spread(firstBytes, 0)})`, value: first, unit: 'ms', target: '<= 1000', ok: first <= 1000 },
      { name: `archive: service RSS growth (worst of ${ROUNDS}, spread ${spread(growths, 1)})`, value: growth, unit: 'MiB', target: '<= 64', ok: growth <= 64 },
    ];
  } finally {
    await stopChild(bare.child);
    await rm(folder, { recursive: true, force: true });
  }
}
