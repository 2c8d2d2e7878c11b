// The service as `npm start` runs it (operations.md): a real process that
// answers /ping.xml once ready, drains on SIGTERM and exits 0, and reads a
// `.env` file in its working directory that the environment overrides.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { computeSignature, rfc2822 } from '../../src/http/signing.js';
import { buildCore } from '../../src/app.js';
import { openStore } from '../../src/database/db.js';
import { connectionRefused, freePort, signedFetch, spawnService, waitForPing, type AppKeys, type ServiceProcess } from '../support/processes.js';
import { basicAuth, createPgDatabase, eachDatabase } from '../support/service.js';

interface Seeded {
  app: AppKeys;
  email: string;
  password: string;
  urlname: string;
  rootGalleryUuid: string;
}

/** A database (in `dataDir`, or at `databaseUrl`) with an application, a user and a website. */
async function seed(dataDir: string, databaseUrl?: string): Promise<Seeded> {
  const email = `life-${randomBytes(4).toString('hex')}@example.com`;
  const password = 'lifecycle password';
  const urlname = 'life-site';
  const core = await buildCore({ dataDir, databaseUrl });
  try {
    const app = await core.apps.create('lifecycle');
    const { user } = await core.users.create({ email, password });
    const { rootGalleryUuid } = await core.websites.create(user, { urlname });
    return { app, email, password, urlname, rootGalleryUuid };
  } finally {
    await core.close();
  }
}

/** A raw connection that collects everything the server sends. */
function rawConnection(port: number): Promise<{ socket: Socket; received(): string; closed: Promise<void>; waitFor(re: RegExp, ms?: number): Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let data = '';
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.setEncoding('utf8').on('data', (d: string) => (data += d));
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.removeListener('error', reject);
      socket.on('error', () => undefined);
      resolve({
        socket,
        received: () => data,
        closed,
        async waitFor(re, ms = 10_000) {
          const deadline = Date.now() + ms;
          while (!re.test(data)) {
            if (Date.now() > deadline) throw new Error(`no ${re} from the server in ${ms} ms; got: ${JSON.stringify(data)}`);
            await new Promise((r) => setTimeout(r, 20));
          }
          return data;
        },
      });
    });
  });
}

