// The rendition ladder of one picture: decoded once (oriented, sRGB, shrunk on load) into a raw
// buffer, then each rung resized and encoded, one at a time to bound memory; metadata stripped but
// copyright and author; a watermark on the large public rungs only, never on the original. The format
// and the pixel count are checked before the decode, and the whole ladder has a wall-clock bound:
// a picture not made in time fails, unretried (docs/renditions.md, "The ladder", "Watermarks").
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { WATERMARK_IMAGE_MAX_PIXELS, WATERMARK_TEXT_MAX, type WatermarkPosition } from '../artists/watermark-rules.js';
import sharp, { type OverlayOptions, type Sharp } from 'sharp';

/** Long edges of the ladder, smallest first. */
export const RUNGS = [320, 640, 1152, 1280, 2048, 3840] as const;
/**
 * The phone's rung (issue 31): a photo full width on a phone is 1040–1131 device pixels wide
 * (390 or 393 CSS px at 3x, 412 at 2.625x, less the page's margins), which took the 1280 with 30 %
 * more pixels than the screen has. The website's only (WebP, and AVIF when made; no JPEG): API
 * replies list the ladder as before (RenditionsService.views).
 */
export const PHONE_RUNG = 1152;
/** Rungs at least this long get the watermark (the phone's rung too: it is nearly the 1280). */
export const WATERMARK_FROM = PHONE_RUNG;
/** Pictures beyond this many pixels are refused (a decompression bomb, not a photo). */
export const MAX_INPUT_PIXELS = 200_000_000;
/**
 * The limit of every format but JPEG, the one libvips shrinks on load (it decodes a 200 Mpx JPEG at
 * a half or a quarter). Other decoders may hold the whole picture (an interlaced PNG of 96 Mpx
 * grows the process by 326 MiB), and take seconds more: 40 Mpx holds an 8K video frame, a
 * 36 Mpx camera's TIFF, and about 160 MiB decoded whole.
 */
export const MAX_FULL_DECODE_PIXELS = 40_000_000;
/** The formats (sharp's names) libvips shrinks on load. */
const SHRINK_ON_LOAD = new Set(['jpeg']);

export type RenditionFormat = 'webp' | 'jpeg' | 'avif';

/**
 * Quality of each format per rung, chosen by measurement (`bench/rendition-quality.ts`, the table in
 * docs/renditions.md, "Quality per rung"): AVIF at the lowest quality whose SSIM and MS-SSIM both
 * reach WebP's at 80, on the rungs where it is then smaller; at the phone's 1152, as a phone draws
 * it, on the grainy and the natural photos (`bench/phone-rung-quality.ts`: 59 at effort 3 for the
 * grain; smooth photos are above the mark with it). Rungs not named take `other`.
 */
export const QUALITY: Record<RenditionFormat, { byRung: Partial<Record<number, number>>; other: number }> = {
  webp: { byRung: {}, other: 80 },
  jpeg: { byRung: {}, other: 82 },
  avif: { byRung: { 320: 60, [PHONE_RUNG]: 59, 1280: 66 }, other: 66 },
};
/**
 * The rungs that get an AVIF alternate: where it was smaller than WebP at equal quality (320 and
 * 1280 against the unencoded rung; the phone's 1152 as a phone draws it, against the photo at the
 * phone's pixels: docs/renditions.md, "The phone's rung"). At 640 it was not; 2048 and 3840 would
 * cost several seconds of a core each (AVIF encodes 3–7 times slower than WebP).
 */
export const AVIF_RUNGS: ReadonlySet<number> = new Set([320, PHONE_RUNG, 1280]);
/**
 * AVIF encoder effort (0–9, sharp's default 4) per rung: 2 keeps a 1280 near a second of an idle
 * core; 3 at the phone's rung, the one a phone's first view takes three of, where it made 12 % fewer
 * bytes at the same quality as drawn for about 1.5 times the encode (4: no fewer bytes, 5 times the
 * encode; docs/renditions.md, "The phone's rung").
 */
