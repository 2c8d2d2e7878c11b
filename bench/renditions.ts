// The rendition ladder of a 24-megapixel JPEG (issue 9): the renditions job's
// time (from the job's own start and finish) against a bare sharp script
// making the same sizes from one decode in the same run, and the service's
// RSS growth from the upload until the renditions are ready.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { all, text } from '../src/client/xml.js';
import type { BenchContext, BenchLine } from './lib.js';
import { median, runLoad, startPortPrinter, stopChild } from './lib.js';

const MiB = 1024 * 1024;

async function rssBytes(pid: number): Promise<number> {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

export async function benchRenditions(b: BenchContext): Promise<BenchLine[]> {
  const dir = await mkdtemp(join(tmpdir(), 'mps-bench-renditions-'));
  const rounds = Number(process.env.BENCH_RENDITION_ROUNDS ?? 3);
  try {
    // 6000 × 4000, photo-like noise (a flat picture would flatter the encoders).
    const photo = join(dir, '24mp.jpg');
    await sharp({ create: { width: 6000, height: 4000, channels: 3, background: '#000000', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).blur(1.5).jpeg({ quality: 90 }).toFile(photo);
    const bytes = await readFile(photo);
    const bare: number[] = [];
    const service: number[] = [];
    const growth: number[] = [];
    /** The last photo this section uploaded: the list's first media may be another section's (without renditions). */
    let last = '';
    for (let round = 0; round < rounds; round++) {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bench/bare-ladder.ts', photo, '1']);
      bare.push((JSON.parse(stdout) as { ms: number }).ms);

      const before = await rssBytes(b.pid);
      let peak = before;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          peak = Math.max(peak, await rssBytes(b.pid).catch(() => 0));
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      const res = await b.client.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: `bench-${round}.jpg`, data: bytes } });
      const uuid = text(res.doc, 'media/uuid')!;
      last = uuid;
      for (;;) {
        const state = text((await b.client.request('GET', `/medias/${uuid}.xml`)).doc, 'media/renditions-state');
        if (state === 'ready') break;
        if (state === 'failed') throw new Error('renditions failed in the bench');
        await new Promise((r) => setTimeout(r, 50));
      }
      sampling = false;
      await sampler;
      growth.push(peak - before);
      const job = await b.db.selectFrom('jobs').select(['started_at', 'finished_at']).where('kind', '=', 'renditions').orderBy('id', 'desc').executeTakeFirstOrThrow();
      service.push(Date.parse(job.finished_at!) - Date.parse(job.started_at!));
      if (process.env.BENCH_VERBOSE) console.error(`ladder round ${round}: service ${service[round]} ms, bare ${bare[round].toFixed(0)} ms, RSS +${(growth[round] / MiB).toFixed(0)} MiB`);
    }
    // A thumbnail of a public media, against a bare node:http server streaming the same file.
    const root = await b.db.selectFrom('galleries').select('uuid').where('parent_id', 'is', null).executeTakeFirstOrThrow();
    const shown = await b.client.request('PUT', `/medias/${last}.xml`, { 'media[publish_to_galleries]': [root.uuid] }, { multipart: true });
    const thumbUrl = all(shown.doc, 'media/renditions/rendition').map((r) => ({ name: text(r, 'name'), type: text(r, 'type'), url: text(r, 'url')! })).find((r) => r.name === '320' && r.type === 'image/webp')!.url;
    const thumbKey = new URL(thumbUrl).pathname.replace(/^\/files\//, '');
    const sink = await startPortPrinter(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts', 'file', join(b.dataDir, 'media', ...thumbKey.split('/')), 'image/webp']);
    const thumbRatios: number[] = [];
    const thumbRps: number[] = [];
    try {
      await runLoad(thumbUrl, {}, undefined, 1);
      for (let round = 0; round < rounds; round++) {
        const bareLoad = await runLoad(`http://127.0.0.1:${sink.port}/thumb.webp`, {});
        const served = await runLoad(thumbUrl, {});
        if (served.non2xx > 0 || served.errors > 0) throw new Error(`thumbnail load had ${served.non2xx} non-2xx replies and ${served.errors} errors`);
        thumbRatios.push(served.rps / bareLoad.rps);
        thumbRps.push(served.rps);
      }
    } finally {
      await stopChild(sink.child);
    }
    const ratio = median(service.map((s, i) => s / bare[i]));
    const thumbRatio = median(thumbRatios);
    const maxGrowth = Math.max(...growth) / MiB;
    const spread = (v: number[]) => `${Math.round(Math.min(...v))}–${Math.round(Math.max(...v))}`;
    return [
      { name: `bare sharp ladder, 24 MP JPEG (ms ${spread(bare)})`, value: Math.round(median(bare)), unit: 'ms' },
      { name: `renditions job, same ladder (ms ${spread(service)})`, value: Math.round(median(service)), unit: 'ms' },
      { name: `ladder job / bare ratio (median of ${rounds})`, value: ratio, unit: 'x', target: '<= 1.3', ok: ratio <= 1.3 },
      { name: `service RSS growth while making it (max of ${rounds})`, value: maxGrowth, unit: 'MiB', target: '<= 256', ok: maxGrowth <= 256 },
      { name: 'GET /files/<320 webp> (public, unsigned)', value: Math.round(median(thumbRps)), unit: 'req/s' },
      { name: `thumbnail / bare file server ratio (median of ${rounds})`, value: thumbRatio, unit: 'x', target: '>= 0.7', ok: thumbRatio >= 0.7 },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