function signedHead(app: AppKeys, method: string, path: string, port: number, extra: string[]): string {
  const timestamp = rfc2822();
  return [
    `${method} ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    `X-Service-Authorization: ${app.key}:${computeSignature(method, path, '', app.secret, timestamp, 'sha1')}`,
    `X-Service-Timestamp: ${timestamp}`,
    ...extra,
    '',
    '',
  ].join('\r\n');
}

async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

describe('service process lifecycle', () => {
  let proc: ServiceProcess | undefined;
  afterEach(async () => {
    await proc?.stop('SIGKILL');
    proc = undefined;
  });

  // The drain on SIGTERM ends with the database closed: a PostgreSQL pool as well as a SQLite file.
  eachDatabase((kind) => {
    let dataDir: string;
    let pgDb: { url: string; drop(): Promise<void> } | undefined;
    let seeded: Seeded;
    const settings = () => ({ DATA_DIR: dataDir, RATE_LIMIT: 'off', ...(pgDb ? { DATABASE_URL: pgDb.url } : {}) });

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'mps-life-'));
      pgDb = kind === 'postgres' ? await createPgDatabase() : undefined;
      seeded = await seed(dataDir, pgDb?.url);
    });
    afterAll(async () => {
      await pgDb?.drop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('answers a signed /ping.xml once ready, and only a signed one', async () => {
      proc = await spawnService({ env: settings() });
      await waitForPing(proc, seeded.app);
      const res = await signedFetch(proc.url, seeded.app, 'GET', '/ping.xml?text=hi');
      expect(res.status).toBe(200);
      const body = await res.text();
      expect(body).toContain('<message>OK</message>');
      expect(body).toContain('<input-text>hi</input-text>');
      const unsigned = await fetch(`${proc.url}/ping.xml`);
      expect(unsigned.status).toBe(401);
      await unsigned.text();
    });

    it('on SIGTERM stops accepting connections, closes idle ones, finishes the request in flight, then exits 0', async () => {
      proc = await spawnService({ env: settings() });
      await waitForPing(proc, seeded.app);
      const { port } = proc;

      // An idle keep-alive connection, after one complete request.
      const idle = await rawConnection(port);
      idle.socket.write(signedHead(seeded.app, 'GET', '/ping.xml', port, []));
      await idle.waitFor(/<\/reply>/);
      expect(idle.received()).toMatch(/^HTTP\/1\.1 200 /);

      // A request in flight: headers sent, the server has taken it (100 Continue), half the body sent.
      const body = `gallery%5Bparent%5D=${seeded.rootGalleryUuid}&gallery%5Bname%5D=${'Drained'.padEnd(200, 'x')}`;
      const slow = await rawConnection(port);
      slow.socket.write(
        signedHead(seeded.app, 'POST', `/websites/${seeded.urlname}/galleries.xml`, port, [
          `Authorization: ${basicAuth(seeded.email, seeded.password)}`,
          'Content-Type: application/x-www-form-urlencoded',
          `Content-Length: ${Buffer.byteLength(body)}`,
          'Expect: 100-continue',
        ]),
      );
      await slow.waitFor(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
      slow.socket.write(body.slice(0, 100));

      proc.child.kill('SIGTERM');

      // No new connections while the request is still in flight ...
      const deadline = Date.now() + 10_000;
      while (!(await connectionRefused(port))) {
        if (Date.now() > deadline) throw new Error('still accepting connections 10 s after SIGTERM');
        await new Promise((r) => setTimeout(r, 50));
      }
      // ... the idle connection is closed rather than waited for ...
      await within(idle.closed, 5_000, 'idle keep-alive connection closed after SIGTERM');
      expect(proc.child.exitCode).toBeNull();

      // ... and the request in flight completes.
      slow.socket.write(body.slice(100));
      const reply = await slow.waitFor(/<\/reply>/);
      expect(reply.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '')).toMatch(/^HTTP\/1\.1 200 /);
      expect(reply).toMatch(/<gallery-uuid>[0-9a-f-]{36}<\/gallery-uuid>/);

      expect(await within(proc.exited, 10_000, 'exit after SIGTERM')).toBe(0);
      expect(await connectionRefused(port)).toBe(true);
      slow.socket.destroy();

      // The gallery created by the drained request was committed.
      const store = openStore({ dataDir, databaseUrl: pgDb?.url });
      try {
        const names = await store.db.selectFrom('galleries').select('name').execute();
        expect(names.map((g) => g.name)).toContain('Drained'.padEnd(200, 'x'));
      } finally {
        await store.close();
      }
    });
  });

  // SQLite only: the database file must land under .env's DATA_DIR.
  it('reads settings from .env in its working directory; the environment wins', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'mps-dotenv-'));
    try {
      const port = await freePort();
      await writeFile(
        join(cwd, '.env'),
        ['# operator settings', `PORT=${port} # from the file`, 'export DATA_DIR=./state', 'RATE_LIMIT=5/60s', 'LOG_LEVEL="warn"', ''].join('\n'),
      );
      // The database lives where .env's relative DATA_DIR points, under the working directory.
      const seededHere = await seed(join(cwd, 'state'));
      proc = await spawnService({ cwd, port, portFromEnvFile: true, env: { RATE_LIMIT: '7/30s' } });
      await waitForPing(proc, seededHere.app);
      expect(existsSync(join(cwd, 'state', 'media-portfolio.sqlite3'))).toBe(true);

      const res = await signedFetch(proc.url, seededHere.app, 'GET', '/ping.xml');
      expect(res.status).toBe(200);
      await res.text();
      // RATE_LIMIT from the environment (7/30s), not from .env (5/60s).
      expect(res.headers.get('ratelimit-limit')).toBe('7, 7;w=30');
      expect(Number(res.headers.get('ratelimit-remaining'))).toBeLessThan(7);

      expect(await within(proc.stop('SIGTERM'), 15_000, 'exit after SIGTERM')).toBe(0);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
