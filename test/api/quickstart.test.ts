// The README's quickstart, run as written, in a directory of its own with a
// port and a data directory other than the defaults: `npm start` there, then
// the README's shell blocks in a second shell. What it proves: the `admin`
// and `api` commands find the server and the data as `npm start` does (the
// same environment, the same .env), the .env the quickstart writes is valid
// shell (`set -a; . ./.env`), `api --json` gives scripts the media's UUID
// (not the gallery's), and an unreachable server is named in one line.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, childEnv, freePort, REPO_ROOT, type RunResult } from '../support/processes.js';
import { createPgDatabase, eachDatabase } from '../support/service.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The fenced block that follows `<!-- quickstart:NAME -->` in the README. */
function readmeBlock(readme: string, name: string): string {
  const at = readme.indexOf(`<!-- quickstart:${name}`);
  if (at < 0) throw new Error(`README.md has no <!-- quickstart:${name} --> block`);
  const m = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!m) throw new Error(`no sh block after <!-- quickstart:${name} -->`);
  return m[1];
}

/** `sh -c script` in `cwd`, to completion. */
function sh(script: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 240_000): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-e', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function waitForHealthz(port: number, server: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      await res.text();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (server.exitCode !== null) throw new Error(`npm start exited before /healthz answered:\n${output()}`);
    if (Date.now() > deadline) throw new Error(`no /healthz within 180 s:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(buildIfStale, 300_000);

eachDatabase((kind) => {
  describe('the README quickstart, with another PORT and DATA_DIR', () => {
    let dir: string;
    let server: ChildProcess | undefined;
    let pgDb: { url: string; drop(): Promise<void> } | undefined;

    beforeAll(async () => {
      // A checkout as a person has it, minus what the commands do not read: npm finds
      // package.json here and runs scripts/built.mjs, which runs the repository's build.
      dir = await mkdtemp(join(tmpdir(), 'mps-quickstart-'));
      for (const part of ['package.json', 'scripts', 'node_modules']) await symlink(join(REPO_ROOT, part), join(dir, part));
      pgDb = kind === 'postgres' ? await createPgDatabase() : undefined;
      // A photo, as the README asks for one.
      await sharp({ create: { width: 640, height: 427, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 120, sigma: 40 } } })
        .jpeg()
        .toFile(join(dir, 'photo.jpg'));
    });
    afterEach(() => {
      if (server?.pid && server.exitCode === null) {
        try {
          process.kill(-server.pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
    });
    afterAll(async () => {
      await pgDb?.drop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('runs as written: admin and api find the server and the data through .env, the .env is valid shell, --json gives the media its own UUID', { timeout: 480_000 }, async () => {
      const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
      const port = await freePort();
      // Settings only from .env: the environment names none of them.
      const env = childEnv({ MPS_URL: undefined });
      for (const name of ['MPS_URL', 'MPS_API_KEY', 'MPS_API_SECRET', 'MPS_LOGIN', 'MPS_PASSWORD', 'MPS_OTP', 'MPS_SESSION_FILE']) delete env[name];
      env.LOG_LEVEL = 'warn';

      const settings = readmeBlock(readme, 'settings');
      expect(settings, 'the README shows another port').toContain('8081');
      const settingsRun = await sh(settings.replaceAll('8081', String(port)) + (pgDb ? `printf "DATABASE_URL='%s'\\n" '${pgDb.url}' >> .env\n` : ''), dir, env);
      expect(settingsRun.code, settingsRun.stderr).toBe(0);

      // First terminal: `npm start`, in a process group of its own.
      server = spawn('npm', ['start'], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      server.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
      server.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
      await waitForHealthz(port, server, () => output);

      // Second terminal: the README's blocks as written, then what the test reads back.
      const script = [readmeBlock(readme, 'commands'), readmeBlock(readme, 'publish'), 'printf "\\n@@ %s %s\\n" "$ROOT" "$MEDIA"', ''].join('\n');
      const run = await sh(script, dir, env);
      expect(run.stderr, 'nothing on stderr').toBe('');
      expect(run.code).toBe(0);

      // The data went where .env says, and nowhere else.
      const dataDir = /DATA_DIR='?([^'\n]+)'?/.exec(settings)![1];
      if (kind === 'sqlite') expect(existsSync(join(dir, dataDir, 'media-portfolio.sqlite3')), `${dataDir} holds the database`).toBe(true);
      expect(existsSync(join(dir, 'data')), 'no ./data (the default) was made').toBe(false);

      const [, root, media] = /^@@ (\S+) (\S+)$/m.exec(run.stdout)!;
      expect(root).toMatch(UUID);
      expect(media).toMatch(UUID);
      expect(media, 'the media UUID, not the gallery UUID').not.toBe(root);
      // The last reply printed is the media as JSON, in the root gallery.
      const last = run.stdout.slice(0, run.stdout.lastIndexOf('\n@@'));
      const reply = JSON.parse(last.slice(last.lastIndexOf('\n{\n') + 1)) as { media: { uuid: string; title: string; galleries: Array<{ uuid: string }> }; request: string };
      expect(reply.media.uuid).toBe(media);
      expect(reply.media.title).toBe('First light');
      expect(reply.media.galleries.map((g) => g.uuid)).toEqual([root]);
      expect(reply.request).toBe(`GET /medias/${media}.xml`);

      // The .env survives a POSIX shell, with the values the .env readers see.
      const sourced = await sh('set -a; . ./.env; set +a; printf "%s|%s|%s|%s|%s\\n" "$PORT" "$DATA_DIR" "$MPS_LOGIN" "$MPS_PASSWORD" "${#MPS_API_SECRET}"', dir, env);
      expect(sourced.stderr).toBe('');
      expect(sourced.stdout).toBe(`${port}|${dataDir}|me@example.com|correct horse|64\n`);

      // The server stopped: the api command names the address it tried, in one line, and fails.
      process.kill(-server.pid!, 'SIGTERM');
      await new Promise((r) => (server!.exitCode !== null ? r(undefined) : server!.once('exit', r)));
      const gone = await sh('npm run --silent api -- GET /ping.xml', dir, env).catch((e: unknown) => ({ code: -1, stdout: '', stderr: String(e) }));
      expect(gone.code).not.toBe(0);
      expect(gone.stdout).toBe('');
      expect(gone.stderr).toMatch(new RegExp(`^api: cannot reach the server at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)[^\\n]*\\n$`));
    });
  });
});
