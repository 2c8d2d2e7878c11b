// Quality per rung by measurement (issue 31): on a corpus of realistic 24 MP photos, each rung
// made from one decode as the ladder makes it, encoded as WebP and AVIF at several qualities;
// bytes, encode time and SSIM (luma, 8×8 windows every 4 px) against the unencoded rung.
// `npx tsx bench/rendition-quality.ts` (BENCH_QUALITY_PHOTOS, default 6; BENCH_QUALITY_CORPUS grain
// or natural). Prints a table.
import sharp from 'sharp';
import { naturalPhoto, realisticPhoto } from '../test/site/site-support.js';

sharp.concurrency(1);
sharp.cache(false);

const PHOTOS = Number(process.env.BENCH_QUALITY_PHOTOS ?? 6);
const RUNGS = (process.env.BENCH_QUALITY_RUNGS ?? '320,640,1280').split(',').map(Number);
const WEBP_Q = (process.env.BENCH_QUALITY_WEBP ?? '60,70,75,80').split(',').map(Number);
const AVIF_Q = (process.env.BENCH_QUALITY_AVIF ?? '45,50,55,60,65').split(',').map(Number);
const AVIF_EFFORT = Number(process.env.BENCH_QUALITY_EFFORT ?? 2);
const CHROMA = process.env.BENCH_QUALITY_CHROMA ?? '4:2:0';
/** `grain` (the weight budgets' corpus, hard to compress) or `natural` (a smooth sky, a ridge, soft colour, mild noise). */
const CORPUS = process.env.BENCH_QUALITY_CORPUS ?? 'grain';

export function luma(data: Buffer, channels: number, n: number): Float32Array {
  const y = new Float32Array(n);
  for (let i = 0, p = 0; i < n; i++, p += channels) y[i] = 0.299 * data[p] + 0.587 * data[p + 1] + 0.114 * data[p + 2];
  return y;
}

/** Mean SSIM of two luma planes over 8×8 windows, every 4 px. */
export function ssim(a: Float32Array, b: Float32Array, width: number, height: number): number {
  const C1 = (0.01 * 255) ** 2;
  const C2 = (0.03 * 255) ** 2;
  let sum = 0;
  let count = 0;
  for (let y = 0; y + 8 <= height; y += 4) {
    for (let x = 0; x + 8 <= width; x += 4) {
      let sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
      for (let j = 0; j < 8; j++) {
        let i = (y + j) * width + x;
        for (let k = 0; k < 8; k++, i++) {
          const va = a[i], vb = b[i];
          sa += va; sb += vb; saa += va * va; sbb += vb * vb; sab += va * vb;
        }
      }
      const ma = sa / 64, mb = sb / 64;
      const va = saa / 64 - ma * ma, vb = sbb / 64 - mb * mb, cov = sab / 64 - ma * mb;
      sum += ((2 * ma * mb + C1) * (2 * cov + C2)) / ((ma * ma + mb * mb + C1) * (va + vb + C2));
      count++;
    }
  }
  return sum / count;
}

/** Halves a plane (2×2 means). */
function half(a: Float32Array, width: number, height: number): { plane: Float32Array; width: number; height: number } {
  const w = width >> 1, h = height >> 1;
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const i = 2 * y * width + 2 * x;
    out[y * w + x] = (a[i] + a[i + 1] + a[i + width] + a[i + width + 1]) / 4;
  }
  return { plane: out, width: w, height: h };
}

/** The contrast-structure and luminance terms of SSIM over 8×8 windows every 4 px. */
function terms(a: Float32Array, b: Float32Array, width: number, height: number): { cs: number; l: number } {
  const C1 = (0.01 * 255) ** 2;
  const C2 = (0.03 * 255) ** 2;
  let cs = 0, l = 0, count = 0;
  for (let y = 0; y + 8 <= height; y += 4) {
    for (let x = 0; x + 8 <= width; x += 4) {
      let sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
      for (let j = 0; j < 8; j++) {
        let i = (y + j) * width + x;
        for (let k = 0; k < 8; k++, i++) {
          const va = a[i], vb = b[i];
          sa += va; sb += vb; saa += va * va; sbb += vb * vb; sab += va * vb;
        }
      }
      const ma = sa / 64, mb = sb / 64;
      const va = saa / 64 - ma * ma, vb = sbb / 64 - mb * mb, cov = sab / 64 - ma * mb;
      cs += (2 * cov + C2) / (va + vb + C2);
      l += (2 * ma * mb + C1) / (ma * ma + mb * mb + C1);
      count++;
    }
  }
  return { cs: cs / count, l: l / count };
}

