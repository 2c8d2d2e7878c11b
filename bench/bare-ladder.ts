// The baseline of the renditions bench: a bare sharp script making the same
// sizes and types as the service's ladder from one decode, timed in its own
// process. Prints {"ms": …}.
import sharp from 'sharp';

const [input, threads] = process.argv.slice(2);
sharp.concurrency(Number(threads ?? 1));
sharp.cache(false);
// Warm: libvips' start-up is not the ladder's cost (the service is warm too).
await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } }).webp().toBuffer();
const t0 = performance.now();
const { data, info } = await sharp(input, { sequentialRead: true }).rotate().resize(3840, 3840, { fit: 'inside', withoutEnlargement: true }).toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
const long = Math.max(info.width, info.height);
for (const edge of [320, 640, 1280, 2048, 3840].filter((e) => e <= long)) {
  const width = Math.round((info.width * edge) / long);
  const height = Math.round((info.height * edge) / long);
  const raw = { width: info.width, height: info.height, channels: info.channels };
  await sharp(data, { raw }).resize(width, height, { fit: 'fill' }).webp({ quality: 80, effort: 3 }).toBuffer();
  await sharp(data, { raw }).resize(width, height, { fit: 'fill' }).jpeg({ quality: 82 }).toBuffer();
}
console.log(JSON.stringify({ ms: performance.now() - t0 }));
