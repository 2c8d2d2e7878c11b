// Step 2 of an upload to the service's own target (local storage): a 256 MiB
// file streamed as a multipart POST, against a bare node:http server piping
// the same bytes to disk in the same run, plus the service's RSS growth while
// it receives the file (it must stream, not buffer).
import { execFile } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { find, text, type XmlNode } from '../src/client/xml.js';
import type { BenchContext, BenchLine } from './lib.js';
import { median } from './lib.js';

const MiB = 1024 * 1024;

/** A real JPEG header (so step 3 accepts the file) padded with random bytes to `size`. */
async function writeTestFile(path: string, size: number): Promise<void> {
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

/**
 * A multipart POST whose body is streamed from disk: preamble (the fields),
 * the file piped, the epilogue. The client never holds the file in memory.
 */
function streamMultipart(url: string, fields: ReadonlyArray<[string, string]>, fileField: string, filePath: string, size: number): Promise<{ status: number; body: string }> {
  const boundary = `----bench${Date.now().toString(16)}`;
  const preamble = Buffer.from(
    fields.map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="${fileField}"; filename="bench.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
  );
  const epilogue = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': preamble.length + size + epilogue.length },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.write(preamble);
    const file = createReadStream(filePath);
    file.on('error', reject);
    file.on('end', () => req.end(epilogue));
    file.pipe(req, { end: false });
  });
}

/** Flushes dirty pages, so that no measurement pays for the previous one's writeback. */
export async function settleDisk(): Promise<void> {
  await promisify(execFile)('sync').catch(() => undefined);
}

async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  return m ? Number(m[1]) * 1024 : 0;
}

/** Samples the process's RSS every 20 ms while fn runs; returns fn's time and the peak growth. */
export async function measure<T>(pid: number, fn: () => Promise<T>): Promise<{ ms: number; rssGrowth: number; result: T }> {
  const before = await rssBytes(pid);
  let peak = before;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await rssBytes(pid).catch(() => 0));
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const t0 = performance.now();
  try {
    const result = await fn();
    return { ms: performance.now() - t0, rssGrowth: peak - before, result };
  } finally {
    sampling = false;
    await sampler;
  }
}

export async function benchUploads(b: BenchContext): Promise<BenchLine[]> {
  const size = Number(process.env.BENCH_UPLOAD_MIB ?? 256) * MiB;
  // Even, so that each side goes first equally often.
  const rounds = Number(process.env.BENCH_UPLOAD_ROUNDS ?? 4);
  const dir = await mkdtemp(join(tmpdir(), 'mps-bench-upload-'));
  const sinkDir = join(dir, 'sink');
  await mkdir(sinkDir);
  const filePath = join(dir, 'bench.jpg');
  await writeTestFile(filePath, size);
  const sink = await b.startBareUploadSink(sinkDir);
  const serviceMs: number[] = [];
  const bareMs: number[] = [];
  const ratios: number[] = [];
  let rssGrowth = 0;
  try {
    // Round 0 warms both sides up (JIT, page cache) and is not counted; then the
    // order alternates, so neither side always runs after the other's writes.
    for (let round = 0; round <= rounds; round++) {
      const step1 = await b.client.request('POST', '/medias.xml', {
        'media[content][upload_location]': 'REQUEST',
        'media[content][file_name]': `bench-${round}.jpg`,
        'media[content][file_size]': size,
        'media[content][mime_type]': 'image/jpeg',
      });
      const media = find(step1.doc, 'media') as XmlNode;
      const fields = (find(media, 'upload-params')?.children ?? []).map((c) => [c.name, c.text] as [string, string]);
      const uploadUrl = text(media, 'upload-url')!;

      const toService = async () => {
        await settleDisk();
        return measure(b.pid, () => streamMultipart(uploadUrl, fields, text(media, 'upload-file-param')!, filePath, size));
      };
      let bareStatus = 0;
      const toBare = async () => {
        await settleDisk();
        return b.time(async () => {
          bareStatus = (await streamMultipart(sink.url + '/upload', fields, 'file', filePath, size)).status;
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
      if (service.result.status !== 200) throw new Error(`step 2 answered ${service.result.status}: ${service.result.body}`);
      if (bareStatus !== 200) throw new Error(`bare sink answered ${bareStatus}`);

      // Step 3 proves the bytes arrived whole; then the round's files go.
      const uuid = text(media, 'uuid')!;
      await b.client.completeUpload(media, size);
      await b.client.request('DELETE', `/medias/${uuid}.xml`);
      await rm(sinkDir, { recursive: true, force: true });
      await mkdir(sinkDir);

      // Memory counts from the very first upload, warm-up included.
      rssGrowth = Math.max(rssGrowth, service.rssGrowth);
      if (round === 0) continue;
      serviceMs.push(service.ms);
      bareMs.push(bareTime);
      // Throughput ratio = bare time / service time.
      ratios.push(bareTime / service.ms);
      if (process.env.BENCH_VERBOSE) console.error(`round ${round}: service ${service.ms.toFixed(0)} ms, bare ${bareTime.toFixed(0)} ms`);
    }
  } finally {
    await sink.close();
    await rm(dir, { recursive: true, force: true });
  }
  const mib = size / MiB;
  const ratio = median(ratios);
  const growthMiB = rssGrowth / MiB;
  return [
    { name: `bare node:http upload sink, ${mib} MiB multipart body`, value: (mib * 1000) / median(bareMs), unit: 'MiB/s' },
    { name: `upload step 2 to the local target, ${mib} MiB`, value: (mib * 1000) / median(serviceMs), unit: 'MiB/s' },
    { name: `upload step 2 / bare ratio (median of ${rounds} rounds)`, value: ratio, unit: 'x', target: '>= 0.8', ok: ratio >= 0.8 },
    { name: 'service RSS growth during step 2 (worst round, warm-up included)', value: growthMiB, unit: 'MiB', target: '<= 64', ok: growthMiB <= 64 },
  ];
}
