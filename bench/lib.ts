// What every benchmark section gets: a service process on a fresh SQLite data
// dir, a logged-in client, a bare-server baseline measured in the same run,
// and autocannon load helpers. Ratios, not absolute times: the machine is shared.
import type { Core } from '../src/app.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import type { Kysely } from 'kysely';
import { MediaPortfolioClient } from '../src/client/index.js';
import { computeSignature, rfc2822 } from '../src/http/signing.js';
import type { Database } from '../src/database/schema.js';

export interface BenchLine {
  name: string;
  value: number;
  unit: string;
  target?: string;
  ok?: boolean;
}

export interface LoadResult {
  rps: number;
  /** Requests answered in all. */
  total: number;
  latencyP50: number;
  latencyP99: number;
  errors: number;
  non2xx: number;
}

export interface BenchContext {
  url: string;
  dataDir: string;
  /** The service process, for RSS readings in /proc/<pid>/status. */
  pid: number;
  db: Kysely<Database>;
  /** The services on the same database, in this process (what a test or the admin command would call). */
  core: Core;
  user: { id: number; uuid: string; email: string; password: string; defaultArtistUuid: string };
  app: { key: string; secret: string };
  client: MediaPortfolioClient;
  sessionCookie: string;
  /** Requests/s of the bare node:http server answering a whoami-sized body. */
  baselineRps: number;
  /** That bare server's address (it answers /whoami.xml), for sections that alternate rounds with it. */
  bareUrl: string;
  /** That bare server's process, for its CPU time in /proc/<pid>/stat. */
  barePid: number;
  /** Loads a signed GET carrying the session cookie. */
  load(pathAndQuery: string, opts?: { headers?: Record<string, string>; connections?: number; durationSeconds?: number; url?: string }): Promise<LoadResult>;
  /** Wall time of fn in ms. */
  time(fn: () => Promise<unknown>): Promise<number>;
  startBareUploadSink(dir: string): Promise<{ url: string; close(): Promise<void> }>;
}

export const DEFAULT_LOAD_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

export function signedHeaders(app: { key: string; secret: string }, method: string, pathAndQuery: string): Record<string, string> {
  const q = pathAndQuery.indexOf('?');
  const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  const query = q < 0 ? '' : pathAndQuery.slice(q + 1);
  const timestamp = rfc2822();
  return {
    'X-Service-Authorization': `${app.key}:${computeSignature(method, path, query, app.secret, timestamp)}`,
    'X-Service-Timestamp': timestamp,
  };
}

export async function runLoad(url: string, headers: Record<string, string>, connections = Number(process.env.BENCH_CONNECTIONS ?? 10), durationSeconds = DEFAULT_LOAD_SECONDS): Promise<LoadResult> {
  const result = await autocannon({ url, headers, connections, duration: durationSeconds, pipelining: 1 });
  return {
    rps: result.requests.average,
    total: result.requests.total,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/**
 * Loads a list of GETs, `connections` clients each going through all of it
 * from its own starting point (so no two ask for the same thing at about the
 * same time). The requests are built once: nothing is built per request.
 */
export async function runLoadOfList(url: string, requests: Array<{ path: string; headers: Record<string, string> }>, connections = Number(process.env.BENCH_CONNECTIONS ?? 10), durationSeconds = DEFAULT_LOAD_SECONDS): Promise<LoadResult> {
  const step = Math.floor(requests.length / connections);
  const results = await Promise.all(
    Array.from({ length: connections }, (_, i) => {
      const from = i * step;
      const rotated = [...requests.slice(from), ...requests.slice(0, from)].map((r) => ({ method: 'GET' as const, path: r.path, headers: r.headers }));
      return autocannon({ url, connections: 1, duration: durationSeconds, pipelining: 1, requests: rotated });
    }),
  );
  return {
    rps: results.reduce((sum, r) => sum + r.requests.average, 0),
    total: results.reduce((sum, r) => sum + r.requests.total, 0),
    latencyP50: median(results.map((r) => r.latency.p50)),
    latencyP99: Math.max(...results.map((r) => r.latency.p99)),
    errors: results.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
  };
}

/** Starts a child process that prints its port on the first stdout line. */
export async function startPortPrinter(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const rl = createInterface({ input: child.stdout! });
  const [line] = (await Promise.race([once(rl, 'line'), once(child, 'exit').then(() => { throw new Error(`${args.join(' ')} exited early`); })])) as [string];
  return { child, port: Number(line) };
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

/** A process's CPU time (user + system) so far, in µs, from /proc/<pid>/stat (Linux). */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, in clock ticks of 1/100 s (USER_HZ).
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** Runs a load and divides the CPU time `pid` spent meanwhile by the requests answered. */
export async function withCpu(pid: number, load: () => Promise<LoadResult>): Promise<LoadResult & { cpuUs: number }> {
  const before = cpuMicros(pid);
  const r = await load();
  return { ...r, cpuUs: (cpuMicros(pid) - before) / Math.max(1, r.total) };
}

export async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
