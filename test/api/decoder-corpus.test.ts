// Hostile input for the decoders (issue 18, defects 2 and 3): markup inside
// image and video containers, declared-huge dimensions, thousands of frames,
// truncated files, manifests disguised as video, a decode slower than the
// ladder's time bound. Each file is refused at upload or ends `failed`
// without retries, ffmpeg is run with its demuxer forced and its resources
// capped, and the worker goes on to make the next photo's renditions.
// Every file is built from bytes (or with sharp and ffmpeg) by test/support/decoder-corpus.ts.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, find, text, type XmlNode } from '../../src/client/xml.js';
import { decoderCorpus, ffmpegMade, flatPng, MPD, realFfmpeg, slowPicture, SVG_TEXT, SVG_TURBULENCE, tsText } from '../support/decoder-corpus.js';
import pino from 'pino';
import { eachDatabase, TestService } from '../support/service.js';
import { worldOn, type World } from '../support/world.js';

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

eachDatabase((kind) => {
  describe(`decoder corpus (${kind})`, () => {
    let w: World;
    let scratch: string;
    let ffmpegLog: string;
    let recorder: string;
    const logs: Array<Record<string, unknown>> = [];

    beforeAll(async () => {
      scratch = await mkdtemp(join(tmpdir(), 'mps-decoder-'));
      ffmpegLog = join(scratch, 'ffmpeg-calls.log');
      // FFMPEG_PATH names this recorder: it notes each call's arguments and limits, then runs the real ffmpeg.
      recorder = join(scratch, 'ffmpeg');
      await writeFile(
        recorder,
        `#!/bin/sh\n{ printf 'cpu=%s vmem=%s\\n' "$(ulimit -t)" "$(ulimit -v)"; for a in "$@"; do printf '%s\\n' "$a"; done; printf -- '--end\\n'; } >> '${ffmpegLog}'\nexec '${realFfmpeg}' "$@"\n`,
      );
      await chmod(recorder, 0o755);
      const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
      w = await worldOn(await TestService.start(kind, { FFMPEG_PATH: recorder, RENDITION_TIMEOUT_SECONDS: '1', JOB_POLL_MS: '50', JOB_RETRY_SECONDS: '0' }, logger));
    }, 60_000);

    afterAll(async () => {
      await w?.svc.close();
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    it('logs at start the ffmpeg it runs (FFMPEG_PATH here) and its version', () => {
      const line = logs.find((l) => l.msg === 'video frames by ffmpeg');
      expect(line).toMatchObject({ ffmpeg: recorder, source: 'configured' });
      expect(line?.version).toMatch(/^ffmpeg version \S+/);
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

    it('bounds each ladder in wall-clock time: a ladder longer than RENDITION_TIMEOUT_SECONDS ends failed, not retried', async () => {
      const up = await status(w, await slowPicture(), 'slow.png');
      expect(up.status).toBe(200);
      const media = await settled(w, up.uuid!);
      expect(text(media, 'renditions-state')).toBe('failed');
      expect(text(media, 'renditions-error')).toMatch(/took too long/);
      expect(await jobOf(w, up.uuid!)).toEqual([{ state: 'done', attempts: 1, failed: 1 }]);
    }, 90_000);

    it('refuses a PNG of more than 40 megapixels from its header, without decoding it: failed, naming the limit, not retried', async () => {
      // 6500 × 6400: 41.6 Mpx. PNG has no shrink-on-load: the whole decode would be the machine's.
      const up = await status(w, await flatPng(6500, 6400), 'big.png');
      expect(up.status).toBe(200);
      const media = await settled(w, up.uuid!);
      expect(text(media, 'renditions-state')).toBe('failed');
      expect(text(media, 'renditions-error')).toMatch(/more than 40 megapixels/);
      expect(await jobOf(w, up.uuid!)).toEqual([{ state: 'done', attempts: 1, failed: 1 }]);
    });

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
      const corpus = await decoderCorpus();
      for (const { name, bytes, expected } of corpus) {
        const up = await status(w, bytes, name);
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
      // No file made the worker retry (each attempt would decode it again).
      expect(logs.filter((l) => l.msg === 'job chunk failed; the job is retried later').map((l) => l.err)).toEqual([]);
      // The worker goes on with the next job: a good photo gets its renditions.
      const good = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#336699' } }).jpeg().toBuffer();
      const up = await status(w, good, 'good.jpg');
      const media = await settled(w, up.uuid!);
      expect(text(media, 'renditions-state')).toBe('ready');
      expect(all(media, 'renditions/rendition').map((r) => text(r, 'width')).sort()).toEqual(['320', '320']);
    }, 300_000);
  });
});
