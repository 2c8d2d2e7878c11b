// The studio's resumable path (issue 21): a 256 MiB file sent with tus as the upload screen
// sends it — creation, PATCH requests of 16 MiB streamed from disk, the studio's finish — into
// the local store, through the API's pipeline (sniffing, the move into the store, the media),
// against a bare node:http server piping the same bytes to disk in the same run; plus the
// service's RSS growth while it receives them.
import { randomFillSync } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { BenchContext, BenchLine } from './lib.js';
import { median } from './lib.js';
import { measure, settleDisk } from './uploads.js';

const MiB = 1024 * 1024;
/** What the screen's script sends per PATCH (src/studio/browser/uploads.js, CHUNK). */
const CHUNK = 16 * MiB;

/** Random bytes after a real JPEG: sniffed as a JPEG, and no two runs alike. */
export async function writeTestFile(path: string, size: number): Promise<void> {
  const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } }).jpeg().toBuffer();
  const out = createWriteStream(path);
  out.write(jpeg);
  const chunk = Buffer.alloc(8 * MiB);
  for (let written = jpeg.length; written < size; ) {
    const n = Math.min(chunk.length, size - written);
    randomFillSync(chunk, 0, n);
    if (!out.write(Buffer.from(chunk.subarray(0, n)))) await once(out, 'drain');
    written += n;
  }
  out.end();
  await once(out, 'finish');
}

/** One request whose body is streamed from a range of the file (the client never holds it). */
export function streamed(url: string, method: string, headers: Record<string, string | number>, filePath?: string, range?: { start: number; end: number }): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (!filePath) return req.end();
    const file = createReadStream(filePath, range ? { ...range, highWaterMark: MiB } : { highWaterMark: MiB });
    file.on('error', reject);
    file.pipe(req);
  });
}