export const AVIF_EFFORT: { byRung: Partial<Record<number, number>>; other: number } = { byRung: { [PHONE_RUNG]: 3 }, other: 2 };
const qualityOf = (format: RenditionFormat, rung: number) => QUALITY[format].byRung[rung] ?? QUALITY[format].other;
const MIME: Record<RenditionFormat, string> = { webp: 'image/webp', jpeg: 'image/jpeg', avif: 'image/avif' };
const EXT: Record<RenditionFormat, string> = { webp: 'webp', jpeg: 'jpg', avif: 'avif' };

/** What a watermark is made of, resolved by the service (text, or an image file on this machine). */
export interface WatermarkSpec {
  text?: string;
  imagePath?: string;
  /** Opacity 0–100. */
  strength: number;
  /** center, top-left, top, top-right, left, right, bottom-left, bottom, bottom-right. */
  position: string;
  tile: boolean;
}

export interface LadderOptions {
  formats?: readonly RenditionFormat[];
  watermark?: WatermarkSpec;
  /** Kept in the renditions' EXIF; everything else is stripped. */
  copyright?: string;
  author?: string;
  /** Name of the rungs ('poster' for a video frame's largest): by default the long edge. */
  name?: (longEdge: number, largest: boolean) => string;
  /** Decoder formats (sharp's `metadata().format`) the input may be decoded as; anything else is refused. */
  accept: ReadonlySet<string>;
  /** Wall-clock bound of the whole ladder, in seconds (decode, watermarks, every rung). */
  timeoutSeconds: number;
  /** Called at each decode of a watermark image (metrics). */
  onWatermarkDecode?: () => void;
  /**
   * AVIF alternates of the AVIF_RUNGS, made after every other file from the same decode: `afterBase`
   * is called once the others are emitted (false: stop, they are no longer wanted); a failure while
   * making them goes to `onAlternateFailed`, never fails the ladder (the pages fall back to WebP).
   */
  avif?: { afterBase: () => Promise<boolean>; onAlternateFailed: (err: unknown) => void };
}

/** The media's watermark cannot be read or drawn. */
export class WatermarkFailed extends Error {}

/** The decoder takes the bytes for another format than the one they were accepted as. */
export class FormatMismatch extends Error {}

/** The ladder did not finish within its time bound. */
export class LadderTimedOut extends Error {}

/** The picture has more pixels than its format may have (MAX_INPUT_PIXELS, MAX_FULL_DECODE_PIXELS). */
export class TooManyPixels extends Error {}

/** Never decoded, whatever a caller accepts: markup (librsvg), documents (poppler/pdfium), ImageMagick's coders. */
const NEVER_DECODED = new Set(['svg', 'pdf', 'magick']);

export interface RenditionFile {
  name: string;
  width: number;
  height: number;
  format: RenditionFormat;
  mimeType: string;
  ext: string;
  bytes: Buffer;
  /** First 16 hex digits of the SHA-256 of the bytes: the content address. */
  hash: string;
  watermarked: boolean;
}

