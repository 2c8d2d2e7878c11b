// Issue 34: `mps sync` (the built command, a process of its own, the API's three steps) against the
// studio's upload (tus + finish) of the same small photos, the same number at once, in alternating
// rounds; files per minute, median of the rounds with the spread (min–max).
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BenchContext, type BenchLine, median } from './lib.js';
import { pool, SCREEN_PARALLEL, studioUploader, writeSmallPhotos } from './studio-upload.js';
import { settleDisk } from './uploads.js';

function runSync(b: BenchContext, folder: string, gallery: string, sessionFile: string): Promise<{ uploaded: number; media: string[] }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, MPS_URL: b.url, MPS_API_KEY: b.app.key, MPS_API_SECRET: b.app.secret, MPS_LOGIN: b.user.email, MPS_PASSWORD: b.user.password, MPS_SESSION_FILE: sessionFile };
    const child = spawn(process.execPath, [join('bin', 'mps.mjs'), 'sync', folder, '--gallery', gallery, '--website', 'bench', '--json', '--concurrency', String(SCREEN_PARALLEL)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`mps sync exited ${code}: ${err}`));
      const s = JSON.parse(out) as { counts: { uploaded: number }; files: Array<{ media?: string }> };
      resolve({ uploaded: s.counts.uploaded, media: s.files.map((f) => f.media!).filter(Boolean) });
    });
  });
}

function figure(name: string, values: number[]): BenchLine {
  const spread = `${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))}`;
  return { name: `${name} (median of ${values.length}, ${spread})`, value: Math.round(median(values)), unit: 'files/min' };
}

export async function benchSync(b: BenchContext): Promise<BenchLine[]> {
  const count = Number(process.env.BENCH_SYNC_FILES ?? 200);
  const rounds = Number(process.env.BENCH_SYNC_ROUNDS ?? 3);
  const dir = await mkdtemp(join(tmpdir(), 'mps-bench-sync-'));
  const folder = join(dir, 'photos');
  await mkdir(folder);
  const photos = await writeSmallPhotos(folder, count);
  const totalBytes = (await Promise.all(photos.map((p) => stat(p)))).reduce((n, s) => n + s.size, 0);
  const syncRates: number[] = [];
  const studioRates: number[] = [];
  const perMinute = (ms: number) => (count * 60_000) / ms;
  try {
    // Warm-up: the build checked, the command's modules in the page cache.
    await runSync(b, join(dir, 'empty-does-not-exist'), 'Bench/Warm', join(dir, 'session')).catch(() => undefined);
    for (let round = 0; round < rounds; round++) {
      await unlink(join(folder, '.mps-sync.json')).catch(() => undefined);
      await settleDisk();
      let synced: { uploaded: number; media: string[] } = { uploaded: 0, media: [] };
      const syncMs = await b.time(async () => (synced = await runSync(b, folder, `Bench/Sync ${round}`, join(dir, 'session'))));
      if (synced.uploaded !== count) throw new Error(`mps sync sent ${synced.uploaded} of ${count}`);
      syncRates.push(perMinute(syncMs));
      for (const m of synced.media) await b.client.request('DELETE', `/medias/${m}.xml`);

      await settleDisk();
      const studio = await studioUploader(b);
      const studioMs = await b.time(() => pool(photos, SCREEN_PARALLEL, studio.one));
      studioRates.push(perMinute(studioMs));
      for (const m of studio.medias) await b.client.request('DELETE', `/medias/${m}.xml`);
    }
    const ratios = syncRates.map((s, i) => s / studioRates[i]!);
    return [
      figure(`mps sync, ${count} photos (${(totalBytes / 1024 / 1024).toFixed(0)} MiB), ${SCREEN_PARALLEL} at once, the command's start and listing included`, syncRates),
      figure(`studio upload (tus + finish), the same ${count} photos, ${SCREEN_PARALLEL} at once`, studioRates),
      { name: `sync / studio ratio (median of ${rounds} alternating rounds, ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`, value: median(ratios), unit: 'x' },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
