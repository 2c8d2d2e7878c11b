// Instructions per request of built services (issue 31), a figure the machine's load does not move:
// `npx tsx bench/instructions.ts <root> [<root>…]`, each root a checkout with its own dist/. Every
// process (bare node:http, bare Fastify, each service) runs under `valgrind --tool=callgrind`; for
// each path it takes BENCH_WARM requests uninstrumented (the JIT settles; valgrind runs far faster
// without callgrind's counting, `--instr-atstart=no`), switches counting on and zeroes the counters
// (`callgrind_control -i on -z`), takes BENCH_REQUESTS requests over 10 connections, dumps and
// switches counting off: the dump's total divided by the requests is the figure (all the process's
// threads: the JIT's and the GC's helpers too).
// BENCH_ROUNDS repeats each measure; the dumps stay in the printed directory for callgrind_annotate.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { startService, type Target } from './cpu-service.js';
import { median, startPortPrinter, stopChild } from './lib.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WARM = Number(process.env.BENCH_WARM ?? 10_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2_000);
const dir = mkdtempSync(join(tmpdir(), 'mps-callgrind-'));
const valgrind = ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${dir}/cg.%p`, '--dump-instr=no'];

// V8's optimizing compiler (TurboFan on its background threads, Maglev) still runs now and then
// after any warm-up, by the tens of millions of instructions at once: counted apart.
const COMPILER = /v8::internal::(compiler|maglev)::|v8::internal::Pipeline|OptimizingCompileDispatcher/;

/** The Ir total of the latest dump of `pid`, and the part of it in V8's optimizing compiler. */
function lastDump(pid: number): { total: number; compiler: number } {
  const dumps = readdirSync(dir).filter((f) => f.startsWith(`cg.${pid}.`)).sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()));
  const file = join(dir, dumps.at(-1)!);
  const m = /^(?:totals|summary): (\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!m) throw new Error(`no totals in ${dumps.at(-1)}`);
  const selfCosts = execFileSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', file], { encoding: 'utf8', maxBuffer: 256 << 20 });
  let compiler = 0;
  for (const line of selfCosts.split('\n')) {
    const c = /^\s*([\d,]+) \(/.exec(line);
    if (c && COMPILER.test(line)) compiler += Number(c[1].replaceAll(',', ''));
  }
  return { total: Number(m[1]), compiler };
}

async function load(url: string, headers: Record<string, string>, amount: number): Promise<void> {
  const r = await autocannon({ url, headers, connections: 10, amount, pipelining: 1, timeout: 60 });
  if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
}

/**
 * Tells callgrind in `pid` to do `args`. vgdb finds the process by a name made of the user and
 * HOST variables of the process's environment: a service runs with HOST=127.0.0.1, the bare
 * servers without.
 */
function control(pid: number, host: string | undefined, ...args: string[]): void {
  const env = { ...process.env };
  if (host === undefined) delete env.HOST;
  else env.HOST = host;
  execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'ignore', env });
}

async function count(pid: number, host: string | undefined, url: string, headers: () => Record<string, string>): Promise<[number, number]> {
  control(pid, host, '-i', 'on');
  control(pid, host, '-z');
  // Signed headers are made per load: a timestamp of this minute.
  await load(url, headers(), REQUESTS);
  control(pid, host, '-d');
  control(pid, host, '-i', 'off');
  const { total, compiler } = lastDump(pid);
  return [total / REQUESTS, (total - compiler) / REQUESTS];
}

const roots = process.argv.slice(2).map((r) => resolve(r));
const whoamiBody = Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<reply><user><uuid>00000000-0000-0000-0000-000000000000</uuid><email>bench@example.com</email></user><request>GET /whoami.xml</request></reply>\n');
const bareEnv = { ...process.env };
delete bareEnv.HOST;
const bare = await startPortPrinter(valgrind[0], [...valgrind.slice(1), process.execPath, '--import', 'tsx', 'bench/bare-server.ts', 'body', whoamiBody.toString('base64')], bareEnv);
const bareFastify = await startPortPrinter(valgrind[0], [...valgrind.slice(1), process.execPath, '--import', 'tsx', 'bench/bare-fastify.ts', whoamiBody.toString('base64')], bareEnv);
const targets: Target[] = [];
const results = new Map<string, number[]>();
const push = (k: string, v: number) => results.set(k, [...(results.get(k) ?? []), v]);
try {
  for (const [i, root] of roots.entries()) targets.push(await startService(root, `${i}:${root.split('/').pop()}`, [], valgrind));
  const loads = [
    { name: 'bare node:http', pid: bare.child.pid!, host: undefined, url: `http://127.0.0.1:${bare.port}/whoami.xml`, headers: () => ({}) },
    { name: 'bare fastify', pid: bareFastify.child.pid!, host: undefined, url: `http://127.0.0.1:${bareFastify.port}/whoami.xml`, headers: () => ({}) },
    ...targets.flatMap((t) => t.paths.map((p) => ({ name: `${t.name} ${p.name}`, pid: t.pid, host: '127.0.0.1' as string | undefined, url: t.url + p.path, headers: p.headers }))),
  ];
  for (const l of loads) await load(l.url, l.headers(), WARM);
  for (let round = 0; round < ROUNDS; round++) {
    for (const l of loads) {
      const [all, outsideCompiler] = await count(l.pid, l.host, l.url, l.headers);
      push(`${l.name}, all`, all);
      push(`${l.name}, without V8's optimizing compiler`, outsideCompiler);
    }
  }
} finally {
  for (const t of targets) await t.stop();
  await stopChild(bare.child);
  await stopChild(bareFastify.child);
}
console.log(`instructions per request (callgrind, ${REQUESTS} requests after ${WARM}; dumps in ${dir})`);
for (const [k, v] of results) console.log(`${k.padEnd(60)} median ${Math.round(median(v)).toLocaleString('en').padStart(10)}  (${v.map((x) => Math.round(x).toLocaleString('en')).join(', ')})`);