/** The rung sizes of a picture `width` × `height`: never larger than it; a small picture gets one at its own size. */
export function rungsFor(width: number, height: number): Array<{ longEdge: number; width: number; height: number }> {
  const long = Math.max(width, height);
  const fit = (edge: number) => {
    const scale = edge / long;
    return { longEdge: edge, width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
  };
  const out = RUNGS.filter((r) => r <= long).map(fit);
  if (out.length === 0) out.push({ longEdge: long, width, height });
  return out;
}

/**
 * Makes the ladder of `input` (a local path or the bytes). Calls `emit` for
 * each encoded file as it is ready, so at most one rung's bytes are held.
 * Throws sharp's error for what cannot be decoded.
 */
export async function makeLadder(input: string | Buffer, options: LadderOptions, emit: (file: RenditionFile) => Promise<void>): Promise<void> {
  // Storing the files is the machine's work, not the picture's: it does not count against the bound.
  let deadline = Date.now() + options.timeoutSeconds * 1000;
  const timedEmit = async (file: RenditionFile) => {
    const start = Date.now();
    try {
      await emit(file);
    } finally {
      deadline += Date.now() - start;
    }
  };
  try {
    await ladder(input, options, timedEmit, () => {
      const left = deadline - Date.now();
      if (left <= 0) throw new LadderTimedOut();
      // sharp counts whole seconds; 0 would mean no limit.
      return { seconds: Math.max(1, Math.ceil(left / 1000)) };
    });
  } catch (err) {
    // sharp's own timeout says "timeout: 12% complete".
    if (err instanceof LadderTimedOut || (err instanceof Error && /^timeout\b/i.test(err.message))) {
      throw new LadderTimedOut(`the pictures took too long to make (over ${options.timeoutSeconds} s)`);
    }
    throw err;
  }
}

async function ladder(input: string | Buffer, options: LadderOptions, emit: (file: RenditionFile) => Promise<void>, timeout: () => { seconds: number }): Promise<void> {
  const formats = options.formats ?? ['webp', 'jpeg'];
  const maxRung = RUNGS[RUNGS.length - 1];
  // libvips picks its loader from the content, not from our type: read the header first, decode only what was accepted.
  const { format, width, height } = await sharp(input, { failOn: 'none' }).metadata();
  if (NEVER_DECODED.has(format) || !options.accept.has(format)) throw new FormatMismatch('the file is not the type it was accepted as');
  // From the header, before any pixel is decoded; libvips' own limit below says the same of what it reads.
  const limit = SHRINK_ON_LOAD.has(format) ? MAX_INPUT_PIXELS : MAX_FULL_DECODE_PIXELS;
  if (width !== undefined && height !== undefined && width * height > limit) {
    throw new TooManyPixels(
      `the picture has more than ${limit / 1_000_000} megapixels (${width} × ${height}); ` +
        `a JPEG may have up to ${MAX_INPUT_PIXELS / 1_000_000}, other formats ${MAX_FULL_DECODE_PIXELS / 1_000_000}`,
    );
  }
  // The one decode: shrink-on-load does most of the work for JPEG.
  const { data, info } = await sharp(input, { limitInputPixels: limit, failOn: 'error', sequentialRead: true })
    .timeout(timeout())
    .rotate()
    .resize(maxRung, maxRung, { fit: 'inside', withoutEnlargement: true })
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { width: info.width, height: info.height, channels: info.channels };
  const rungs = rungsFor(raw.width, raw.height);
  const exif = exifOf(options);
  // Never publish the large sizes unprotected: a watermark that cannot be read or drawn fails the
  // ladder. Over the time bound, it is the ladder's timeout that says so.
  const unprotected = (err: unknown): never => {
    if (err instanceof LadderTimedOut || (err instanceof Error && /^timeout\b/i.test(err.message))) throw err;
    throw new WatermarkFailed('the watermark could not be applied');
  };
  // The watermark image is decoded once, at the size of its largest use, within the ladder's bound.
  const largest = rungs[rungs.length - 1]!;
  const mark =
    options.watermark !== undefined && largest.longEdge >= WATERMARK_FROM
      ? await loadMark(options.watermark, largest.width, largest.height, timeout, options.onWatermarkDecode).catch(unprotected)
      : undefined;
  const encode = async (i: number, rung: (typeof rungs)[number], formatsHere: readonly RenditionFormat[]) => {
    const watermarked = mark !== undefined && rung.longEdge >= WATERMARK_FROM;
    const overlay = watermarked ? await watermarkOverlay(options.watermark!, mark, rung.width, rung.height, timeout).catch(unprotected) : undefined;
    const name = options.name ? options.name(rung.longEdge, i === rungs.length - 1) : String(rung.longEdge);
    for (const format of formatsHere) {
      let img: Sharp = sharp(data, { raw }).timeout(timeout()).resize(rung.width, rung.height, { fit: 'fill' });
      if (overlay) img = img.composite(overlay);
      if (format === 'jpeg' && raw.channels === 4) img = img.flatten({ background: '#ffffff' });
      img = img.withExif(exif);
      const quality = qualityOf(format, rung.longEdge);
      img = format === 'webp' ? img.webp({ quality, effort: 3 }) : format === 'avif' ? img.avif({ quality, effort: AVIF_EFFORT.byRung[rung.longEdge] ?? AVIF_EFFORT.other, chromaSubsampling: '4:2:0' }) : img.jpeg({ quality, mozjpeg: false });
      const bytes = await img.toBuffer();
      await emit({
        name,
        width: rung.width,
        height: rung.height,
        format,
        mimeType: MIME[format],
        ext: EXT[format],
        bytes,
        hash: createHash('sha256').update(bytes).digest('hex').slice(0, 16),
        watermarked,
      });
    }
  };
  // The phone's rung in the website's formats only (a JPEG of it would serve no one), unless it is the largest.
  for (const [i, rung] of rungs.entries()) await encode(i, rung, rung.longEdge === PHONE_RUNG && i < rungs.length - 1 ? formats.filter((f) => f !== 'jpeg') : formats);
  // The alternates last, from the same decoded pixels: the pages do not wait for them.
  if (!options.avif || !rungs.some((r) => AVIF_RUNGS.has(r.longEdge))) return;
  if (!(await options.avif.afterBase())) return;
  try {
    for (const [i, rung] of rungs.entries()) if (AVIF_RUNGS.has(rung.longEdge)) await encode(i, rung, ['avif']);
  } catch (err) {
    options.avif.onAlternateFailed(err);
  }
}

function exifOf(options: LadderOptions): Record<string, Record<string, string>> {
  const ifd0: Record<string, string> = {};
  // EXIF ASCII: keep it printable and short.
  const clean = (s: string) => s.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
  if (options.copyright) ifd0.Copyright = clean(options.copyright);
  if (options.author) ifd0.Artist = clean(options.author);
  return { IFD0: ifd0 };
}

/** A gravity for every position the rules allow (WATERMARK_POSITIONS): the type says none is missing. */
const POSITION_GRAVITY: Record<WatermarkPosition, string> = {
  center: 'centre',
  'top-left': 'northwest',
  top: 'north',
  'top-right': 'northeast',
  left: 'west',
  right: 'east',
  'bottom-left': 'southwest',
  bottom: 'south',
  'bottom-right': 'southeast',
};
/** 'centre' too, which the overlay has always read as center. */
const GRAVITY: Record<string, string> = { ...POSITION_GRAVITY, centre: 'centre' };

/** A watermark ready to draw: its image's pixels (decoded once), or its text. */
type LoadedMark = { image: Buffer; raw: { width: number; height: number; channels: 4 } } | { text: string };

/** The box an image watermark is drawn in on a rung `width` × `height`: a third of each edge. */
const markBox = (width: number, height: number) => ({ width: Math.max(16, Math.round(width / 3)), height: Math.max(16, Math.round(height / 3)) });

/**
 * Decodes an image watermark once (at most WATERMARK_IMAGE_MAX_PIXELS, under the caller's time
 * bound), kept at no more than the box of its largest use (`width` × `height`: the largest rung)
 * nor its own size: a few MiB, each rung resizes it from there.
 */
async function loadMark(w: WatermarkSpec, width: number, height: number, timeout: () => { seconds: number }, onDecode?: () => void): Promise<LoadedMark> {
  if (!w.imagePath) return { text: w.text ?? '' };
  onDecode?.();
  const box = markBox(width, height);
  const { data, info } = await sharp(w.imagePath, { limitInputPixels: WATERMARK_IMAGE_MAX_PIXELS })
    .timeout(timeout())
    .resize(box.width, box.height, { fit: 'inside', withoutEnlargement: true })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { image: data, raw: { width: info.width, height: info.height, channels: 4 } };
}

/** The watermark for a rung `width` × `height`: a twelfth of the short edge high (text) or a third of each edge (image). */
async function watermarkOverlay(w: WatermarkSpec, loaded: LoadedMark, width: number, height: number, timeout: () => { seconds: number }): Promise<OverlayOptions[]> {
  const opacity = Math.max(0, Math.min(100, w.strength)) / 100;
  let mark: Buffer;
  if ('image' in loaded) {
    const box = markBox(width, height);
    mark = await sharp(loaded.image, { raw: loaded.raw }).timeout(timeout()).resize(box.width, box.height, { fit: 'inside' }).png().toBuffer();
  } else {
    mark = await textMark(loaded.text, width, height);
  }
  // Opacity: scale the alpha channel.
  const meta = await sharp(mark).metadata();
  const faded = await sharp(mark)
    .timeout(timeout())
    .ensureAlpha()
    .composite([{ input: Buffer.from([255, 255, 255, Math.round(255 * opacity)]), raw: { width: 1, height: 1, channels: 4 }, tile: true, blend: 'dest-in' }])
    .png()
    .toBuffer();
  const fits = (meta.width ?? 0) <= width && (meta.height ?? 0) <= height;
  const input = fits ? faded : await sharp(faded).timeout(timeout()).resize(width, height, { fit: 'inside' }).png().toBuffer();
  if (w.tile) return [{ input, tile: true, gravity: 'northwest' }];
  return [{ input, gravity: GRAVITY[w.position] ?? 'centre' }];
}

/**
 * A watermark drawn on a photo (at most `maxEdge` px, JPEG) as the renditions draw it, for the studio's
 * preview: `photo` is decoded once (shrunk on load), or a neutral grey canvas stands in without one.
 */
export async function watermarkPreview(w: WatermarkSpec, photo: Readable | undefined, maxEdge: number, timeoutSeconds: number): Promise<Buffer> {
  let base: { data: Buffer; info: { width: number; height: number; channels: 1 | 2 | 3 | 4 } };
  if (photo) {
    const decoder = sharp({ limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
      .rotate()
      .resize(maxEdge, maxEdge, { fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .timeout({ seconds: timeoutSeconds });
    photo.on('error', (err) => decoder.destroy(err));
    base = await photo.pipe(decoder).raw().toBuffer({ resolveWithObject: true });
  } else {
    const width = maxEdge;
    const height = Math.round((maxEdge * 2) / 3);
    base = { data: Buffer.alloc(width * height * 3, 0x8a), info: { width, height, channels: 3 } };
  }
  const { width, height, channels } = base.info;
  const bound = () => ({ seconds: timeoutSeconds });
  const overlay = await watermarkOverlay(w, await loadMark(w, width, height, bound), width, height, bound);
  return sharp(base.data, { raw: { width, height, channels } }).composite(overlay).jpeg({ quality: 82 }).timeout({ seconds: timeoutSeconds }).toBuffer();
}

/** No glyph of a bold sans-serif is wider than this many ems (W is about 1.1). */
const MAX_GLYPH_EMS = 1.25;
const MARK_MARGIN = 2;

/** `text` drawn at `size` px on a canvas wide enough for any glyphs, cut to what was drawn. */
async function drawText(text: string, size: number): Promise<{ png: Buffer; width: number }> {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.ceil(size * (MAX_GLYPH_EMS * text.length + 1))}" height="${Math.round(size * 1.6)}">` +
    `<text x="${Math.round(size / 2)}" y="${Math.round(size * 1.15)}" font-family="sans-serif" font-weight="bold" font-size="${size}" ` +
    `fill="#ffffff" stroke="#000000" stroke-width="${Math.max(1, Math.round(size / 24))}">${escapeXml(text)}</text></svg>`;
  const { data, info } = await sharp(await sharp(Buffer.from(svg)).png().toBuffer())
    .trim()
    .png()
    .toBuffer({ resolveWithObject: true });
  return { png: data, width: info.width };
}

/**
 * A text watermark for a rung `width` × `height` (a PNG with transparency): a twelfth of the short
 * edge high, smaller when the text would not fit the width. Measured by drawing it small first,
 * then drawn at its size and cut to what was drawn (an estimate of its width clipped letters).
 */
export async function textMark(value: string, width: number, height: number): Promise<Buffer> {
  const text = value.slice(0, WATERMARK_TEXT_MAX);
  if (text.trim() === '') return sharp({ create: { width: 1, height: 1, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toBuffer();
  const probe = 32;
  const perPixel = (await drawText(text, probe)).width / probe;
  const fitting = Math.floor((width - 2 * MARK_MARGIN) / perPixel) - 1;
  const size = Math.max(8, Math.min(Math.round(Math.min(width, height) / 12), fitting));
  return sharp((await drawText(text, size)).png)
    .extend({ top: MARK_MARGIN, bottom: MARK_MARGIN, left: MARK_MARGIN, right: MARK_MARGIN, background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .png()
    .toBuffer();
}

function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
