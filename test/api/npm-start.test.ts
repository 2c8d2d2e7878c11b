// `npm start` as a container runtime or a supervisor runs it (operations.md):
// they signal npm's own process, not the server. SIGTERM to npm must reach
// the server, which drains and exits; nothing may be left serving the port.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, connectionRefused, freePort, REPO_ROOT } from '../support/processes.js';
import { createPgDatabase, eachDatabase, PG_URL, REDIS_URL } from '../support/service.js';
import { startS3, type LocalS3 } from './uploads-support.js';

interface NpmProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `npm <args>` in the repository, in a process group of its own (so that the test can remove whatever it leaves). */
function npm(args: string[], env: NodeJS.ProcessEnv): NpmProcess {
  const child = spawn('npm', args, { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, output: () => output, exited };
}

async function waitForHealthz(port: number, proc: NpmProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      await res.text();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (proc.child.exitCode !== null) throw new Error(`npm start exited before /healthz answered:\n${proc.output()}`);
    if (Date.now() > deadline) throw new Error(`no /healthz 200 within ${timeoutMs} ms:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls until the port refuses connections, or gives up after `ms` (false). */
async function refusedWithin(port: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await connectionRefused(port)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return connectionRefused(port);
}

describe('npm start under a supervisor', () => {
  let proc: NpmProcess | undefined;
  afterEach(() => {
    // Whatever the test left in npm's process group (an orphaned server, before the fix).
    if (proc?.child.pid) {
      try {
        process.kill(-proc.child.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    }
    proc = undefined;
  });

  eachDatabase((kind) => {
    let dataDir: string;
    let pgDb: { url: string; drop(): Promise<void> } | undefined;

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'mps-npm-start-'));
      pgDb = kind === 'postgres' ? await createPgDatabase() : undefined;
    });
    afterAll(async () => {
      await pgDb?.drop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('SIGTERM to npm\'s process reaches the server: it drains ("stopped"), exits, and nothing listens on the port any more', { timeout: 240_000 }, async () => {
      const port = await freePort();
      proc = npm(['start'], childEnv({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT: 'off', DATABASE_URL: pgDb?.url }));
      // A build may come first when the sources are newer than dist/.
      await waitForHealthz(port, proc, 180_000);

      process.kill(proc.child.pid!, 'SIGTERM');
      const exit = await Promise.race([proc.exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 20_000))]);
      expect(exit, 'npm exits after SIGTERM').not.toBe('still running');
      expect(await refusedWithin(port, 10_000), 'no process left listening on the port').toBe(true);
      const logged = proc
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => (JSON.parse(l) as { msg?: string }).msg);
      expect(logged, 'the graceful shutdown ran to its end').toContain('stopped');
    });
  });
});

// A worker (ROLE=worker) needs PostgreSQL, Redis, object storage and a shared upload secret.
describe.runIf(PG_URL && REDIS_URL)('npm run worker under a supervisor', () => {
  let proc: NpmProcess | undefined;
  let dataDir: string;
  let pgDb: { url: string; drop(): Promise<void> } | undefined;
  let s3: LocalS3 | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mps-npm-worker-'));
    pgDb = await createPgDatabase();
    s3 = await startS3();
  });
  afterAll(async () => {
    if (proc?.child.pid) {
      try {
        process.kill(-proc.child.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    }
    await s3?.close();
    await pgDb?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('SIGTERM to npm\'s process reaches the worker: it drains ("stopped"), exits, and nothing listens on its port any more', { timeout: 240_000 }, async () => {
    const port = await freePort();
    proc = npm(['run', 'worker'], childEnv({
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DATABASE_URL: pgDb!.url,
      REDIS_URL: REDIS_URL!,
      UPLOAD_SECRET: randomBytes(32).toString('hex'),
      ...s3!.env,
    }));
    await waitForHealthz(port, proc, 180_000);

    process.kill(proc.child.pid!, 'SIGTERM');
    const exit = await Promise.race([proc.exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 20_000))]);
    expect(exit, 'npm exits after SIGTERM').not.toBe('still running');
    expect(await refusedWithin(port, 10_000), 'no process left listening on the port').toBe(true);
    const logged = proc
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; role?: string });
    expect(logged.find((l) => l.msg === 'media portfolio service ready')?.role).toBe('worker');
    expect(logged.map((l) => l.msg), 'the graceful shutdown ran to its end').toContain('stopped');
  });
});

// The launcher behind npm start / worker / admin / api (scripts/built.mjs), in a copy of the
// sources: a build that is missing or older than a source is rebuilt, saying so, before it runs;
// one that fails to build does not run at all.
describe('a stale build never runs silently', () => {
  let copy: string;
  beforeAll(async () => {
    copy = await mkdtemp(join(tmpdir(), 'mps-built-'));
    for (const part of ['src', 'scripts', 'tsconfig.json', 'package.json']) await cp(join(REPO_ROOT, part), join(copy, part), { recursive: true });
    await symlink(join(REPO_ROOT, 'node_modules'), join(copy, 'node_modules'));
  });
  afterAll(async () => {
    if (copy) await rm(copy, { recursive: true, force: true });
  });
  const help = () => runProcess(['scripts/built.mjs', 'cli/admin.js', '--help'], copy);

  it('builds when there is no build, runs the build as is when current, rebuilds after a source changed, and refuses to run when the build fails', { timeout: 600_000 }, async () => {
    const first = await help();
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('building dist/ (no build yet)');
    expect(first.stdout).toMatch(/^usage: /);

    const current = await help();
    expect(current).toEqual({ code: 0, stderr: '', stdout: first.stdout });

    const source = join(copy, 'src', 'cli', 'admin.ts');
    await writeFile(source, (await readFile(source, 'utf8')).replace("summary: 'a media library'", "summary: 'a media library, changed'"));
    const changed = await help();
    expect(changed.code).toBe(0);
    expect(changed.stderr).toContain('building dist/ (src/cli/admin.ts is newer than the last build)');
    expect(changed.stdout).toContain('a media library, changed');

    await writeFile(source, (await readFile(source, 'utf8')) + '\nexport const broken: number = "not a number";\n');
    const broken = await help();
    expect(broken.code).toBe(1);
    expect(broken.stdout, 'the out-of-date build did not run').toBe('');
    expect(broken.stderr).toContain('build failed');
  });
});

/** `node <args>` in `cwd`, to completion. */
function runProcess(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: childEnv({ DATA_DIR: join(cwd, 'data') }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
