// The seeded photos the docs' screenshots show (scripts/screenshots.ts for the website,
// scripts/studio-screenshots.ts for the studio): the same twelve scenes on every run.
import sharp from 'sharp';
import { MediaPortfolioClient, text } from '../src/client/index.js';

/** A small seeded PRNG (mulberry32): the same photos on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hsl = (h: number, s: number, l: number) => `hsl(${Math.round(h)}, ${Math.round(s)}%, ${Math.round(l)}%)`;

/** Scenes: a sky, a sun or moon, ridges of hills or dunes, water, a few figures: then grain. */
export const SCENES = [
  { title: 'Dunes at first light', hue: 32, ratio: 3 / 2 },
  { title: 'Harbour wall', hue: 205, ratio: 2 / 3 },
  { title: 'Salt marsh', hue: 150, ratio: 4 / 3 },
  { title: 'Evening ridge', hue: 12, ratio: 16 / 9 },
  { title: 'Fog on the lake', hue: 190, ratio: 1 },
  { title: 'Red cliffs', hue: 8, ratio: 4 / 5 },
  { title: 'Pine coast', hue: 120, ratio: 3 / 2 },
  { title: 'Blue hour', hue: 230, ratio: 3 / 4 },
  { title: 'Wheat field', hue: 45, ratio: 5 / 4 },
  { title: 'Glacier tongue', hue: 195, ratio: 2 / 1 },
  { title: 'Olive grove', hue: 80, ratio: 2 / 3 },
  { title: 'Night market', hue: 280, ratio: 3 / 2 },
];

export async function photo(i: number): Promise<Buffer> {
  const rnd = random(1000 + i);
  const { hue, ratio } = SCENES[i];
  const width = ratio >= 1 ? 1800 : Math.round(1800 * ratio);
  const height = ratio >= 1 ? Math.round(1800 / ratio) : 1800;
  const horizon = height * (0.45 + rnd() * 0.2);
  const parts: string[] = [];
  parts.push(
    `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${hsl(hue + 180 * rnd(), 45, 22 + rnd() * 25)}"/><stop offset="1" stop-color="${hsl(hue + 20, 70, 62 + rnd() * 20)}"/></linearGradient>` +
      `<filter id="soft"><feGaussianBlur stdDeviation="${6 + rnd() * 10}"/></filter></defs>`,
    `<rect width="${width}" height="${height}" fill="url(#sky)"/>`,
    `<circle cx="${width * (0.2 + rnd() * 0.6)}" cy="${horizon * (0.3 + rnd() * 0.4)}" r="${Math.min(width, height) * (0.05 + rnd() * 0.07)}" fill="${hsl(hue + 30, 90, 85)}" filter="url(#soft)"/>`,
  );
  // Clouds: soft ellipses.
  for (let c = 0; c < 6; c++) {
    parts.push(`<ellipse cx="${width * rnd()}" cy="${horizon * rnd() * 0.7}" rx="${width * (0.08 + rnd() * 0.2)}" ry="${height * (0.015 + rnd() * 0.04)}" fill="${hsl(hue, 20, 90)}" opacity="${0.15 + rnd() * 0.35}" filter="url(#soft)"/>`);
  }
  // Ridges, darker towards the front.
  const ridges = 3 + Math.floor(rnd() * 3);
  for (let r = 0; r < ridges; r++) {
    const base = horizon + ((height - horizon) * r) / ridges;
    let d = `M0 ${height} L0 ${base}`;
    const steps = 12 + Math.floor(rnd() * 10);
    for (let s = 1; s <= steps; s++) d += ` L${(width * s) / steps} ${base - height * (0.02 + rnd() * 0.12) * (1 - r / (ridges + 1))}`;
    d += ` L${width} ${height} Z`;
    parts.push(`<path d="${d}" fill="${hsl(hue + r * 8 - 10, 35 + rnd() * 30, 42 - r * (30 / ridges))}"/>`);
  }
  // A few figures or posts against the front ridge.
  for (let f = 0; f < 3; f++) {
    const x = width * (0.1 + rnd() * 0.8);
    const h = height * (0.04 + rnd() * 0.08);
    parts.push(`<rect x="${x}" y="${height - h - height * 0.08 * rnd()}" width="${Math.max(3, h * 0.12)}" height="${h}" fill="${hsl(hue, 30, 10)}"/>`);
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${parts.join('')}</svg>`;
  const scene = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer();
  // Grain, seeded like the rest: mostly luminance, a little colour, as film or a small sensor has.
  const grainy = Buffer.alloc(scene.length);
  for (let p = 0; p < scene.length; p += 3) {
    // The sum of three uniforms: close enough to a gaussian, and cheap.
    const luma = (rnd() + rnd() + rnd() - 1.5) * 26;
    for (let c = 0; c < 3; c++) grainy[p + c] = Math.max(0, Math.min(255, scene[p + c] + luma + (rnd() - 0.5) * 10));
  }
  return sharp(grainy, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 88 })
    .toBuffer();
}

export async function waitForRenditions(client: MediaPortfolioClient, uuids: string[]): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (const uuid of uuids) {
    for (;;) {
      const state = text((await client.request('GET', `/medias/${uuid}.xml`)).doc, 'media/renditions-state');
      if (state === 'ready') break;
      if (state === 'failed') throw new Error(`renditions of ${uuid} failed`);
      if (Date.now() > deadline) throw new Error(`renditions of ${uuid} not ready after 300 s (${state})`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
