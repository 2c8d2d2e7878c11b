// The decoder corpus (issue 18): hostile files for sharp and ffmpeg, built
// from bytes (or with sharp and ffmpeg) — markup inside image and video
// containers, declared-huge dimensions, thousands of frames, truncated files,
// manifests disguised as video, a legitimate decode that takes seconds. Used
// by test/api/decoder-corpus.test.ts and `npm run bench -- hostile`.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, createDeflate, deflateSync } from 'node:zlib';
import sharp from 'sharp';

export const SVG_TEXT = '<svg xmlns="http://www.w3.org/2000/svg" width="640" height="480"><rect width="640" height="480" fill="#fff"/><text x="20" y="200" font-size="90">RASTERISED</text></svg>';
/** The stall: a turbulence filter over 3000 × 3000 pixels. */
export const SVG_TURBULENCE =
  '<svg xmlns="http://www.w3.org/2000/svg" width="3000" height="3000"><filter id="f"><feTurbulence baseFrequency="0.01" numOctaves="10"/></filter><rect width="3000" height="3000" filter="url(#f)"/></svg>';

/** A real ffmpeg for making the test videos: the system's when installed, else the bundled one. */
export const realFfmpeg = existsSync('/usr/bin/ffmpeg') ? '/usr/bin/ffmpeg' : (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;

export function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function ihdr(width: number, height: number, depth: number, colour: number): Buffer {
  const h = Buffer.alloc(13);
  h.writeUInt32BE(width, 0);
  h.writeUInt32BE(height, 4);
  h[8] = depth;
  h[9] = colour;
  return pngChunk('IHDR', h);
}

/** A real RGBA PNG of zeros, `width` × `height`: many pixels in few bytes (196 MP: 3.4 MB). */
export async function flatPng(width: number, height: number): Promise<Buffer> {
  const row = Buffer.alloc(1 + width * 4);
  const deflate = createDeflate({ level: 1 });
  const parts: Buffer[] = [];
  deflate.on('data', (d: Buffer) => parts.push(d));
  const ended = new Promise((resolve) => deflate.on('end', resolve));
  for (let y = 0; y < height; y++) if (!deflate.write(row)) await new Promise((resolve) => deflate.once('drain', resolve));
  deflate.end();
  await ended;
  return Buffer.concat([PNG_SIGNATURE, ihdr(width, height, 8, 6), pngChunk('IDAT', Buffer.concat(parts)), pngChunk('IEND', Buffer.alloc(0))]);
}

/** A real 196 MP RGBA PNG of zeros (3.4 MB). */
export function slowPng(): Promise<Buffer> {
  return flatPng(14_000, 14_000);
}

/** A GIF of `frames` 1 × 1 frames on a logical screen `screen` × `screen`. */
export function gif(frames: number, screen: number): Buffer {
  const head = Buffer.alloc(13);
  head.write('GIF89a', 0, 'latin1');
  head.writeUInt16LE(screen, 6);
  head.writeUInt16LE(screen, 8);
  head[10] = 0x80; // a global colour table of two colours
  const palette = Buffer.from([0, 0, 0, 255, 255, 255]);
  // One 1 × 1 frame: descriptor, LZW minimum code size 2, codes clear(4) 0 end(5) packed LSB first.
  const frame = Buffer.from([0x21, 0xf9, 4, 0, 1, 0, 0, 0, 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0]);
  return Buffer.concat([head, palette, ...Array.from({ length: frames }, () => frame), Buffer.from([0x3b])]);
}

/** A little-endian TIFF declaring `width` × `height` grey pixels in one strip far beyond its end. */
export function hugeTiff(width: number, height: number): Buffer {
  const tags: Array<[number, number, number]> = [
    [256, 4, width],
    [257, 4, height],
    [258, 3, 8],
    [259, 3, 1],
    [262, 3, 1],
    [273, 4, 4096],
    [277, 3, 1],
    [278, 4, height],
    [279, 4, 0xffffffff],
  ];
  const ifd = Buffer.alloc(2 + tags.length * 12 + 4);
  ifd.writeUInt16LE(tags.length, 0);
  tags.forEach(([tag, type, value], i) => {
    const at = 2 + i * 12;
    ifd.writeUInt16LE(tag, at);
    ifd.writeUInt16LE(type, at + 2);
    ifd.writeUInt32LE(1, at + 4);
    if (type === 3) ifd.writeUInt16LE(value, at + 8);
    else ifd.writeUInt32LE(value, at + 8);
  });
  return Buffer.concat([Buffer.from([0x49, 0x49, 0x2a, 0, 8, 0, 0, 0]), ifd, Buffer.alloc(64)]);
}

/** A JPEG whose frame header declares `width` × `height` over the data of a small picture. */
export async function hugeJpeg(width: number, height: number): Promise<Buffer> {
  const jpeg = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#406080' } }).jpeg().toBuffer();
  const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
  jpeg.writeUInt16BE(height, sof + 5);
  jpeg.writeUInt16BE(width, sof + 7);
  return jpeg;
}

/** Text laid out as MPEG-TS for file-type: `G` at 0 and 188 (or at 4 and 196 after a 4-byte prefix). */
export function tsText(prefix: string, body: string, offset = 0): Buffer {
  const out = Buffer.alloc(Math.max(400, offset + 200 + Buffer.byteLength(body)), 0x20);
  out.write(prefix, 0, 'latin1');
  out[offset] = 0x47;
  out[offset + 188] = 0x47;
  out.write(body, offset + 200, 'latin1');
  return out;
}

export const MPD = (target: string) =>
  `<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011" type="static" mediaPresentationDuration="PT1S"><Period><AdaptationSet mimeType="video/mp4"><Representation id="1" bandwidth="1"><BaseURL>${target}</BaseURL></Representation></AdaptationSet></Period></MPD>`;

/** An ISO-BMFF `ftyp` box of brand `brand`, then `rest`. */
export function isobmff(brand: string, rest: Buffer): Buffer {
  const ftyp = Buffer.alloc(28);
  ftyp.writeUInt32BE(28, 0);
  ftyp.write(`ftyp${brand}`, 4, 'latin1');
  ftyp.write(`${brand}mif1miaf`, 16, 'latin1');
  return Buffer.concat([ftyp, rest]);
}

export function ffmpegMade(args: string[]): Buffer {
  const dir = join(tmpdir(), `mps-corpus-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const out = `${dir}.${args[args.length - 1]}`;
  const made = spawnSync(realFfmpeg, ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10', '-t', '1', '-pix_fmt', 'yuv420p', '-c:v', 'mpeg4', ...args.slice(0, -1), '-y', out], { timeout: 30_000 });
  if (made.status !== 0) throw new Error(`ffmpeg could not make a test video: ${made.stderr}`);
  const bytes = readFileSync(out);
  rmSync(out, { force: true });
  return bytes;
}

/** What the service must do with a corpus file: refuse it at upload, end it `failed`, or just settle it (a valid file: ready or failed, but over). */
export type CorpusOutcome = 'refused' | 'failed' | 'settled';

export interface CorpusFile {
  name: string;
  bytes: Buffer;
  expected: CorpusOutcome;
}

let slow: Promise<Buffer> | undefined;
/**
 * The slow PNG, built once per process: 6200 × 6200 RGBA (38.4 Mpx, under the 40 Mpx of a format
 * without shrink-on-load), whose ladder (the decode, then a 3840 × 3840 rung) takes seconds.
 */
export function slowPicture(): Promise<Buffer> {
  slow ??= flatPng(6200, 6200);
  return slow;
}

let largest: Promise<Buffer> | undefined;
/** The 196 Mpx PNG, built once per process (about 3 s of deflate): refused from its header (over 40 Mpx). */
export function largestPng(): Promise<Buffer> {
  largest ??= slowPng();
  return largest;
}

/** The whole corpus, each file named with the extension a client would give it. */
export async function decoderCorpus(): Promise<CorpusFile[]> {
  const realPng = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#a04010' } }).png({ compressionLevel: 0 }).toBuffer();
  const realAvif = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#1040a0' } }).avif().toBuffer();
  const mp4 = ffmpegMade(['-f', 'mp4', 'mp4']);
  const hugeIdat = pngChunk('IDAT', deflateSync(Buffer.alloc(64)));
  // [file name, bytes, outcome]. 'settled': valid GIFs (libnsgif draws the first 1 × 1 frame whatever
  // the screen claims, and sharp reads only the first frame). png-slow fails under a short
  // RENDITION_TIMEOUT_SECONDS (the test's 1 s); under the default it is a legitimate picture.
  // png-196mpx is refused from its header (a PNG of more than 40 Mpx), whatever the bound.
  const corpus: Array<[string, Buffer, 'refused' | 'failed' | 'settled']> = [
    ['avif-svg.avif', Buffer.from(`<!--ftypavif-->${SVG_TURBULENCE}`), 'refused'],
    ['heic-svg.heic', Buffer.from(`<!--ftypheic-->${SVG_TEXT}`), 'refused'],
    ['isobmff-markup.avif', isobmff('avif', Buffer.from(SVG_TURBULENCE)), 'failed'],
    ['png-markup.png', Buffer.concat([PNG_SIGNATURE, ihdr(16, 16, 8, 2), pngChunk('tEXt', Buffer.from(`svg\0${SVG_TEXT}`)), pngChunk('IEND', Buffer.alloc(0))]), 'failed'],
    ['gif-markup.gif', Buffer.concat([gif(1, 1).subarray(0, -1), Buffer.from([0x21, 0xfe, SVG_TEXT.length > 255 ? 255 : SVG_TEXT.length]), Buffer.from(SVG_TEXT.slice(0, 255)), Buffer.from([0, 0x3b])]), 'settled'],
    ['ts-dash.mts', tsText('<!--', `-->${MPD('../upload-secret')}`, 4), 'refused'],
    ['ts-dash-late.mts', tsText('', `${' '.repeat(1200)}${MPD('media/')}`), 'refused'],
    ['ts-hls.mts', tsText('', '#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile:../upload-secret\n#EXT-X-ENDLIST\n'), 'failed'],
    ['ts-concat.mts', tsText('', 'ffconcat version 1.0\nfile ../upload-secret\n'), 'failed'],
    ['mp4-concat.mp4', isobmff('isom', Buffer.from('ffconcat version 1.0\nfile ../upload-secret\n')), 'failed'],
    ['png-huge-declared.png', Buffer.concat([PNG_SIGNATURE, ihdr(100_000, 100_000, 8, 6), hugeIdat, pngChunk('IEND', Buffer.alloc(0))]), 'failed'],
    ['jpeg-huge-declared.jpg', await hugeJpeg(65_000, 65_000), 'failed'],
    ['tiff-huge-declared.tif', hugeTiff(60_000, 60_000), 'failed'],
    ['gif-huge-screen-frames.gif', gif(2000, 65_535), 'settled'],
    ['gif-5000-frames.gif', gif(5000, 1), 'settled'],
    ['png-truncated.png', realPng.subarray(0, Math.floor(realPng.length / 2)), 'failed'],
    ['avif-truncated.avif', realAvif.subarray(0, Math.floor(realAvif.length / 2)), 'failed'],
    ['mp4-truncated.mp4', mp4.subarray(0, Math.floor(mp4.length / 3)), 'failed'],
    ['png-slow.png', await slowPicture(), 'failed'],
    ['png-196mpx.png', await largestPng(), 'failed'],
  ];
  return corpus.map(([name, bytes, expected]) => ({ name, bytes, expected }));
}