/** A studio session as the sign-in form makes it; the session cookie and the scripts' CSRF token. */
export async function studioSession(b: Pick<BenchContext, 'url' | 'user'>): Promise<{ cookie: string; csrf: string }> {
  const form = await fetch(`${b.url}/studio/signin`);
  const pre = form.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const token = /name="csrf" value="([^"]+)"/.exec(await form.text())![1];
  const signed = await fetch(`${b.url}/studio/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pre, origin: b.url, 'sec-fetch-site': 'same-origin' },
    body: new URLSearchParams({ csrf: token, email: b.user.email, password: b.user.password }).toString(),
  });
  const session = signed.headers.getSetCookie().find((c) => c.startsWith('studio_session='));
  if (!session) throw new Error(`studio sign-in answered ${signed.status}`);
  const cookie = session.split(';')[0];
  const page = await (await fetch(`${b.url}/studio/upload`, { headers: { cookie } })).text();
  return { cookie, csrf: /<meta name="studio-csrf" content="([^"]+)"/.exec(page)![1] };
}

export async function benchStudioUpload(b: BenchContext): Promise<BenchLine[]> {
  const size = Number(process.env.BENCH_UPLOAD_MIB ?? 256) * MiB;
  const rounds = Number(process.env.BENCH_UPLOAD_ROUNDS ?? 4);
  const dir = await mkdtemp(join(tmpdir(), 'mps-bench-tus-'));
  const sinkDir = join(dir, 'sink');
  await mkdir(sinkDir);
  const filePath = join(dir, 'bench.jpg');
  await writeTestFile(filePath, size);
  const sink = await b.startBareUploadSink(sinkDir);
  const { cookie, csrf } = await studioSession(b);
  const tusHeaders = { cookie, origin: b.url, 'sec-fetch-site': 'same-origin', 'x-studio-csrf': csrf, 'tus-resumable': '1.0.0' };
  const serviceMs: number[] = [];
  const bareMs: number[] = [];
  const ratios: number[] = [];
  let rssGrowth = 0;

  const throughTus = async (round: number): Promise<string> => {
    const meta = `filename ${Buffer.from(`bench-${round}.jpg`).toString('base64')}`;
    const created = await streamed(`${b.url}/studio/uploads/tus`, 'POST', { ...tusHeaders, 'upload-length': size, 'upload-metadata': meta });
    if (created.status !== 201) throw new Error(`tus creation answered ${created.status}: ${created.body}`);
    const location = created.headers.location!;
    for (let offset = 0; offset < size; offset += CHUNK) {
      const end = Math.min(size, offset + CHUNK) - 1;
      const r = await streamed(`${b.url}${location}`, 'PATCH', { ...tusHeaders, 'upload-offset': offset, 'content-type': 'application/offset+octet-stream', 'content-length': end - offset + 1 }, filePath, { start: offset, end });
      if (r.status !== 204) throw new Error(`PATCH answered ${r.status}: ${r.body}`);
    }
    const finish = await fetch(`${b.url}/studio/uploads/finish`, {
      method: 'POST',
      headers: { cookie, origin: b.url, 'sec-fetch-site': 'same-origin', 'x-studio-csrf': csrf, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ id: location.split('/').pop() }),
    });
    const outcome = (await finish.json()) as { state?: string; media?: string; reason?: string };
    if (outcome.state !== 'done' || !outcome.media) throw new Error(`the upload ended ${outcome.state}: ${outcome.reason ?? ''}`);
    return outcome.media;
  };

  try {
    // Round 0 warms both sides up and is not counted (its memory is); the order alternates.
    for (let round = 0; round <= rounds; round++) {
      let media = '';
      const toService = async () => {
        await settleDisk();
        return measure(b.pid, async () => {
          media = await throughTus(round);
        });
      };
      let bareStatus = 0;
      const toBare = async () => {
        await settleDisk();
        return b.time(async () => {
          bareStatus = (await streamed(`${sink.url}/upload`, 'POST', { 'content-type': 'application/octet-stream', 'content-length': size }, filePath)).status;
        });
      };
      let service: Awaited<ReturnType<typeof toService>>;
      let bareTime: number;
      if (round % 2 === 0) {
        bareTime = await toBare();
        service = await toService();
      } else {
        service = await toService();
        bareTime = await toBare();
      }
      if (bareStatus !== 200) throw new Error(`bare sink answered ${bareStatus}`);
      // The media goes (and so the next round is not a duplicate of it), with the round's files.
      await b.client.request('DELETE', `/medias/${media}.xml`);
      await rm(sinkDir, { recursive: true, force: true });
      await mkdir(sinkDir);
      rssGrowth = Math.max(rssGrowth, service.rssGrowth);
      if (round === 0) continue;
      serviceMs.push(service.ms);
      bareMs.push(bareTime);
      ratios.push(bareTime / service.ms);
      if (process.env.BENCH_VERBOSE) console.error(`round ${round}: studio tus ${service.ms.toFixed(0)} ms, bare ${bareTime.toFixed(0)} ms`);
    }
  } finally {
    await sink.close();
    await rm(dir, { recursive: true, force: true });
  }
  const mib = size / MiB;
  const ratio = median(ratios);
  const growthMiB = rssGrowth / MiB;
  return [
    { name: `bare node:http upload sink, ${mib} MiB raw body`, value: (mib * 1000) / median(bareMs), unit: 'MiB/s' },
    { name: `studio tus upload, ${mib} MiB in ${CHUNK / MiB} MiB PATCHes, to a media`, value: (mib * 1000) / median(serviceMs), unit: 'MiB/s' },
    { name: `studio tus / bare ratio (median of ${rounds} rounds; min ${Math.min(...ratios).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)})`, value: ratio, unit: 'x', target: '>= 0.8', ok: ratio >= 0.8 },
    { name: 'service RSS growth during the tus upload (worst round, warm-up included)', value: growthMiB, unit: 'MiB', target: '<= 64', ok: growthMiB <= 64 },
  ];
}

/** The screen's uploads at once (src/studio/browser/uploads.js, PARALLEL). */
export const SCREEN_PARALLEL = 3;

/** `count` small, distinct JPEGs (distinct bytes, or the duplicate check would answer for them). */
export async function writeSmallPhotos(dir: string, count: number): Promise<string[]> {
  const paths: string[] = [];
  for (let i = 0; i < count; i++) {
    const noise = Buffer.alloc(96 * 64 * 3);
    randomFillSync(noise);
    const path = join(dir, `photo-${String(i).padStart(3, '0')}.jpg`);
    await sharp(noise, { raw: { width: 96, height: 64, channels: 3 } }).resize(1200, 800, { kernel: 'nearest' }).jpeg({ quality: 90 }).toFile(path);
    paths.push(path);
  }
  return paths;
}

/** Runs `work` over `items`, `parallel` at a time, as the screen's queue does. */
export async function pool<T>(items: readonly T[], parallel: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

/**
 * Issue 30: a wedding's worth of small photos through the studio's upload path with the service's
 * default limits (files per minute, and how many requests were refused), against the same bytes
 * sent to a bare sink with the same number at once.
 */
export async function benchStudioUploadMany(b: BenchContext): Promise<BenchLine[]> {
  const count = Number(process.env.BENCH_UPLOAD_FILES ?? 300);
  const dir = await mkdtemp(join(tmpdir(), 'mps-bench-many-'));
  const sinkDir = join(dir, 'sink');
  await mkdir(sinkDir);
  const photos = await writeSmallPhotos(dir, count);
  const totalBytes = (await Promise.all(photos.map((p) => stat(p)))).reduce((n, s) => n + s.size, 0);
  const sink = await b.startBareUploadSink(sinkDir);
  const { one, medias, refused } = await studioUploader(b);
  try {
    await settleDisk();
    const bareMs = await b.time(() => pool(photos, SCREEN_PARALLEL, async (path) => {
      const size = (await stat(path)).size;
      const r = await streamed(`${sink.url}/upload`, 'POST', { 'content-type': 'application/octet-stream', 'content-length': size }, path);
      if (r.status !== 200) throw new Error(`bare sink answered ${r.status}`);
    }));
    await settleDisk();
    const serviceMs = await b.time(() => pool(photos, SCREEN_PARALLEL, one));
    const perMinute = (ms: number) => (count * 60_000) / ms;
    const ratio = bareMs / serviceMs;
    return [
      { name: `bare node:http sink, ${count} photos (${(totalBytes / MiB).toFixed(0)} MiB), ${SCREEN_PARALLEL} at once`, value: perMinute(bareMs), unit: 'files/min' },
      { name: `studio upload (tus + finish), the same ${count} photos, default limits`, value: perMinute(serviceMs), unit: 'files/min' },
      { name: 'studio / bare ratio (one round)', value: ratio, unit: 'x' },
      { name: 'studio requests refused (429) on the way', value: refused(), unit: 'requests', target: '= 0', ok: refused() === 0 },
    ];
  } finally {
    for (const m of medias) await b.client.request('DELETE', `/medias/${m}.xml`);
    await sink.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** One photo at a time as the upload screen sends it (tus creation, one PATCH, the finish); the medias made, the 429s met. */
export async function studioUploader(b: Pick<BenchContext, 'url' | 'user'>): Promise<{ one: (path: string) => Promise<void>; medias: string[]; refused: () => number }> {
  const { cookie, csrf } = await studioSession(b);
  const headers = { cookie, origin: b.url, 'sec-fetch-site': 'same-origin', 'x-studio-csrf': csrf };
  let refusedCount = 0;
  const medias: string[] = [];
  const one = async (path: string): Promise<void> => {
    const size = (await stat(path)).size;
    const meta = `filename ${Buffer.from(path.split('/').pop()!).toString('base64')}`;
    for (;;) {
      const created = await streamed(`${b.url}/studio/uploads/tus`, 'POST', { ...headers, 'tus-resumable': '1.0.0', 'upload-length': size, 'upload-metadata': meta });
      if (created.status === 429) { refusedCount++; await new Promise((r) => setTimeout(r, 1000)); continue; }
      if (created.status !== 201) throw new Error(`tus creation answered ${created.status}: ${created.body}`);
      const location = created.headers.location!;
      const patched = await streamed(`${b.url}${location}`, 'PATCH', { ...headers, 'tus-resumable': '1.0.0', 'upload-offset': 0, 'content-type': 'application/offset+octet-stream', 'content-length': size }, path);
      if (patched.status === 429) { refusedCount++; await new Promise((r) => setTimeout(r, 1000)); continue; }
      if (patched.status !== 204) throw new Error(`PATCH answered ${patched.status}: ${patched.body}`);
      const finish = await fetch(`${b.url}/studio/uploads/finish`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ id: location.split('/').pop() }),
      });
      if (finish.status === 429) { refusedCount++; await new Promise((r) => setTimeout(r, 1000)); continue; }
      const outcome = (await finish.json()) as { state?: string; media?: string; reason?: string };
      if (outcome.state !== 'done' || !outcome.media) throw new Error(`the upload ended ${outcome.state}: ${outcome.reason ?? ''}`);
      medias.push(outcome.media);
      return;
    }
  };
  return { one, medias, refused: () => refusedCount };
}
