// Hostile input for the decoders (issue 18, defects 2 and 3): markup inside
// image and video containers, declared-huge dimensions, thousands of frames,
// truncated files, manifests disguised as video, a decode slower than the
// ladder's time bound. Each file is refused at upload or ends `failed`
// without retries, ffmpeg is run with its demuxer forced and its resources
// capped, and the worker goes on to make the next photo's renditions.
// Every file is built here from bytes (or with sharp and ffmpeg).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, createDeflate, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, find, text, type XmlNode } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';

const SVG_TEXT = '<svg xmlns="http://www.w3.org/2000/svg" width="640" height="480"><rect width="640" height="480" fill="#fff"/><text x="20" y="200" font-size="90">RASTERISED</text></svg>';
/** The stall: a turbulence filter over 3000 × 3000 pixels. */
const SVG_TURBULENCE =
  '<svg xmlns="http://www.w3.org/2000/svg" width="3000" height="3000"><filter id="f"><feTurbulence baseFrequency="0.01" numOctaves="10"/></filter><rect width="3000" height="3000" filter="url(#f)"/></svg>';

/** A real ffmpeg for making the test videos: the system's when installed, else the bundled one. */
const realFfmpeg = existsSync('/usr/bin/ffmpeg') ? '/usr/bin/ffmpeg' : (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function ihdr(width: number, height: number, depth: number, colour: number): Buffer {
  const h = Buffer.alloc(13);
  h.writeUInt32BE(width, 0);
  h.writeUInt32BE(height, 4);
  h[8] = depth;
  h[9] = colour;
  return pngChunk('IHDR', h);
}

/** A real 196 MP RGBA PNG of zeros (3.4 MB): a legitimate picture whose decode takes seconds. */
async function slowPng(): Promise<Buffer> {
  const side = 14_000;
  const row = Buffer.alloc(1 + side * 4);
  const deflate = createDeflate({ level: 1 });
  const parts: Buffer[] = [];
  deflate.on('data', (d: Buffer) => parts.push(d));
  const ended = new Promise((resolve) => deflate.on('end', resolve));
  for (let y = 0; y < side; y++) if (!deflate.write(row)) await new Promise((resolve) => deflate.once('drain', resolve));
  deflate.end();
  await ended;
  return Buffer.concat([PNG_SIGNATURE, ihdr(side, side, 8, 6), pngChunk('IDAT', Buffer.concat(parts)), pngChunk('IEND', Buffer.alloc(0))]);
}

/** A GIF of `frames` 1 × 1 frames on a logical screen `screen` × `screen`. */
function gif(frames: number, screen: number): Buffer {
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
function hugeTiff(width: number, height: number): Buffer {
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
async function hugeJpeg(width: number, height: number): Promise<Buffer> {
  const jpeg = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#406080' } }).jpeg().toBuffer();
  const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
  jpeg.writeUInt16BE(height, sof + 5);
  jpeg.writeUInt16BE(width, sof + 7);
  return jpeg;
}

/** Text laid out as MPEG-TS for file-type: `G` at 0 and 188 (or at 4 and 196 after a 4-byte prefix). */
function tsText(prefix: string, body: string, offset = 0): Buffer {
  const out = Buffer.alloc(Math.max(400, offset + 200 + Buffer.byteLength(body)), 0x20);
  out.write(prefix, 0, 'latin1');
  out[offset] = 0x47;
  out[offset + 188] = 0x47;
  out.write(body, offset + 200, 'latin1');
  return out;
}

const MPD = (target: string) =>
  `<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011" type="static" mediaPresentationDuration="PT1S"><Period><AdaptationSet mimeType="video/mp4"><Representation id="1" bandwidth="1"><BaseURL>${target}</BaseURL></Representation></AdaptationSet></Period></MPD>`;

/** An ISO-BMFF `ftyp` box of brand `brand`, then `rest`. */
function isobmff(brand: string, rest: Buffer): Buffer {
  const ftyp = Buffer.alloc(28);
  ftyp.writeUInt32BE(28, 0);
  ftyp.write(`ftyp${brand}`, 4, 'latin1');
  ftyp.write(`${brand}mif1miaf`, 16, 'latin1');
  return Buffer.concat([ftyp, rest]);
}

function ffmpegMade(args: string[]): Buffer {
  const dir = join(tmpdir(), `mps-corpus-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const out = `${dir}.${args[args.length - 1]}`;
  const made = spawnSync(realFfmpeg, ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10', '-t', '1', '-pix_fmt', 'yuv420p', '-c:v', 'mpeg4', ...args.slice(0, -1), '-y', out], { timeout: 30_000 });
  if (made.status !== 0) throw new Error(`ffmpeg could not make a test video: ${made.stderr}`);
  const bytes = readFileSync(out);
  rmSync(out, { force: true });
  return bytes;
}

async function status(w: World, data: Buffer, fileName: string): Promise<{ status: number; uuid?: string }> {
  return w.client.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName, data } }).then(
    (res) => ({ status: res.status, uuid: text(res.doc, 'media/uuid') }),
    (e: { status: number }) => ({ status: e.status }),
  );
}

/** The media once its renditions job is over (state no longer processing), within the suite's bound. */
async function settled(w: World, uuid: string): Promise<XmlNode> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const media = find((await w.client.request('GET', `/medias/${uuid}.xml`)).doc, 'media')!;
    if (text(media, 'renditions-state') !== 'processing') return media;
    if (Date.now() > deadline) throw new Error(`renditions of ${uuid} still processing after 60 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function jobOf(w: World, uuid: string) {
  const media = await w.svc.db.selectFrom('medias').select('id').where('uuid', '=', uuid).executeTakeFirstOrThrow();
  const jobs = await w.svc.db.selectFrom('jobs').select(['state', 'attempts', 'failed', 'payload']).where('kind', '=', 'renditions').execute();
  return jobs.filter((j) => (JSON.parse(j.payload) as { mediaId: number }).mediaId === media.id).map(({ state, attempts, failed }) => ({ state, attempts, failed }));
}

let slow: Promise<Buffer> | undefined;

eachDatabase((kind) => {
  describe(`decoder corpus (${kind})`, () => {
    let w: World;
    let scratch: string;
    let ffmpegLog: string;

    beforeAll(async () => {
      scratch = await mkdtemp(join(tmpdir(), 'mps-decoder-'));
      ffmpegLog = join(scratch, 'ffmpeg-calls.log');
      // FFMPEG_PATH names this recorder: it notes each call's arguments and limits, then runs the real ffmpeg.
      const recorder = join(scratch, 'ffmpeg');
      await writeFile(
        recorder,
        `#!/bin/sh\n{ printf 'cpu=%s vmem=%s\\n' "$(ulimit -t)" "$(ulimit -v)"; for a in "$@"; do printf '%s\\n' "$a"; done; printf -- '--end\\n'; } >> '${ffmpegLog}'\nexec '${realFfmpeg}' "$@"\n`,
      );
      await chmod(recorder, 0o755);
      w = await startWorld(kind, { FFMPEG_PATH: recorder, RENDITION_TIMEOUT_SECONDS: '1', JOB_POLL_MS: '50', JOB_RETRY_SECONDS: '0' });
      slow ??= slowPng();
    }, 60_000);

    afterAll(async () => {
      await w?.svc.close();
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    it('refuses markup whatever container its first bytes claim: AVIF, MPEG-TS, GIF, a bare SVG', async () => {
      const files: Array<[string, Buffer]> = [
        ['avif-svg.avif', Buffer.from(`<!--ftypavif-->${SVG_TURBULENCE}`)],
        ['dash.mts', tsText('<!--', `-->${MPD('../upload-secret')}`, 4)],
        ['dash-late.mts', tsText('', `${' '.repeat(1200)}${MPD('../upload-secret')}`)],
        ['gif-svg.gif', Buffer.from(`GIF89a${'A'.repeat(18)}${SVG_TEXT}`)],
        ['bom.svg', Buffer.from(`\ufeff \n${SVG_TEXT}`)],
      ];
      for (const [name, data] of files) expect({ name, status: (await status(w, data, name)).status }).toEqual({ name, status: 422 });
    });

    it('decodes only the format the file was accepted as: SVG bytes under a stored AVIF end failed, not rasterised', async () => {
      // A file an earlier version accepted: the worker is held while the stored bytes become the polyglot.
      const worker = w.svc.service.worker;
      await worker.stop();
      let uuid: string;
      try {
        const avif = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#208040' } }).avif().toBuffer();
        const up = await status(w, avif, 'real.avif');
        expect(up.status).toBe(200);
        uuid = up.uuid!;
        const key = (await w.svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', uuid).executeTakeFirstOrThrow()).storage_key!;
        await writeFile(join(w.svc.config.dataDir, 'media', ...key.split('/')), `<!--ftypavif-->${SVG_TEXT}`);
      } finally {
        worker.start();
      }
      const media = await settled(w, uuid);
      expect(text(media, 'renditions-state')).toBe('failed');
      expect(text(media, 'renditions-error')).toMatch(/not the type it was accepted as/);
      expect(all(media, 'renditions/rendition')).toEqual([]);
      expect(await jobOf(w, uuid)).toEqual([{ state: 'done', attempts: 1, failed: 1 }]);
    });

    it('bounds each ladder in wall-clock time: a decode longer than RENDITION_TIMEOUT_SECONDS ends failed, not retried', async () => {
      const up = await status(w, await slow!, 'slow.png');
      expect(up.status).toBe(200);
      const media = await settled(w, up.uuid!);
      expect(text(media, 'renditions-state')).toBe('failed');
      expect(text(media, 'renditions-error')).toMatch(/took too long/);
      expect(await jobOf(w, up.uuid!)).toEqual([{ state: 'done', attempts: 1, failed: 1 }]);
    }, 90_000);

    it('runs FFMPEG_PATH with the demuxer forced from the sniffed type, only the file protocol, and CPU time and memory capped', async () => {
      await rm(ffmpegLog, { force: true });
      const clips: Array<[string, Buffer, string]> = [
        ['clip.mts', ffmpegMade(['-f', 'mpegts', 'ts']), 'mpegts'],
        ['clip.mp4', ffmpegMade(['-f', 'mp4', 'mp4']), 'mov'],
        ['clip.mkv', ffmpegMade(['-f', 'matroska', 'mkv']), 'matroska'],
        ['clip.avi', ffmpegMade(['-f', 'avi', 'avi']), 'avi'],
      ];
      for (const [name, data, demuxer] of clips) {
        await rm(ffmpegLog, { force: true });
        const up = await status(w, data, name);
        expect(up.status).toBe(200);
        const media = await settled(w, up.uuid!);
        expect({ name, state: text(media, 'renditions-state') }).toEqual({ name, state: 'ready' });
        const calls = (await readFile(ffmpegLog, 'utf8')).split('--end\n').filter((c) => c.includes('\n-i\n'));
        expect(calls.length).toBeGreaterThan(0);
        for (const call of calls) {
          const [limits, ...args] = call.trimEnd().split('\n');
          const input = args.indexOf('-i');
          const before = args.slice(0, input);
          expect(before.join(' ')).toContain(`-f ${demuxer}`);
          expect(before.join(' ')).toContain('-protocol_whitelist file');
          expect(args[input + 1]).toMatch(/^file:\//);
          expect(limits).toMatch(/^cpu=\d+ vmem=\d+$/);
        }
      }
    }, 120_000);

    it('ends every file of the corpus refused or failed within the time bound, without retries, and the worker goes on', async () => {
      const realPng = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#a04010' } }).png({ compressionLevel: 0 }).toBuffer();
      const realAvif = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#1040a0' } }).avif().toBuffer();
      const mp4 = ffmpegMade(['-f', 'mp4', 'mp4']);
      const hugeIdat = pngChunk('IDAT', deflateSync(Buffer.alloc(64)));
      // [file name, bytes, 'refused' | 'failed' | 'settled' (a valid GIF: libnsgif draws the first 1 × 1 frame whatever the screen claims; ready or failed, but over)]
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
        ['png-slow.png', await slow!, 'failed'],
      ];
      for (const [name, data, expected] of corpus) {
        const up = await status(w, data, name);
        if (expected === 'refused') {
          expect({ name, status: up.status }).toEqual({ name, status: 422 });
          continue;
        }
        // An accepted file (200) or one refused for its bytes (4xx): never a 5xx.
        expect({ name, status: up.status < 500 }).toEqual({ name, status: true });
        if (up.status !== 200) continue;
        const media = await settled(w, up.uuid!);
        const state = text(media, 'renditions-state');
        if (expected === 'failed') expect({ name, state }).toEqual({ name, state: 'failed' });
        else expect({ name, state: ['ready', 'failed'].includes(state!) }).toEqual({ name, state: true });
        const jobs = await jobOf(w, up.uuid!);
        expect({ name, jobs: jobs.map((j) => `${j.state} ${j.attempts}`) }).toEqual({ name, jobs: ['done 1'] });
      }
      // The worker goes on with the next job: a good photo gets its renditions.
      const good = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#336699' } }).jpeg().toBuffer();
      const up = await status(w, good, 'good.jpg');
      const media = await settled(w, up.uuid!);
      expect(text(media, 'renditions-state')).toBe('ready');
      expect(all(media, 'renditions/rendition').map((r) => text(r, 'width')).sort()).toEqual(['320', '320']);
    }, 300_000);
  });
});