/** MS-SSIM (Wang, Simoncelli, Bovik 2003: five scales and their weights), 8×8 windows. */
export function msSsim(a: Float32Array, b: Float32Array, width: number, height: number): number {
  const weights = [0.0448, 0.2856, 0.3001, 0.2363, 0.1333];
  let out = 1;
  let A = { plane: a, width, height };
  let B = { plane: b, width, height };
  for (let s = 0; s < weights.length; s++) {
    const t = terms(A.plane, B.plane, A.width, A.height);
    out *= Math.max(0, s === weights.length - 1 ? t.cs * t.l : t.cs) ** weights[s];
    A = half(A.plane, A.width, A.height);
    B = half(B.plane, B.width, B.height);
  }
  return out;
}

interface Row { rung: number; format: string; quality: number; bytes: number[]; ssim: number[]; ms: number[]; msssim: number[] }

async function main(): Promise<void> {
  const rows = new Map<string, Row>();
  const row = (rung: number, format: string, quality: number) => {
    const k = `${rung}/${format}/${quality}`;
    let r = rows.get(k);
    if (!r) rows.set(k, (r = { rung, format, quality, bytes: [], ssim: [], ms: [], msssim: [] }));
    return r;
  };
  for (let p = 0; p < PHOTOS; p++) {
    const input = CORPUS === 'natural' ? await naturalPhoto(p, { portrait: p % 5 === 3 }) : await realisticPhoto(p, { portrait: p % 5 === 3 });
    // The ladder's one decode.
    const { data, info } = await sharp(input).rotate().resize(3840, 3840, { fit: 'inside' }).toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
    const raw = { width: info.width, height: info.height, channels: info.channels };
    for (const rung of RUNGS) {
      const scale = rung / Math.max(raw.width, raw.height);
      const w = Math.round(raw.width * scale), h = Math.round(raw.height * scale);
      const ref = await sharp(data, { raw }).resize(w, h, { fit: 'fill' }).raw().toBuffer();
      const refY = luma(ref, raw.channels, w * h);
      const tries: Array<[string, number]> = [...WEBP_Q.map((q) => ['webp', q] as [string, number]), ...AVIF_Q.map((q) => ['avif', q] as [string, number])];
      for (const [format, q] of tries) {
        const start = process.hrtime.bigint();
        const img = sharp(data, { raw }).resize(w, h, { fit: 'fill' });
        const bytes = await (format === 'webp' ? img.webp({ quality: q, effort: 3 }) : img.avif({ quality: q, effort: AVIF_EFFORT, chromaSubsampling: CHROMA })).toBuffer();
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        const back = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
        const r = row(rung, format, q);
        r.bytes.push(bytes.length);
        r.ms.push(ms);
        const got = luma(back.data, back.info.channels, w * h);
        r.ssim.push(ssim(refY, got, w, h));
        r.msssim.push(msSsim(refY, got, w, h));
      }
    }
    process.stderr.write(`photo ${p + 1}/${PHOTOS}\n`);
    print(rows, p + 1);
  }
}

function print(rows: Map<string, Row>, photos: number): void {
  console.log(`\n${CORPUS}: ${photos} photo(s), AVIF effort ${AVIF_EFFORT}, chroma ${CHROMA}:`);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(`| rung | format | quality | mean bytes | bytes min–max | SSIM (mean) | SSIM min | MS-SSIM (mean) | MS-SSIM min | encode ms (mean) |`);
  console.log(`|---|---|---|---|---|---|---|---|---|---|`);
  for (const r of rows.values()) {
    console.log(`| ${r.rung} | ${r.format} | ${r.quality} | ${Math.round(mean(r.bytes) / 100) / 10} kB | ${Math.round(Math.min(...r.bytes) / 1000)}–${Math.round(Math.max(...r.bytes) / 1000)} kB | ${mean(r.ssim).toFixed(4)} | ${Math.min(...r.ssim).toFixed(4)} | ${mean(r.msssim).toFixed(4)} | ${Math.min(...r.msssim).toFixed(4)} | ${Math.round(mean(r.ms))} |`);
  }
}

// Run as a script; other benches import its measures.
if (process.argv[1]?.endsWith('rendition-quality.ts')) await main();
