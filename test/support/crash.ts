// For the crash tests: a data directory (and a PostgreSQL database) seeded
// with an application, a user and a website, on which the service runs as a
// real process that the test kills with SIGKILL and starts again, always on
// the same port so that the addresses it handed out stay valid.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaPortfolioClient } from '../../src/client/index.js';
import { buildCore } from '../../src/app.js';
import type { Store } from '../../src/database/db.js';
import { freePort, spawnService, waitForPing, type AppKeys, type ServiceProcess } from './processes.js';
import { createPgDatabase, type DbKind, type TestUser } from './service.js';

export interface CrashWorld {
  dataDir: string;
  app: AppKeys;
  user: TestUser;
  urlname: string;
  rootUuid: string;
  /** The test's own connection, for the SQL checks (and the seeding). */
  store: Store;
  /** The running service, if any. */
  proc?: ServiceProcess;
  /** Starts the service on this data (same port every time) and waits until it answers /ping.xml. */
  start(): Promise<ServiceProcess>;
  /** SIGKILL: no drain, no release of anything, as a crash or an OOM kill. */
  kill(): Promise<void>;
  /** A logged-in SDK client of the running service. */
  client(): MediaPortfolioClient;
  close(): Promise<void>;
}

export async function crashWorld(kind: DbKind, settings: Record<string, string> = {}): Promise<CrashWorld> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mps-crash-'));
  const pgDb = kind === 'postgres' ? await createPgDatabase() : undefined;
  const core = await buildCore({ dataDir, databaseUrl: pgDb?.url });
  const store = core.store;
  const app = await core.apps.create('crash');
  const email = `crash-${randomBytes(4).toString('hex')}@example.com`;
  const password = 'crash password';
  const { user, defaultArtistUuid } = await core.users.create({ email, password });
  const site = await core.websites.create(user, { urlname: 'crash-site' });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = { DATA_DIR: dataDir, RATE_LIMIT: 'off', PUBLIC_URL: url, ...(pgDb ? { DATABASE_URL: pgDb.url } : {}), ...settings };

  const world: CrashWorld = {
    dataDir,
    app,
    user: { uuid: user.uuid, id: user.id, email, password, defaultArtistUuid },
    urlname: site.urlname,
    rootUuid: site.rootGalleryUuid,
    store,
    async start() {
      if (world.proc) throw new Error('the service is already running');
      const proc = await spawnService({ env, port });
      world.proc = proc;
      await waitForPing(proc, app);
      return proc;
    },
    async kill() {
      const proc = world.proc;
      if (!proc) throw new Error('the service is not running');
      world.proc = undefined;
      proc.child.kill('SIGKILL');
      await proc.exited;
    },
    client() {
      return new MediaPortfolioClient({ baseUrl: url, apiKey: app.key, apiSecret: app.secret, login: email, password, throttle: false, retry429: false });
    },
    async close() {
      if (world.proc) await world.kill();
      await core.close();
      await pgDb?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return world;
}

/** Polls `fn` until it returns something other than undefined. */
export async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
