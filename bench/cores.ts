// What the machine's cores give the rendition ladder (issue 22, item (c) of the
// queue's figures): bare sharp ladders of a 24 MP JPEG (bench/bare-ladders.ts,
// no service, no database) in four configurations, each in a fresh process,
// the rounds interleaved so that the machine's load falls on all alike:
//   1 ladder at a time, 1 libvips thread  (RENDITION_CONCURRENCY=1 today)
//   1 ladder at a time, 2 libvips threads (what one ladder gains from a second thread)
//   2 ladders at once, 1 thread each      (the default parallelism today)
//   2 ladders at once, 2 threads each
// Absolute photos/s and cores kept busy (CPU time / wall time) for each, and
// the machine's ceiling measured between them: two CPU-bound loops at once /
// one (1.0: the second core is someone else's; 2.0: both are ours).
// BENCH_CORES_PHOTOS (8) ladders per configuration and round, BENCH_CORES_ROUNDS (3).
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { BenchContext, BenchLine } from './lib.js';
import { median } from './lib.js';

const PHOTOS = Number(process.env.BENCH_CORES_PHOTOS ?? 8);
const ROUNDS = Number(process.env.BENCH_CORES_ROUNDS ?? 3);
const CONFIGS: Array<{ jobs: number; threads: number }> = [
  { jobs: 1, threads: 1 },
  { jobs: 1, threads: 2 },
  { jobs: 2, threads: 1 },
  { jobs: 2, threads: 2 },
];

async function photo(): Promise<string> {
  const dir = join(tmpdir(), 'mps-bench-queue-cache');
  await mkdir(dir, { recursive: true });
  const path = join(dir, '24mp-0.jpg');
  if (!existsSync(path)) {
    const tmp = `${path}.${process.pid}.tmp`;
    await sharp({ create: { width: 6000, height: 4000, channels: 3, background: { r: 40, g: 90, b: 140 }, noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).blur(1.5).jpeg({ quality: 90 }).toFile(tmp);
    await copyFile(tmp, path);
    await rm(tmp, { force: true });
  }
  return path;
}

/** ms of a CPU-bound loop in its own process, `n` at once (the slowest). */
async function spin(n: number): Promise<number> {
  const code = 'const t0 = performance.now(); let x = 0; for (let i = 0; i < 4e8; i++) x += i % 7; console.log(performance.now() - t0);';
  const runs = await Promise.all(
    Array.from({ length: n }, () => new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      child.on('exit', (status) => (status === 0 ? resolve(Number(out)) : reject(new Error('spin failed'))));
    })),
  );
  return Math.max(...runs);
}

const spread = (v: number[]) => `${Math.min(...v).toFixed(2)}–${Math.max(...v).toFixed(2)}`;

export async function benchCores(_b: BenchContext): Promise<BenchLine[]> {
  const input = await photo();
  const rate = new Map<string, number[]>();
  const busy = new Map<string, number[]>();
  const ceiling: number[] = [];
  const load: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    ceiling.push((2 * (await spin(1))) / (await spin(2)));
    load.push(Number((await readFile('/proc/loadavg', 'utf8')).split(' ')[0]));
    for (const c of CONFIGS) {
      const key = `${c.jobs}x${c.threads}`;
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bench/bare-ladders.ts', input, String(c.jobs), String(c.threads), String(PHOTOS)]);
      const r = JSON.parse(stdout) as { seconds: number; cpuSeconds: number };
      rate.set(key, [...(rate.get(key) ?? []), PHOTOS / r.seconds]);
      busy.set(key, [...(busy.get(key) ?? []), r.cpuSeconds / r.seconds]);
    }
  }
  ceiling.push((2 * (await spin(1))) / (await spin(2)));
  const lines: BenchLine[] = [];
  const base = median(rate.get('1x1')!);
  for (const c of CONFIGS) {
    const key = `${c.jobs}x${c.threads}`;
    const r = rate.get(key)!;
    lines.push({ name: `${c.jobs} ladder(s) at once, ${c.threads} libvips thread(s): photos/s (${spread(r)}), cores busy ${spread(busy.get(key)!)}`, value: median(r), unit: 'photos/s' });
    if (key !== '1x1') lines.push({ name: `  ${key} / 1x1 (rounds ${spread(rate.get(key)!.map((v, i) => v / rate.get('1x1')![i]!))})`, value: median(r) / base, unit: 'x' });
  }
  lines.push({ name: `the machine's ceiling: 2 CPU loops at once / one (${spread(ceiling)}); load ${spread(load)}`, value: median(ceiling), unit: 'x' });
  return lines;
}
