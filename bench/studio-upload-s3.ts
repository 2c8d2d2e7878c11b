// The studio's resumable path with S3 storage (docs/studio.md, Uploads): the same 256 MiB file
// sent with tus as the upload screen sends it (16 MiB PATCHes, then the finish) to two built
// service processes on SQLite, one on local storage and one on S3 (@tus/s3-store: 8 MiB parts of
// a multipart upload, the object copied to its original key at the end), alternating, round 0
// not counted. The S3 server is s3rver in a process of its own (bench/s3rver.ts) on the same
// disk: what it costs (every part written, then joined into the object, then copied) is in the
// S3 figures, which say nothing of a real bucket over a network.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCore } from '../src/app.js';
import { freePort } from '../test/support/processes.js';
import { type BenchContext, type BenchLine, median, stopChild } from './lib.js';
import { streamed, studioSession, writeTestFile } from './studio-upload.js';

const MiB = 1024 * 1024;
const CHUNK = 16 * MiB;

interface Node {
  url: string;
  send(round: number): Promise<{ patchesMs: number; endMs: number }>;
  close(): Promise<void>;
}

async function startNode(name: string, env: Record<string, string>, filePath: string, size: number): Promise<Node> {
  const dataDir = await mkdtemp(join(tmpdir(), `mps-bench-${name}-`));
  const core = await buildCore({ dataDir, databaseUrl: undefined });
  const password = 'bench-' + randomBytes(6).toString('hex');
  const { user, defaultArtistUuid } = await core.users.create({ email: `${name}@example.com`, password });
  await core.close();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['dist/main.js'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: '', STORAGE_URL: '', RATE_LIMIT: 'off', PUBLIC_URL: url, MAX_UPLOAD_BYTES: String(size + MiB), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; ; i++) {
    if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) break;
    if (i > 600) throw new Error(`${name} node did not become ready`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const { cookie, csrf } = await studioSession({ url, user: { id: user.id, uuid: user.uuid, email: user.email, password, defaultArtistUuid } });
  const headers = { cookie, origin: url, 'sec-fetch-site': 'same-origin', 'x-studio-csrf': csrf, 'tus-resumable': '1.0.0' };
  return {
    url,
    async send(round) {
      const t0 = performance.now();
      const meta = `filename ${Buffer.from(`bench-${round}.jpg`).toString('base64')}`;
      const created = await streamed(`${url}/studio/uploads/tus`, 'POST', { ...headers, 'upload-length': size, 'upload-metadata': meta });
      if (created.status !== 201) throw new Error(`${name}: tus creation answered ${created.status}: ${created.body}`);
      const location = created.headers.location!;
      let lastStart = t0;
      for (let offset = 0; offset < size; offset += CHUNK) {
        const end = Math.min(size, offset + CHUNK) - 1;
        if (end === size - 1) lastStart = performance.now();
        const r = await streamed(`${url}${location}`, 'PATCH', { ...headers, 'upload-offset': offset, 'content-type': 'application/offset+octet-stream', 'content-length': end - offset + 1 }, filePath, { start: offset, end });
        if (r.status !== 204) throw new Error(`${name}: PATCH answered ${r.status}: ${r.body}`);
      }
      const finish = await fetch(`${url}/studio/uploads/finish`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ id: location.split('/').pop() }) });
      const outcome = (await finish.json()) as { state?: string; reason?: string };
      if (outcome.state !== 'done') throw new Error(`${name}: the upload ended ${outcome.state}: ${outcome.reason ?? ''}`);
      const t1 = performance.now();
      return { patchesMs: lastStart - t0, endMs: t1 - lastStart };
    },
    async close() {
      await stopChild(child);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function benchStudioUploadS3(_b: BenchContext): Promise<BenchLine[]> {
  const size = Number(process.env.BENCH_UPLOAD_MIB ?? 256) * MiB;
  const rounds = Number(process.env.BENCH_UPLOAD_ROUNDS ?? 4);
  const dir = await mkdtemp(join(tmpdir(), 'mps-bench-tus-s3-'));
  const filePath = join(dir, 'bench.jpg');
  await writeTestFile(filePath, size);
  const s3 = spawn(process.execPath, ['--import', 'tsx', 'bench/s3rver.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const nodes: Node[] = [];
  const ms: Record<'local' | 's3', number[]> = { local: [], s3: [] };
  const ends: Record<'local' | 's3', number[]> = { local: [], s3: [] };
  try {
    const [line] = (await once(s3.stdout!, 'data')) as [Buffer];
    const s3env = JSON.parse(line.toString()) as Record<string, string>;
    const local = await startNode('tus-local', {}, filePath, size);
    const bucket = await startNode('tus-s3', s3env, filePath, size);
    nodes.push(local, bucket);
    for (let round = 0; round <= rounds; round++) {
      // A new first MiB each round: not a duplicate of the file before (the probe reads the first 8 MiB).
      const fh = await open(filePath, 'r+');
      await fh.write(randomBytes(MiB), 0, MiB, 4096);
      await fh.close();
      const order: Array<['local' | 's3', Node]> = round % 2 === 0 ? [['local', local], ['s3', bucket]] : [['s3', bucket], ['local', local]];
      for (const [name, node] of order) {
        const t = await node.send(round);
        if (process.env.BENCH_VERBOSE) console.error(`round ${round} ${name}: PATCHes but the last ${t.patchesMs.toFixed(0)} ms, the last with the end ${t.endMs.toFixed(0)} ms`);
        if (round === 0) continue;
        ms[name].push(t.patchesMs + t.endMs);
        ends[name].push(t.endMs);
      }
    }
  } finally {
    for (const n of nodes) await n.close();
    await stopChild(s3);
    await rm(dir, { recursive: true, force: true });
  }
  const mib = size / MiB;
  const rate = (values: number[]) => values.map((v) => (mib * 1000) / v);
  const spread = (values: number[]) => `min ${Math.min(...values).toFixed(1)}, max ${Math.max(...values).toFixed(1)}`;
  const ratios = ms.s3.map((v, i) => ms.local[i]! / v);
  return [
    { name: `studio tus, local storage, ${mib} MiB (median of ${rounds}; ${spread(rate(ms.local))})`, value: median(rate(ms.local)), unit: 'MiB/s' },
    { name: `studio tus, S3 (s3rver), ${mib} MiB (median of ${rounds}; ${spread(rate(ms.s3))})`, value: median(rate(ms.s3)), unit: 'MiB/s' },
    { name: `S3 / local (median of ${rounds} rounds; ${spread(ratios)})`, value: median(ratios), unit: 'x' },
    { name: `the last PATCH with the end, local (${spread(ends.local.map((v) => v / 1000))})`, value: median(ends.local) / 1000, unit: 's' },
    { name: `the last PATCH with the end, S3 (${spread(ends.s3.map((v) => v / 1000))})`, value: median(ends.s3) / 1000, unit: 's' },
  ];
}
