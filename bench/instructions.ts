// Instructions per request of built services (issue 31), a figure the machine's load does not move:
// `npx tsx bench/instructions.ts <root> [<root>…]`, each root a checkout with its own dist/. Every
// process (bare node:http, bare Fastify, each service) runs under `valgrind --tool=callgrind`; for
// each path it takes BENCH_WARM requests (the JIT settles), zeroes the counters (`callgrind_control
// -z`), takes BENCH_REQUESTS requests over 10 connections, and dumps: the dump's total divided by
// the requests is the figure (all the process's threads: the JIT's and the GC's helpers too).
// BENCH_ROUNDS repeats each measure; the dumps stay in the printed directory for callgrind_annotate.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { startService, type Target } from './cpu-service.js';
import { median, startPortPrinter, stopChild } from './lib.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM = Number(process.env.BENCH_WARM ?? 20_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 5_000);
const dir = mkdtempSync(join(tmpdir(), 'mps-callgrind-'));
const valgrind = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${dir}/cg.%p`, '--dump-instr=no'];

/** The Ir total of the latest dump of `pid`. */
function lastDump(pid: number): number {
  const dumps = readdirSync(dir).filter((f) => f.startsWith(`cg.${pid}.`)).sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()));
  const text = readFileSync(join(dir, dumps.at(-1)!), 'utf8');
  const m = /^(?:totals|summary): (\d+)/m.exec(text);
  if (!m) throw new Error(`no totals in ${dumps.at(-1)}`);
  return Number(m[1]);
}

async function load(url: string, headers: Record<string, string>, amount: number): Promise<void> {
  const r = await autocannon({ url, headers, connections: 10, amount, pipelining: 1, timeout: 60 });
  if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
}

async function count(pid: number, url: string, headers: () => Record<string, string>): Promise<number> {
  execFileSync('callgrind_control', ['-z', String(pid)], { stdio: 'ignore' });
  // Signed headers are made per load: a timestamp of this minute.
  await load(url, headers(), REQUESTS);
  execFileSync('callgrind_control', ['-d', String(pid)], { stdio: 'ignore' });
  return lastDump(pid) / REQUESTS;
}

const roots = process.argv.slice(2).map((r) => resolve(r));
const whoamiBody = Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<reply><user><uuid>00000000-0000-0000-0000-000000000000</uuid><email>bench@example.com</email></user><request>GET /whoami.xml</request></reply>\n');
const bare = await startPortPrinter(valgrind[0], [...valgrind.slice(1), process.execPath, '--import', 'tsx', 'bench/bare-server.ts', 'body', whoamiBody.toString('base64')]);
const bareFastify = await startPortPrinter(valgrind[0], [...valgrind.slice(1), process.execPath, '--import', 'tsx', 'bench/bare-fastify.ts', whoamiBody.toString('base64')]);
const targets: Target[] = [];
const results = new Map<string, number[]>();
const push = (k: string, v: number) => results.set(k, [...(results.get(k) ?? []), v]);
try {
  for (const [i, root] of roots.entries()) targets.push(await startService(root, `${i}:${root.split('/').pop()}`, [], valgrind));
  const loads = [
    { name: 'bare node:http', pid: bare.child.pid!, url: `http://127.0.0.1:${bare.port}/whoami.xml`, headers: () => ({}) },
    { name: 'bare fastify', pid: bareFastify.child.pid!, url: `http://127.0.0.1:${bareFastify.port}/whoami.xml`, headers: () => ({}) },
    ...targets.flatMap((t) => t.paths.map((p) => ({ name: `${t.name} ${p.name}`, pid: t.pid, url: t.url + p.path, headers: p.headers }))),
  ];
  for (const l of loads) await load(l.url, l.headers(), WARM);
  for (let round = 0; round < ROUNDS; round++) for (const l of loads) push(l.name, await count(l.pid, l.url, l.headers));
} finally {
  for (const t of targets) await t.stop();
  await stopChild(bare.child);
  await stopChild(bareFastify.child);
}
console.log(`instructions per request (callgrind, ${REQUESTS} requests after ${WARM}; dumps in ${dir})`);
for (const [k, v] of results) console.log(`${k.padEnd(40)} median ${Math.round(median(v)).toLocaleString('en').padStart(10)}  (${v.map((x) => Math.round(x).toLocaleString('en')).join(', ')})`);
