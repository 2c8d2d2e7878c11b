// `mps sync` (bin/mps.mjs → dist/cli/sync.js) against a started service: a 3-level tree of small
// JPEGs synced, the command SIGKILLed midway, resumed, each file on the server exactly once; a
// second sync sends nothing; a dry run changes nothing; --delete removes what left the folder.
// SQLite with 500 files; PostgreSQL with 150 (the same paths, fewer files, for the suite's time).
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { int, text } from '../../src/client/xml.js';
import { buildIfStale, childEnv, REPO_ROOT, type RunResult } from '../support/processes.js';
import { eachDatabase, TestService, type TestApp, type TestUser } from '../support/service.js';

const BIN = join(REPO_ROOT, 'bin', 'mps.mjs');

/** `count` JPEGs over three levels: top/, top/dN/, top/dN/sM/ (every file's bytes its own). */
async function makeTree(root: string, count: number): Promise<string[]> {
  const dirs = [''];
  for (let d = 0; d < 3; d++) {
    dirs.push(`d${d}`);
    for (let s = 0; s < 3; s++) dirs.push(`d${d}/s${s}`);
  }
  for (const dir of dirs) await mkdir(join(root, dir), { recursive: true });
  const rels: string[] = [];
  for (let i = 0; i < count; i++) {
    const dir = dirs[i % dirs.length];
    const rel = dir ? `${dir}/img-${i}.jpg` : `img-${i}.jpg`;
    await writeFile(join(root, rel), await jpeg(i));
    rels.push(rel);
  }
  return rels;
}

function jpeg(i: number): Promise<Buffer> {
  return sharp({ create: { width: 8, height: 8, channels: 3, background: { r: i % 256, g: (i >> 8) * 40, b: 7 } } })
    .jpeg()
    .toBuffer();
}

interface Run extends RunResult {
  killed: boolean;
}

/** The command; `killAfter`: SIGKILLed once that many files were reported uploaded. */
function sync(env: NodeJS.ProcessEnv, args: string[], killAfter?: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'sync', ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killed = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (killAfter !== undefined && !killed && (stdout.match(/^uploaded /gm)?.length ?? 0) >= killAfter) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, killed });
    });
  });
}

function summaryOf(run: Run): { counts: Record<string, number>; bytes_sent: number; galleries_created: string[]; files: Array<{ path: string; action: string; media?: string }> } {
  expect(run.stderr, 'stderr').toBe('');
  return JSON.parse(run.stdout);
}

