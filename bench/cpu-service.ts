// One built service on its own SQLite data dir with the fixtures the CPU and instruction benches load
// (issue 31): a user with a session, an application key, a website and one gallery. `wrap` runs the
// service under another program (valgrind).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCore } from '../src/app.js';
import { MediaPortfolioClient } from '../src/client/index.js';
import { text } from '../src/client/xml.js';
import { signedHeaders, stopChild } from './lib.js';

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

export interface Target { name: string; url: string; pid: number; paths: Array<{ name: string; path: string; headers: () => Record<string, string> }>; stop(): Promise<void> }

export async function startService(root: string, name: string, rootFlags: string[], wrap: string[] = []): Promise<Target> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mps-cpu-'));
  const core = await buildCore({ dataDir, databaseUrl: undefined });
  const password = 'bench-' + randomBytes(6).toString('hex');
  const { user } = await core.users.create({ email: 'bench@example.com', password, firstName: 'Bench', lastName: 'Mark' });
  await core.websites.create(user, { urlname: 'bench', title: 'Bench' });
  const app = await core.apps.create('bench');
  const port = await freePort();
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', RATE_LIMIT: process.env.BENCH_RATE_LIMIT ?? 'off', VISITOR_RATE_LIMIT: 'off', LOG_LEVEL: 'warn', MALLOC_ARENA_MAX: '2', DATABASE_URL: '', STORAGE_URL: '', PUBLIC_URL: `http://127.0.0.1:${port}` };
  const flags = process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ') : [];
  const child: ChildProcess = spawn(wrap[0] ?? process.execPath, [...wrap.slice(1), ...(wrap.length ? [process.execPath] : []), ...flags, ...rootFlags, '--expose-gc', join(root, 'dist/main.js')], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  const client = new MediaPortfolioClient({ baseUrl: url, apiKey: app.key, apiSecret: app.secret, login: user.email, password, throttle: false });
  for (let i = 0; ; i++) {
    try {
      await client.request('GET', '/ping.xml', {}, { auth: 'none' });
      break;
    } catch {
      if (i > 3000) throw new Error('no ping');
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

