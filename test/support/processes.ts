// Runs the service and the admin CLI as real child processes, the way operators
// do (`node --import tsx src/main.ts`), for the process-level tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { computeSignature, rfc2822 } from '../../src/http/signing.js';
import { TEST_REDIS_PREFIX } from './redis-prefix.js';

/** The repository root (where package.json and node_modules are). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** tsx's ESM loader as a file URL: `--import` works from any working directory. */
export const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
export const MAIN_TS = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export interface AppKeys {
  key: string;
  secret: string;
}

// Settings of operations.md: a child gets only the ones a test gives it.
const SERVICE_SETTINGS = [
  'PORT',
  'HOST',
  'DATA_DIR',
  'DATABASE_URL',
  'PUBLIC_URL',
  'RATE_LIMIT',
  'REDIS_URL',
  'REDIS_PREFIX',
  'STORAGE_URL',
  'RESERVED_HOSTNAMES',
  'UPLOAD_SECRET',
  'MAX_UPLOAD_BYTES',
  'UPLOAD_EXPIRY_SECONDS',
  'GALLERY_LIST_CAP',
  'LOG_LEVEL',
  'TRUST_PROXY',
  'SESSION_PURGE_SECONDS',
  'HEADERS_TIMEOUT_SECONDS',
  'REQUEST_TIMEOUT_SECONDS',
  'IDLE_TIMEOUT_SECONDS',
  'MAX_CONNECTIONS',
  'SMTP_URL',
  'MAIL_FROM',
  'VISITOR_LINK_TTL_SECONDS',
  'ROLE',
  'METRICS_PORT',
  'METRICS_TOKEN',
  'SHUTDOWN_TIMEOUT_SECONDS',
];

/** This process's environment without any service setting, plus `extra`. */
export function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of SERVICE_SETTINGS) delete env[k];
  // This file's own Redis names (test files run side by side, their fresh databases reusing ids).
  env.REDIS_PREFIX = TEST_REDIS_PREFIX;
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

/** A loopback port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** True when a TCP connection to the port is refused. */
export function connectionRefused(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node --import tsx <args>` in `cwd`, to completion. */
export function runNode(args: string[], opts: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number }): Promise<RunResult> {
  return runProcess(['--import', TSX_LOADER, ...args], opts);
}

function runProcess(args: string[], opts: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: opts.cwd ?? REPO_ROOT, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The launcher of the build (package.json's start, worker, admin and api scripts). */
export const BUILT = fileURLToPath(new URL('../../scripts/built.mjs', import.meta.url));

/** Builds dist/ when a source is newer than it (its messages on this process's stderr): what `npm run admin` would do first. */
export async function buildIfStale(): Promise<void> {
  const res = await new Promise<RunResult>((resolve, reject) => {
    const child = spawn(process.execPath, [BUILT, '--if-stale'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.resume();
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout: '', stderr }));
  });
  if (res.code !== 0) throw new Error(`the build failed:\n${res.stderr}`);
}

/** `node scripts/built.mjs <entry> <args>` (as `npm run admin -- <args>` runs it, without npm), to completion. */
export function runBuilt(entry: string, args: string[], opts: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number }): Promise<RunResult> {
  return runProcess([BUILT, entry, ...args], opts);
}

/** One signed request (spec 5.1) with the query string sent and signed exactly as given. */
export function signedFetch(
  baseUrl: string,
  app: AppKeys,
  method: string,
  pathAndQuery: string,
  init: { headers?: Record<string, string>; body?: string } = {},
): Promise<Response> {
  const q = pathAndQuery.indexOf('?');
  const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  const query = q < 0 ? '' : pathAndQuery.slice(q + 1);
  const timestamp = rfc2822();
  const headers = {
    ...init.headers,
    'X-Service-Authorization': `${app.key}:${computeSignature(method, path, query, app.secret, timestamp, 'sha1')}`,
    'X-Service-Timestamp': timestamp,
  };
  return fetch(baseUrl + pathAndQuery, { method, headers, body: init.body });
}

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly port: number;
  readonly url: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) once the process is gone. */
  readonly exited: Promise<number | null>;
  /** Sends `signal` (default SIGTERM) and waits for the exit, SIGKILL after `timeoutMs`. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

/**
 * Spawns `node --import tsx src/main.ts` with the given settings (HOST
 * 127.0.0.1, LOG_LEVEL warn and PORT = a free port unless given); does not wait
 * for it. `portFromEnvFile`: PORT is left out of the environment (a `.env` file
 * in `cwd` names `port`).
 */
export async function spawnService(opts: { env?: Record<string, string | undefined>; cwd?: string; port?: number; portFromEnvFile?: boolean }): Promise<ServiceProcess> {
  const port = opts.port ?? (await freePort());
  const env = childEnv({ HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...(opts.portFromEnvFile ? {} : { PORT: String(port) }), ...opts.env });
  const child = spawn(process.execPath, ['--import', TSX_LOADER, MAIN_TS], { cwd: opts.cwd ?? REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
  });
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      let timer: NodeJS.Timeout | undefined;
      const killed = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve();
        }, timeoutMs);
      });
      await Promise.race([exited, killed]);
      clearTimeout(timer);
      return exited;
    },
  };
}

/** Polls GET /readyz until it answers 200 (a second node of a test, started with spawnService); fails early when the process exits. */
export async function waitForReady(proc: ServiceProcess, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`the second node exited at start:\n${proc.output()}`);
    const ok = await fetch(`${proc.url}/readyz`)
      .then(async (r) => (await r.text(), r.status === 200))
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`the second node is not ready:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls a signed GET /ping.xml until it answers 200; fails early when the process exits. */
export async function waitForPing(proc: ServiceProcess, app: AppKeys, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void proc.exited.then(() => (exited = true));
  for (;;) {
    if (exited) throw new Error(`service on port ${proc.port} exited before answering /ping.xml:\n${proc.output()}`);
    try {
      const res = await signedFetch(proc.url, app, 'GET', '/ping.xml');
      await res.text();
      if (res.status === 200) return;
      throw new Error(`/ping.xml answered ${res.status}:\n${proc.output()}`);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith('/ping.xml answered')) throw err;
    }
    if (Date.now() > deadline) throw new Error(`service on port ${proc.port} did not answer /ping.xml in ${timeoutMs} ms:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A second node of a test's deployment, ready (startSecondNode). */
export interface SecondNode {
  proc: ServiceProcess;
  url: string;
  /** Its own DATA_DIR (nodes share the database and the bucket, not their disks). */
  dataDir: string;
  /** Stops it and removes its DATA_DIR. */
  close(): Promise<void>;
}

/**
 * Starts another node beside a test's service, as a load balancer would put it: the same database
 * and the settings `env` gives (storage, Redis, ROLE…), a DATA_DIR of its own, and the first node's
 * address as PUBLIC_URL, so the studio's address, cookies and tokens are the same on both. No
 * request budget, as TestService starts the first: a spawned node would keep the default 60/min,
 * shared through Redis under user ids that every fresh test database hands out again.
 */
export async function startSecondNode(first: { url: string; databaseUrl: string }, env: Record<string, string> = {}): Promise<SecondNode> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mps-node-b-'));
  const proc = await spawnService({ env: { RATE_LIMIT: 'off', ...env, DATABASE_URL: first.databaseUrl, DATA_DIR: dataDir, PUBLIC_URL: first.url } });
  const close = async () => {
    await proc.stop('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForReady(proc);
  } catch (err) {
    await close();
    throw err;
  }
  return { proc, url: proc.url, dataDir, close };
}