eachDatabase((kind) => {
  describe(`mps sync (${kind})`, () => {
    const count = kind === 'sqlite' ? 500 : 150;
    let svc: TestService;
    let app: TestApp;
    let user: TestUser;
    let urlname: string;
    let dir: string;
    let folder: string;
    let env: NodeJS.ProcessEnv;
    let rels: string[];

    beforeAll(async () => {
      await buildIfStale();
      svc = await TestService.start(kind);
      app = await svc.app();
      user = await svc.user();
      urlname = (await svc.website(user)).urlname;
      dir = await mkdtemp(join(tmpdir(), 'mps-sync-'));
      folder = join(dir, 'Wedding');
      rels = await makeTree(folder, count);
      env = childEnv({ MPS_URL: svc.url, MPS_API_KEY: app.key, MPS_API_SECRET: app.secret, MPS_LOGIN: user.email, MPS_PASSWORD: user.password, MPS_SESSION_FILE: join(dir, 'session') });
    }, 120_000);

    afterAll(async () => {
      await svc?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    /** The user's live medias as the API lists them: file name → how many. */
    async function liveNames(): Promise<Map<string, number>> {
      const client = svc.client(app, user);
      const names = new Map<string, number>();
      for await (const m of client.paginate('/medias.xml', { per_page: 500 }, 'medias/media')) {
        const name = text(m, 'file-name')!;
        names.set(name, (names.get(name) ?? 0) + 1);
      }
      return names;
    }

    async function mediaRows(): Promise<number> {
      const row = await svc.db.selectFrom('medias').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    }

    it('syncs, is killed midway, resumes: every file on the server exactly once, in its gallery', async () => {
      const first = await sync(env, [folder, '--gallery', 'Clients/Smith', '--concurrency', '4'], 40);
      expect(first.killed, first.stderr).toBe(true);
      const state = JSON.parse(await readFile(join(folder, '.mps-sync.json'), 'utf8'));
      const doneBefore = Object.values(state.files).filter((f) => (f as { done: boolean }).done).length;
      expect(doneBefore).toBeGreaterThanOrEqual(40);

      const resumed = summaryOf(await sync(env, [folder, '--gallery', 'Clients/Smith', '--json']));
      expect(resumed.counts.failed).toBe(0);
      expect(resumed.counts.unchanged + resumed.counts.adopted + resumed.counts.uploaded).toBe(count);
      // Files fully sent before the kill are not sent again.
      expect(resumed.counts.unchanged).toBe(doneBefore);

      const names = await liveNames();
      expect(names.size).toBe(count);
      for (const rel of rels) expect(names.get(rel.split('/').pop()!), rel).toBe(1);

      // The tree: Clients/Smith/dN/sM, each gallery with its folder's files.
      const client = svc.client(app, user);
      const galleries = [];
      for await (const g of client.paginate(`/websites/${urlname}/galleries.xml`, { view: 'list', per_page: 500 }, 'galleries/gallery')) galleries.push({ uuid: text(g, 'uuid')!, path: text(g, 'full-url-path')! });
      const leaf = galleries.find((g) => g.path.endsWith('/d1/s2'));
      expect(leaf, JSON.stringify(galleries)).toBeDefined();
      const inLeaf = await client.request('GET', '/medias.xml', { gallery_id: leaf!.uuid });
      expect(int(inLeaf.doc, 'total-count')).toBe(rels.filter((r) => r.startsWith('d1/s2/')).length);
    }, 300_000);

    it('synced again with no change sends nothing (server-side counts unchanged)', async () => {
      const rows = await mediaRows();
      const again = summaryOf(await sync(env, [folder, '--gallery', 'Clients/Smith', '--json']));
      expect(again.counts).toMatchObject({ uploaded: 0, replaced: 0, failed: 0, deleted: 0, unchanged: count });
      expect(again.bytes_sent).toBe(0);
      expect(again.galleries_created).toEqual([]);
      expect(await mediaRows()).toBe(rows);
    }, 120_000);

    it('a dry run says what it would do and changes nothing; --delete then removes the medias whose files went', async () => {
      const gone = rels.slice(0, 3);
      const before = JSON.parse(await readFile(join(folder, '.mps-sync.json'), 'utf8'));
      for (const rel of gone) await unlink(join(folder, rel));
      await mkdir(join(folder, 'new'), { recursive: true });
      await writeFile(join(folder, 'new', 'fresh.jpg'), await jpeg(9999));
      await writeFile(join(folder, rels[5]), await jpeg(7777));
      const rows = await mediaRows();
      const stateText = await readFile(join(folder, '.mps-sync.json'), 'utf8');

      const dry = summaryOf(await sync(env, [folder, '--gallery', 'Clients/Smith', '--dry-run', '--delete', '--json']));
      expect(dry.counts).toMatchObject({ uploaded: 1, replaced: 1, deleted: 3, failed: 0 });
      expect(dry.galleries_created).toEqual(['Clients/Smith/new']);
      expect(await mediaRows()).toBe(rows);
      expect(await readFile(join(folder, '.mps-sync.json'), 'utf8')).toBe(stateText);
      expect((await liveNames()).size).toBe(count);

      const kept = summaryOf(await sync(env, [folder, '--gallery', 'Clients/Smith', '--json']));
      expect(kept.counts).toMatchObject({ uploaded: 1, replaced: 1, deleted: 0, missing: 3 });
      expect((await liveNames()).size).toBe(count + 1);

      const deleted = summaryOf(await sync(env, [folder, '--gallery', 'Clients/Smith', '--delete', '--json']));
      expect(deleted.counts).toMatchObject({ uploaded: 0, replaced: 0, deleted: 3, failed: 0 });
      const client = svc.client(app, user);
      for (const rel of gone) {
        const uuid = before.files[rel].media as string;
        await expect(client.request('GET', `/medias/${uuid}.xml`)).rejects.toMatchObject({ status: 404 });
      }
      const names = await liveNames();
      expect(names.size).toBe(count - 3 + 1);
      expect(names.get('fresh.jpg')).toBe(1);
    }, 180_000);

    it('exit status 2 with a usage error or without credentials', async () => {
      expect((await sync(env, [folder])).code).toBe(2);
      expect((await sync(childEnv({ MPS_URL: svc.url }), [folder, '--gallery', 'X'])).code).toBe(2);
      expect((await sync(env, [join(dir, 'nowhere'), '--gallery', 'X'])).code).toBe(2);
    });
  });
});
