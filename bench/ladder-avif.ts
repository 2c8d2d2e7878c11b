// What the AVIF alternates cost a ladder (issue 31): the service's own makeLadder on realistic 24 MP
// photos (test/site/site-support.ts), one libvips thread as in the service, with and without the
// alternates in alternating rounds; wall and CPU seconds per ladder (CPU time counts libvips'
// thread too, and moves less with the machine's load than the wall clock).
// `npx tsx bench/ladder-avif.ts` (BENCH_LADDER_ROUNDS, default 5; BENCH_LADDER_PHOTOS, default 3).
import { loadavg } from 'node:os';
import sharp from 'sharp';
import { makeLadder } from '../src/renditions/ladder.js';
import { realisticPhoto } from '../test/site/site-support.js';

sharp.concurrency(1);
sharp.cache(false);

const ROUNDS = Number(process.env.BENCH_LADDER_ROUNDS ?? 5);
const PHOTOS = Number(process.env.BENCH_LADDER_PHOTOS ?? 3);
const photos = await Promise.all(Array.from({ length: PHOTOS }, (_, i) => realisticPhoto(i)));
// Warm: libvips' start-up and the encoders' first use are not a ladder's cost.
await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } }).webp().toBuffer();
await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } }).avif().toBuffer();

async function one(input: Buffer, avif: boolean): Promise<{ wall: number; cpu: number; avifBytes: number }> {
  let avifBytes = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await makeLadder(
    input,
    {
      accept: new Set(['jpeg']),
      timeoutSeconds: 600,
      avif: avif ? { afterBase: async () => true, onAlternateFailed: (err) => { throw err; } } : undefined,
    },
    async (file) => {
      if (file.format === 'avif') avifBytes += file.bytes.length;
    },
  );
  const cpu = process.cpuUsage(cpu0);
  return { wall: (performance.now() - t0) / 1000, cpu: (cpu.user + cpu.system) / 1e6, avifBytes };
}

const runs = { without: { wall: [] as number[], cpu: [] as number[] }, with: { wall: [] as number[], cpu: [] as number[] } };
const loads: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const [p, input] of photos.entries()) {
    // Alternating which goes first, so a change of load falls on both.
    for (const avif of round % 2 === 0 ? [false, true] : [true, false]) {
      const r = await one(input, avif);
      const into = avif ? runs.with : runs.without;
      into.wall.push(r.wall);
      into.cpu.push(r.cpu);
      loads.push(loadavg()[0]!);
      process.stderr.write(`round ${round + 1} photo ${p + 1} ${avif ? 'with AVIF' : 'without'}: ${r.wall.toFixed(2)} s wall, ${r.cpu.toFixed(2)} s CPU${avif ? `, AVIF ${(r.avifBytes / 1000).toFixed(0)} kB` : ''}\n`);
    }
  }
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (xs: number[]) => `${median(xs).toFixed(2)} s (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
console.log(`${ROUNDS} rounds × ${PHOTOS} photos of 24 MP, load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`);
console.log('| ladder | wall, median (min–max) | CPU, median (min–max) |');
console.log('|---|---|---|');
console.log(`| WebP and JPEG (RENDITION_AVIF=off) | ${fmt(runs.without.wall)} | ${fmt(runs.without.cpu)} |`);
console.log(`| with the AVIF alternates (=on) | ${fmt(runs.with.wall)} | ${fmt(runs.with.cpu)} |`);
const ratios = runs.with.cpu.map((c, i) => c / runs.without.cpu[i]!);
console.log(`CPU with / without, per pair: median ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`);
