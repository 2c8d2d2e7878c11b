// The phone's rung (issue 31) against the 1280 it replaces, as a phone shows them: each encoded
// (WebP 80, and the AVIF of each rung at its quality), decoded, then drawn at the phone's
// device pixels (1122 px wide: 390 CSS px at 3x less the page's margins; 1040 for 412 at
// 2.625x) as the browser scales it down, against the photo itself scaled to those pixels: SSIM
// and MS-SSIM (bench/rendition-quality.ts). `npx tsx bench/phone-rung-quality.ts`
// (BENCH_QUALITY_PHOTOS, default 3; BENCH_QUALITY_CORPUS grain or natural; BENCH_PHONE_WIDTHS;
// BENCH_PHONE_CANDIDATES, `rung:format:quality[:effort]`; WebP's effort is the ladder's 3, AVIF's 2, unless given).
import sharp from 'sharp';
import { naturalPhoto, realisticPhoto } from '../test/site/site-support.js';
import { luma, msSsim, ssim } from './rendition-quality.js';

sharp.concurrency(1);
sharp.cache(false);

const PHOTOS = Number(process.env.BENCH_QUALITY_PHOTOS ?? 3);
const CORPUS = process.env.BENCH_QUALITY_CORPUS ?? 'grain';
const WIDTHS = (process.env.BENCH_PHONE_WIDTHS ?? '1122,1040').split(',').map(Number);
type Candidate = { rung: number; format: 'webp' | 'avif' | 'png'; quality: number; effort?: number };
const DEFAULT_CANDIDATES: Candidate[] = [
  // Lossless: what the resizing alone costs (the rung, then the browser's scaling).
  { rung: 1280, format: 'png', quality: 100 },
  { rung: 1152, format: 'png', quality: 100 },
  { rung: 1280, format: 'webp', quality: 80 },
  { rung: 1152, format: 'webp', quality: 80 },
  { rung: 1152, format: 'webp', quality: 75 },
  { rung: 1152, format: 'webp', quality: 83 },
  { rung: 1152, format: 'webp', quality: 86 },
  { rung: 1280, format: 'avif', quality: 66 },
  { rung: 1152, format: 'avif', quality: 66 },
];
/** BENCH_PHONE_CANDIDATES, e.g. `1152:webp:80,1152:webp:78:6,1152:avif:60`: these instead of the list above. */
const CANDIDATES = process.env.BENCH_PHONE_CANDIDATES
  ? process.env.BENCH_PHONE_CANDIDATES.split(',').map((c) => {
      const [rung, format, quality, effort] = c.split(':');
      return { rung: Number(rung), format: format as Candidate['format'], quality: Number(quality), effort: effort === undefined ? undefined : Number(effort) };
    })
  : DEFAULT_CANDIDATES;

const rows = new Map<string, { bytes: number[]; ssim: number[]; ms: number[]; seconds: number[] }>();
for (let p = 0; p < PHOTOS; p++) {
  const input = CORPUS === 'natural' ? await naturalPhoto(p) : await realisticPhoto(p);
  // The ladder's one decode (landscape photos: full width on a phone).
  const { data, info } = await sharp(input).rotate().resize(3840, 3840, { fit: 'inside' }).toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const raw = { width: info.width, height: info.height, channels: info.channels };
  for (const shown of WIDTHS) {
    const h = Math.round((raw.height * shown) / raw.width);
    const ref = luma(await sharp(data, { raw }).resize(shown, h, { fit: 'fill' }).raw().toBuffer(), raw.channels, shown * h);
    for (const c of CANDIDATES) {
      const w = c.rung, rh = Math.round((raw.height * w) / raw.width);
      const img = sharp(data, { raw }).resize(w, rh, { fit: 'fill' });
      const started = process.hrtime.bigint();
      const bytes = await (c.format === 'png' ? img.png({ compressionLevel: 1 }) : c.format === 'webp' ? img.webp({ quality: c.quality, effort: c.effort ?? 3 }) : img.avif({ quality: c.quality, effort: c.effort ?? 2, chromaSubsampling: '4:2:0' })).toBuffer();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // Drawn at the phone's pixels, as the browser scales it down.
      const drawn = await sharp(bytes).removeAlpha().resize(shown, h, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
      const got = luma(drawn.data, drawn.info.channels, shown * h);
      const k = `${shown} px | ${c.rung} ${c.format} ${c.quality}${c.effort === undefined ? '' : ` effort ${c.effort}`}`;
      const r = rows.get(k) ?? { bytes: [], ssim: [], ms: [], seconds: [] };
      rows.set(k, r);
      r.bytes.push(bytes.length);
      r.seconds.push(seconds);
      r.ssim.push(ssim(ref, got, shown, h));
      r.ms.push(msSsim(ref, got, shown, h));
    }
  }
  process.stderr.write(`photo ${p + 1}/${PHOTOS}\n`);
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(`${CORPUS}: ${PHOTOS} photo(s) of 24 MP`);
console.log('| drawn at | rung, format, quality | mean bytes (min–max) | SSIM as drawn | MS-SSIM as drawn | encode s (min–max) |');
console.log('|---|---|---|---|---|---|');
for (const [k, r] of rows) {
  console.log(`| ${k} | ${(mean(r.bytes) / 1000).toFixed(1)} kB (${Math.round(Math.min(...r.bytes) / 1000)}–${Math.round(Math.max(...r.bytes) / 1000)}) | ${mean(r.ssim).toFixed(4)} | ${mean(r.ms).toFixed(4)} | ${mean(r.seconds).toFixed(2)} (${Math.min(...r.seconds).toFixed(2)}–${Math.max(...r.seconds).toFixed(2)}) |`);
}
