// Part of the `cores` section (bench/cores.ts): `count` ladders of `input`
// (the sizes and types of bench/bare-ladder.ts, from one decode each), `jobs`
// at once, with libvips' `threads` per pipeline, in this process alone.
// Prints {"seconds", "cpuSeconds"}: the CPU time over the wall time is how
// many cores the configuration really kept busy.
import sharp from 'sharp';

const [input, jobsArg, threadsArg, countArg] = process.argv.slice(2);
const jobs = Number(jobsArg ?? 1);
const count = Number(countArg ?? 8);
sharp.concurrency(Number(threadsArg ?? 1));
sharp.cache(false);
await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } }).webp().toBuffer();

async function ladder(): Promise<void> {
  const { data, info } = await sharp(input, { sequentialRead: true }).rotate().resize(3840, 3840, { fit: 'inside', withoutEnlargement: true }).toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const long = Math.max(info.width, info.height);
  for (const edge of [320, 640, 1280, 2048, 3840].filter((e) => e <= long)) {
    const width = Math.round((info.width * edge) / long);
    const height = Math.round((info.height * edge) / long);
    const raw = { width: info.width, height: info.height, channels: info.channels };
    await sharp(data, { raw }).resize(width, height, { fit: 'fill' }).webp({ quality: 80, effort: 3 }).toBuffer();
    await sharp(data, { raw }).resize(width, height, { fit: 'fill' }).jpeg({ quality: 82 }).toBuffer();
  }
}

const cpu0 = process.cpuUsage();
const t0 = performance.now();
let next = 0;
await Promise.all(Array.from({ length: jobs }, async () => {
  while (next < count) {
    next++;
    await ladder();
  }
}));
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
console.log(JSON.stringify({ seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 }));
