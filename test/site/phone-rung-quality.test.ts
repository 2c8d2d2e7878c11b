// Full tier only (test/site): a 24 MP ladder takes seconds, a minute on the loaded test machine.
// The phone's rung (issue 31) as a phone draws it: on a grainy 24 MP photo (the corpus the phone's
// first-view budget is measured on), the ladder's `1152` AVIF drawn at 1122 device pixels (390 CSS px
// at 3x, less the page's margins) is at least as exact as its `1152` WebP drawn there (SSIM and
// MS-SSIM on luma against the photo itself at those pixels, bench/phone-rung-quality.ts), and
// lighter: a browser that asks for AVIF sees what one that does not sees, in fewer bytes.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { luma, msSsim, ssim } from '../../bench/rendition-quality.js';
import { makeLadder, PHONE_RUNG, type RenditionFile } from '../../src/renditions/ladder.js';
import { realisticPhoto } from './site-support.js';

const DRAWN = 1122;

describe("the phone's rung as a phone draws it", () => {
  it('AVIF is as exact as WebP there, and lighter', async () => {
    const input = await realisticPhoto(0);
    const files: RenditionFile[] = [];
    await makeLadder(input, { accept: new Set(['jpeg']), timeoutSeconds: 600, avif: { afterBase: async () => true, onAlternateFailed: (err) => { throw err; } } }, async (f) => {
      if (f.name === String(PHONE_RUNG)) files.push(f);
    });
    const { data, info } = await sharp(input).rotate().resize(3840, 3840, { fit: 'inside' }).toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
    const height = Math.round((info.height * DRAWN) / info.width);
    const ref = luma(await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).resize(DRAWN, height, { fit: 'fill' }).raw().toBuffer(), info.channels, DRAWN * height);
    const asDrawn = async (f: RenditionFile) => {
      const drawn = await sharp(f.bytes).removeAlpha().resize(DRAWN, height, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
      const got = luma(drawn.data, drawn.info.channels, DRAWN * height);
      return { bytes: f.bytes.length, ssim: ssim(ref, got, DRAWN, height), msSsim: msSsim(ref, got, DRAWN, height) };
    };
    const webp = await asDrawn(files.find((f) => f.format === 'webp')!);
    const avif = await asDrawn(files.find((f) => f.format === 'avif')!);
    console.log(`1152 as drawn at ${DRAWN} px: WebP ${webp.bytes} bytes, SSIM ${webp.ssim.toFixed(4)}, MS-SSIM ${webp.msSsim.toFixed(4)}; AVIF ${avif.bytes} bytes, SSIM ${avif.ssim.toFixed(4)}, MS-SSIM ${avif.msSsim.toFixed(4)}`);
    expect(avif.ssim).toBeGreaterThanOrEqual(webp.ssim);
    expect(avif.msSsim).toBeGreaterThanOrEqual(webp.msSsim);
    expect(avif.bytes).toBeLessThan(webp.bytes);
  }, 180_000);
});
