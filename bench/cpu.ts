// CPU per request of built services side by side (issue 31): `npx tsx bench/cpu.ts <root> [<root>…]`,
// each root a checkout with its own dist/. Each service gets its own SQLite data dir and fixtures;
// rounds alternate the builds, loading each path for BENCH_SECONDS and reading the service's
// user+sys time from /proc/<pid>/stat. BENCH_NODE_FLAGS (e.g. --cpu-prof) go to every service.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { startService, type Target } from './cpu-service.js';
import { median, startPortPrinter, stopChild } from './lib.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const TICK_US = 1e6 / 100; // USER_HZ

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
