// The fast tier's service (test/service): the services buildCore (src/app.ts)
// builds, on a real SQLite in a temporary data directory, with no HTTP server,
// no storage, no worker. What the admin command line runs on.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { buildCore, type Core } from '../../src/app.js';
import type { UserRow } from '../../src/database/schema.js';
import { freshPgDatabase } from './pg.js';

export interface CoreWorld {
  core: Core;
  /** The core's DATA_DIR (the SQLite file, watermark images). */
  dataDir: string;
  /** A new user with its default media library; each call a new e-mail address. */
  user(label?: string): Promise<UserRow>;
}

/**
 * Builds a core before the file's tests and closes it (and removes its data) after them:
 * on SQLite, or with `postgresUrl` on a fresh PostgreSQL database of that server (dropped after).
 */
export function withCore(opts: { postgresUrl?: string } = {}): CoreWorld {
  let dropPg: (() => Promise<void>) | undefined;
  let n = 0;
  const world = {
    core: undefined as unknown as Core,
    dataDir: '',
    async user(label = 'user') {
      const { user } = await world.core.users.create({ email: `${label}-${++n}@example.com`, password: 'correct horse battery staple' });
      return user;
    },
  };
  beforeAll(async () => {
    world.dataDir = await mkdtemp(join(tmpdir(), 'mps-core-'));
    let databaseUrl: string | undefined;
    if (opts.postgresUrl) ({ url: databaseUrl, drop: dropPg } = await freshPgDatabase(opts.postgresUrl));
    world.core = await buildCore({ dataDir: world.dataDir, databaseUrl });
  });
  afterAll(async () => {
    await world.core?.close();
    await dropPg?.();
    if (world.dataDir) await rm(world.dataDir, { recursive: true, force: true });
  });
  return world;
}
