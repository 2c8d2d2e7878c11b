// A text watermark is drawn whole: no glyph clipped at its edges, whatever the
// letters (wide capitals too), and never wider than the picture it goes on.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { textMark } from '../../src/renditions/ladder.js';

/** The width the text really takes, drawn at `size` on a canvas far wider than it needs. */
async function trueWidth(text: string, size: number): Promise<number> {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size * text.length * 3}" height="${size * 2}">` +
    `<text x="${size}" y="${size * 1.4}" font-family="sans-serif" font-weight="bold" font-size="${size}" fill="#ffffff" stroke="#000000" stroke-width="${Math.max(1, Math.round(size / 24))}">${text}</text></svg>`;
  const { info } = await sharp(Buffer.from(svg)).trim().toBuffer({ resolveWithObject: true });
  return info.width;
}

/** Whether any pixel of the leftmost or rightmost column is drawn (a glyph cut by the edge). */
async function touchesSides(png: Buffer): Promise<boolean> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  for (let y = 0; y < info.height; y++) {
    for (const x of [0, info.width - 1]) if (data[(y * info.width + x) * 4 + 3] > 0) return true;
  }
  return false;
}

describe('text watermarks', () => {
  for (const text of ['PROOF', 'WWW MMM', '© Ann Lee 2026']) {
    it(`draws "${text}" whole on a 1280 × 853 rendition`, async () => {
      const mark = await textMark(text, 1280, 853);
      const meta = await sharp(mark).metadata();
      const size = Math.round(853 / 12);
      expect(meta.width!).toBeGreaterThanOrEqual((await trueWidth(text, size)) - 2);
      expect(await touchesSides(mark)).toBe(false);
      expect(meta.width!).toBeLessThanOrEqual(1280);
    });
  }

  it('makes a long text smaller rather than cut it on a small picture', async () => {
    const mark = await textMark('A RATHER LONG COPYRIGHT NOTICE FOR THIS PICTURE', 1280, 853);
    const meta = await sharp(mark).metadata();
    expect(meta.width!).toBeLessThanOrEqual(1280);
    expect(await touchesSides(mark)).toBe(false);
  });
});
