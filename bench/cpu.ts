// CPU per request of built services side by side (issue 31): `npx tsx bench/cpu.ts <root> [<root>…]`,
// each root a checkout with its own dist/. Each service gets its own SQLite data dir and fixtures;
// rounds alternate the builds, loading each path for BENCH_SECONDS and reading the service's
// user+sys time from /proc/<pid>/stat. BENCH_NODE_FLAGS (e.g. --cpu-prof) go to every service.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { buildCore } from '../src/app.js';
import { MediaPortfolioClient } from '../src/client/index.js';
import { text } from '../src/client/xml.js';
import { median, signedHeaders, startPortPrinter, stopChild } from './lib.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const TICK_US = 1e6 / 100; // USER_HZ

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

interface Target { name: string; url: string; pid: number; paths: Array<{ name: string; path: string; headers: () => Record<string, string> }>; stop(): Promise<void> }

function cpuTicks(pid: number): { user: number; sys: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(f[11]), sys: Number(f[12]) };
}

async function measure(url: string, pid: number, headers: Record<string, string>): Promise<{ us: number; sysUs: number; rps: number }> {
  const t0 = cpuTicks(pid);
  const r = await autocannon({ url, headers, connections: 10, duration: SECONDS, pipelining: 1 });
  const t1 = cpuTicks(pid);
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  const n = r.requests.total;
  return { us: ((t1.user + t1.sys - t0.user - t0.sys) * TICK_US) / n, sysUs: ((t1.sys - t0.sys) * TICK_US) / n, rps: r.requests.average };
}

async function startService(root: string, name: string, rootFlags: string[]): Promise<Target> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mps-cpu-'));
  const core = await buildCore({ dataDir, databaseUrl: undefined });
  const password = 'bench-' + randomBytes(6).toString('hex');
  const { user } = await core.users.create({ email: 'bench@example.com', password, firstName: 'Bench', lastName: 'Mark' });
  await core.websites.create(user, { urlname: 'bench', title: 'Bench' });
  const app = await core.apps.create('bench');
  const port = await freePort();
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', RATE_LIMIT: process.env.BENCH_RATE_LIMIT ?? 'off', VISITOR_RATE_LIMIT: 'off', LOG_LEVEL: 'warn', MALLOC_ARENA_MAX: '2', DATABASE_URL: '', STORAGE_URL: '', PUBLIC_URL: `http://127.0.0.1:${port}` };
  const flags = process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ') : [];
  const child: ChildProcess = spawn(process.execPath, [...flags, ...rootFlags, '--expose-gc', join(root, 'dist/main.js')], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  const client = new MediaPortfolioClient({ baseUrl: url, apiKey: app.key, apiSecret: app.secret, login: user.email, password, throttle: false });
  for (let i = 0; ; i++) {
    try {
      await client.request('GET', '/ping.xml', {}, { auth: 'none' });
      break;
    } catch {
      if (i > 600) throw new Error('no ping');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await client.whoami();
  const cookie = `_ficelle_session=${await client.sessionCookie()}`;
  const website = await core.store.db.selectFrom('websites').select('id').where('urlname', '=', 'bench').executeTakeFirstOrThrow();
  const rootUuid = (await core.store.db.selectFrom('galleries').select('uuid').where('website_id', '=', website.id).where('parent_id', 'is', null).executeTakeFirstOrThrow()).uuid;
  const one = text((await client.createGallery('bench', { name: 'Guard details', parent: rootUuid, url_path: 'guard-details' })).doc, 'gallery/uuid')!;
  const signed = (p: string) => () => ({ ...signedHeaders(app, 'GET', p), cookie });
  const details = `/websites/bench/galleries/${one}.xml?view=details`;
  return {
    name, url, pid: child.pid!,
    // BENCH_ONLY=whoami or details loads that path alone (one profile per path).
    paths: [
      { name: 'whoami', path: '/whoami.xml', headers: signed('/whoami.xml') },
      { name: 'details', path: details, headers: signed(details) },
      // The decomposition: Fastify with the service's options and hooks, no signature (healthz);
      // signed without a session (ping); whoami adds the session.
      { name: 'healthz', path: '/healthz', headers: () => ({}) },
      { name: 'ping', path: '/ping.xml', headers: signed('/ping.xml') },
    ].filter((p) => !process.env.BENCH_ONLY || process.env.BENCH_ONLY.split(',').includes(p.name)),
    async stop() {
      await stopChild(child);
      await core.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

// `<root>::<node flags>` gives one build flags of its own (e.g. the same build with and without one).
const roots = process.argv.slice(2).map((r) => ({ root: resolve(r.split('::')[0]), flags: r.split('::')[1]?.split(' ').filter(Boolean) ?? [] }));
const targets: Target[] = [];
const whoamiBody = Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<reply><user><uuid>00000000-0000-0000-0000-000000000000</uuid><email>bench@example.com</email></user><request>GET /whoami.xml</request></reply>\n');
const bare = await startPortPrinter(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts', 'body', whoamiBody.toString('base64')]);
const bareFastify = await startPortPrinter(process.execPath, ['--import', 'tsx', 'bench/bare-fastify.ts', whoamiBody.toString('base64')]);
const results = new Map<string, number[]>();
const push = (k: string, v: number) => results.set(k, [...(results.get(k) ?? []), v]);
try {
  for (const [i, r] of roots.entries()) targets.push(await startService(r.root, `${i}:${r.root.split('/').pop()}${r.flags.length ? ' ' + r.flags.join(' ') : ''}`, r.flags));
  const bares = [
    { name: 'bare node:http', url: `http://127.0.0.1:${bare.port}/whoami.xml`, pid: bare.child.pid! },
    { name: 'bare fastify', url: `http://127.0.0.1:${bareFastify.port}/whoami.xml`, pid: bareFastify.child.pid! },
  ];
  // Warm-up.
  for (const t of targets) for (const p of t.paths) await autocannon({ url: t.url + p.path, headers: p.headers(), connections: 10, duration: 1 });
  for (const b of bares) await autocannon({ url: b.url, connections: 10, duration: 1 });
  for (let round = 0; round < ROUNDS; round++) {
    push('load', loadavg()[0]);
    for (const b of bares) {
      const m = await measure(b.url, b.pid, {});
      push(`${b.name} µs`, m.us);
      push(`${b.name} sys µs`, m.sysUs);
      push(`${b.name} rps`, m.rps);
    }
    const order = round % 2 ? [...targets].reverse() : targets;
    for (const t of order) {
      for (const p of t.paths) {
        const m = await measure(t.url + p.path, t.pid, p.headers());
        push(`${t.name} ${p.name} µs`, m.us);
        push(`${t.name} ${p.name} sys µs`, m.sysUs);
        push(`${t.name} ${p.name} rps`, m.rps);
      }
    }
  }
} finally {
  for (const t of targets) await t.stop();
  await stopChild(bare.child);
  await stopChild(bareFastify.child);
}
for (const [k, v] of results) {
  console.log(`${k.padEnd(40)} median ${median(v).toFixed(1).padStart(8)}  (${Math.min(...v).toFixed(1)}–${Math.max(...v).toFixed(1)})  [${v.map((x) => x.toFixed(0)).join(' ')}]`);
}
