// The whole at scale, as operators run it: two API nodes and a worker, real
// processes, on PostgreSQL + Redis + a local S3 server, behind nginx (started
// here with the configuration of docs/deploy.md, read from that page). nginx is required in CI
// (.ci/run installs it); elsewhere its absence is reported, loudly.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaPortfolioClient } from '../../src/client/index.js';
import { find, int, text } from '../../src/client/xml.js';
import { buildCore, type Core } from '../../src/app.js';
import { insertMedias } from '../support/media.js';
import { PASSWORD_LIMITS } from '../../src/site/limits/throttle.js';
import { findNginx, startNginx, type Nginx } from '../support/nginx.js';
import { signedFetch, spawnService, type AppKeys, type ServiceProcess } from '../support/processes.js';
import { basicAuth, createPgDatabase, PG_URL, REDIS_URL, type TestUser } from '../support/service.js';
import { jpegWithExif, postUpload, startS3, uploadParamsOf, type LocalS3 } from '../api/uploads-support.js';

const NGINX = findNginx();
if (!NGINX) {
  if (process.env.CI) throw new Error('the multi-node test needs nginx in CI: apt-get install nginx (.ci/run does)');
  process.stderr.write('[multi-node] nginx not installed: the multi-node suite is SKIPPED (CI fails instead)\n');
}
const RATE_POINTS = 30;
const CHUNK = 20;

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function ready(proc: ServiceProcess): Promise<ServiceProcess> {
  let exited = false;
  void proc.exited.then(() => (exited = true));
  await until(`${proc.url}/readyz`, async () => {
    if (exited) throw new Error(`process exited at start:\n${proc.output()}`);
    const res = await fetch(`${proc.url}/readyz`);
    await res.text();
    return res.status === 200 ? true : undefined;
  }, 60_000).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}\n${proc.output()}`);
  });
  return proc;
}

/** A loopback address of its own (127.a.b.c), which nginx sees as the client's: fresh for each run, as throttle counts live in Redis for 15 minutes. */
const freshLoopback = () => `127.${randomBytes(2).join('.')}.${1 + (randomBytes(1)[0]! % 254)}`;

/** A form POST sent from `localAddress`; the status. */
function postFormFrom(localAddress: string, url: string, form: Record<string, string>, headers: Record<string, string>): Promise<number> {
  const body = new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', localAddress, headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe.runIf(PG_URL && REDIS_URL && NGINX)('two API nodes and workers behind nginx', () => {
  let s3: LocalS3;
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>>;
  let core: Core;
  let seedDir: string;
  let env: Record<string, string>;
  let api1: ServiceProcess;
  let api2: ServiceProcess;
  const workers: ServiceProcess[] = [];
  let lb: Nginx;
  let app: AppKeys;
  const dataDirs: string[] = [];

  /** A process of `role` with the shared settings and a DATA_DIR of its own (nothing shared on disk). */
  async function start(role: 'api' | 'worker'): Promise<ServiceProcess> {
    const dataDir = await mkdtemp(join(tmpdir(), `mps-node-${role}-`));
    dataDirs.push(dataDir);
    return ready(await spawnService({ env: { ...env, ROLE: role, DATA_DIR: dataDir } }));
  }

  async function newUser(): Promise<TestUser> {
    const password = `pw-${randomBytes(6).toString('hex')}`;
    const { user, defaultArtistUuid } = await core.users.create({ email: `n-${randomBytes(4).toString('hex')}@example.com`, password });
    return { uuid: user.uuid, id: user.id, email: user.email, password, defaultArtistUuid };
  }

  const clientOf = (baseUrl: string, user: TestUser, keys = app) =>
    new MediaPortfolioClient({ baseUrl, apiKey: keys.key, apiSecret: keys.secret, login: user.email, password: user.password, throttle: false, retry429: false });

  const jobRow = (uuid: string) => core.store.db.selectFrom('jobs').selectAll().where('uuid', '=', uuid).executeTakeFirstOrThrow();

  beforeAll(async () => {
    s3 = await startS3();
    pgDb = await createPgDatabase();
    seedDir = await mkdtemp(join(tmpdir(), 'mps-seed-'));
    core = await buildCore({ dataDir: seedDir, databaseUrl: pgDb.url });
    app = await core.apps.create('multi-node');
    env = {
      DATABASE_URL: pgDb.url,
      REDIS_URL: REDIS_URL!,
      UPLOAD_SECRET: randomBytes(32).toString('hex'),
      RATE_LIMIT: `${RATE_POINTS}/60s`,
      LOG_LEVEL: 'warn',
      TRUST_PROXY: '1',
      SHUTDOWN_TIMEOUT_SECONDS: '10',
      // Small chunks with a pause, so a worker is stopped mid-job; a short lease, so a dead worker's job is taken over soon.
      JOB_CHUNK_SIZE: String(CHUNK),
      JOB_CHUNK_PAUSE_MS: '100',
      JOB_POLL_MS: '100',
      JOB_LEASE_SECONDS: '3',
      ...s3.env,
    };
    [api1, api2] = await Promise.all([start('api'), start('api')]);
    workers.push(await start('worker'));
    lb = await startNginx(NGINX!, [api1.port, api2.port]);
  }, 180_000);

  afterAll(async () => {
    await lb?.stop();
    for (const p of [api1, api2, ...workers]) await p?.stop('SIGKILL');
    await core?.close();
    await pgDb?.drop();
    await s3?.close();
    for (const d of [seedDir, ...dataDirs]) if (d) await rm(d, { recursive: true, force: true });
  });

  it('serves health on every node and the API through nginx; the worker serves no API', async () => {
    for (const p of [api1, api2, workers[0]!]) expect((await fetch(`${p.url}/healthz`)).status).toBe(200);
    const ping = await signedFetch(lb.url, app, 'GET', '/ping.xml');
    expect(ping.status).toBe(200);
    await ping.text();
    const onWorker = await signedFetch(workers[0]!.url, app, 'GET', '/ping.xml');
    expect(onWorker.status).toBe(404);
    await onWorker.text();
  });

  it('a session started on node 1 continues on node 2 with the same cookie', async () => {
    const user = await newUser();
    const login = await signedFetch(api1.url, app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, user.password) } });
    expect(login.status).toBe(200);
    await login.text();
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const who = await signedFetch(api2.url, app, 'GET', '/whoami.xml', { headers: { cookie } });
    expect(who.status).toBe(200);
    expect(await who.text()).toContain(user.uuid);
  });

  it('a logout on one node is refused at once on the other', async () => {
    const user = await newUser();
    const login = await signedFetch(api1.url, app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, user.password) } });
    await login.text();
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    for (let i = 0; i < 3; i++) {
      const r = await signedFetch(api2.url, app, 'GET', '/whoami.xml', { headers: { cookie } });
      expect(r.status).toBe(200);
      await r.text();
    }
    const out = await signedFetch(api1.url, app, 'GET', '/logout.xml', { headers: { cookie } });
    expect(out.status).toBe(200);
    await out.text();
    const after = await signedFetch(api2.url, app, 'GET', '/whoami.xml', { headers: { cookie } });
    expect(after.status).toBe(401);
    await after.text();
  });

  it('an upload begun on node 1, sent to S3, is completed on node 2', async () => {
    const user = await newUser();
    const jpeg = await jpegWithExif();
    const c1 = clientOf(api1.url, user);
    const c2 = clientOf(api2.url, user);
    const r1 = await c1.request('POST', '/medias.xml', { 'media[content][upload_location]': 'REQUEST', 'media[content][file_name]': 'IMG.jpg', 'media[content][file_size]': jpeg.length, 'media[content][mime_type]': 'image/jpeg' });
    const media = find(r1.doc, 'media')!;
    expect(text(media, 'upload-location')).toBe('s3');
    const r2 = await postUpload(text(media, 'upload-url')!, uploadParamsOf(media), { field: text(media, 'upload-file-param')!, data: jpeg, name: 'IMG.jpg', type: 'image/jpeg' });
    expect(r2.status).toBeLessThan(300);
    const r3 = await c2.completeUpload(media, jpeg.length);
    expect(text(r3.doc, 'media/mime-type')).toBe('image/jpeg');
    expect(text(r3.doc, 'media/file-size')).toBe(String(jpeg.length));
  });

  it('the rate limit is one budget across the nodes', async () => {
    const user = await newUser();
    const keys = await core.apps.create('rate');
    const nodes = [api1.url, api2.url];
    const cookie = await (async () => {
      const r = await signedFetch(api1.url, keys, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, user.password) } });
      await r.text();
      return r.headers.get('set-cookie')!.split(';')[0]!;
    })();
    // Each request, on either node, spends one point of the same budget.
    let remaining = RATE_POINTS;
    for (let i = 0; remaining > 0; i++) {
      const r = await signedFetch(nodes[i % 2]!, keys, 'GET', '/whoami.xml', { headers: { cookie } });
      expect(r.status, `request ${i + 1}`).toBe(200);
      await r.text();
      const left = Number(r.headers.get('ratelimit-remaining'));
      expect(left).toBeLessThan(remaining);
      remaining = left;
    }
    for (const node of nodes) {
      const r = await signedFetch(node, keys, 'GET', '/whoami.xml', { headers: { cookie } });
      expect(r.status).toBe(429);
      await r.text();
    }
  });

  it('login throttling is one count across the nodes', async () => {
    const user = await newUser();
    const keys = await core.apps.create('throttle');
    // An address of its own (TRUST_PROXY=1): the address's failure count lives in Redis for 15 minutes,
    // and must not throttle the logins of the next run from 127.0.0.1.
    const address = `10.${randomBytes(3).join('.')}`;
    const wrong = { authorization: basicAuth(user.email, 'not the password'), 'x-forwarded-for': address };
    // Ten wrong passwords, alternating the nodes, are each checked ...
    for (let i = 0; i < 10; i++) {
      const r = await signedFetch([api1.url, api2.url][i % 2]!, keys, 'GET', '/whoami.xml', { headers: wrong });
      expect(r.status, `attempt ${i + 1}`).toBe(401);
      await r.text();
    }
    // ... then the account is throttled on both.
    for (const node of [api1.url, api2.url]) {
      const r = await signedFetch(node, keys, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, user.password), 'x-forwarded-for': address } });
      expect(r.status).toBe(429);
      await r.text();
    }
  });

  it('a batch update enqueued on an API node is done by the worker; a worker stopped mid-job gives it back and another finishes it', async () => {
    const user = await newUser();
    const MEDIAS = 200;
    await insertMedias(core.store.db, user, MEDIAS);
    const c = clientOf(lb.url, user);
    const res = await c.request('PUT', '/medias/batch_update.xml', { select: 'all', medias_count: MEDIAS, 'medias[add_keywords]': 'scaled' }, { multipart: true, methodOverride: true });
    const jobUuid = text(res.doc, 'job-uuid')!;
    await until('two committed chunks', async () => ((await jobRow(jobUuid)).cursor >= 2 * CHUNK ? true : undefined));

    // SIGTERM: the chunk in progress commits, the job is given back at once (no lease left), exit 0.
    const first = workers[0]!;
    expect(await first.stop('SIGTERM')).toBe(0);
    const given = await jobRow(jobUuid);
    expect(given.state).toBe('running');
    expect(given.locked_by).toBeNull();
    expect(given.locked_until).toBeNull();
    expect(given.cursor % CHUNK).toBe(0);

    workers.push(await start('worker'));
    const done = await until('the job done', async () => {
      const r = await c.request('GET', text(res.doc, 'location')!);
      return text(r.doc, 'job/state') === 'done' ? r : undefined;
    });
    expect(int(done.doc, 'job/processed')).toBe(MEDIAS);
    const keyworded = await core.store.db.selectFrom('media_keywords').select('media_id').where('keyword', '=', 'scaled').execute();
    expect(keyworded).toHaveLength(MEDIAS);
  }, 120_000);

  it('a worker killed mid-job: a second worker takes the job over after its lease and applies it exactly once', async () => {
    const user = await newUser();
    const MEDIAS = 200;
    await insertMedias(core.store.db, user, MEDIAS);
    const c = clientOf(lb.url, user);
    const res = await c.request('PUT', '/medias/batch_update.xml', { select: 'all', medias_count: MEDIAS, 'medias[add_keywords]': 'killed' }, { multipart: true, methodOverride: true });
    const jobUuid = text(res.doc, 'job-uuid')!;
    await until('two committed chunks', async () => ((await jobRow(jobUuid)).cursor >= 2 * CHUNK ? true : undefined));
    await workers.at(-1)!.stop('SIGKILL');
    const left = await jobRow(jobUuid);
    expect(left.locked_by).not.toBeNull();
    expect(left.cursor).toBeLessThan(MEDIAS);

    workers.push(await start('worker'));
    await until('the job done', async () => ((await jobRow(jobUuid)).state === 'done' ? true : undefined));
    const row = await jobRow(jobUuid);
    expect(row.processed).toBe(MEDIAS);
    expect(row.attempts).toBe(2);
    const keyworded = await core.store.db.selectFrom('media_keywords').select('media_id').where('keyword', '=', 'killed').execute();
    expect(keyworded).toHaveLength(MEDIAS);
    expect(new Set(keyworded.map((k) => k.media_id)).size).toBe(MEDIAS);
  }, 120_000);

  it("a visitor's password cookie from node 1 opens the gallery on node 2", async () => {
    const user = await newUser();
    const urlname = `vp-${randomBytes(4).toString('hex')}`;
    const site = await core.websites.create(user, { urlname });
    const created = await clientOf(api1.url, user).request('POST', `/websites/${urlname}/galleries.xml`, {
      'gallery[name]': 'Locked',
      'gallery[parent]': site.rootGalleryUuid,
      'gallery[password]': 'open sesame',
    });
    const gallery = /<gallery-uuid>([^<]+)<\/gallery-uuid>/.exec(created.body)![1]!;
    const home = `/sites/${urlname}`;
    const page = `${home}/-/locked`;
    // Without the cookie, both nodes show the form.
    for (const node of [api1, api2]) {
      const r = await fetch(`${node.url}${page}`);
      expect(r.status).toBe(403);
      await r.text();
    }
    const form = new URLSearchParams({ gallery, password: 'open sesame', back: page });
    const given = await fetch(`${api1.url}${home}/_password`, { method: 'POST', body: form, redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(given.status).toBe(303);
    await given.text();
    const cookie = given.headers.get('set-cookie')!.split(';')[0]!;
    const onNode2 = await fetch(`${api2.url}${page}`, { headers: { cookie } });
    expect(onNode2.status).toBe(200);
    expect(await onNode2.text()).toContain('Locked');
  });

  it("behind nginx, the client's own X-Forwarded-For hops do not choose its address: rotating one still reaches 429", async () => {
    const user = await newUser();
    const urlname = `xff-${randomBytes(4).toString('hex')}`;
    const site = await core.websites.create(user, { urlname });
    const created = await clientOf(api1.url, user).request('POST', `/websites/${urlname}/galleries.xml`, {
      'gallery[name]': 'Locked',
      'gallery[parent]': site.rootGalleryUuid,
      'gallery[password]': 'open sesame',
    });
    const gallery = /<gallery-uuid>([^<]+)<\/gallery-uuid>/.exec(created.body)![1]!;
    const form = `${lb.url}/sites/${urlname}/_password`;
    const guess = (i: number) => ({ gallery, password: `guess ${i}`, back: `/sites/${urlname}/` });
    const client = freshLoopback();
    const statuses: number[] = [];
    // Wrong passwords, each with another address written by the client, through nginx to both nodes.
    for (let i = 0; i <= PASSWORD_LIMITS.perGallery.points; i++) statuses.push(await postFormFrom(client, form, guess(i), { 'x-forwarded-for': `10.1.${i}.7` }));
    expect(statuses).toEqual([...Array<number>(PASSWORD_LIMITS.perGallery.points).fill(403), 429]);
    // Counted on the client's real address, not on everyone: another client still gets its guesses.
    expect(await postFormFrom(freshLoopback(), form, guess(99), { 'x-forwarded-for': `10.1.0.7` })).toBe(403);
  });

  // Last: node 1 does not come back.
  it('SIGTERM to node 1 under load: no acknowledged write lost, no request nginx could retry failed', async () => {
    // Several users, each within its rate budget.
    const users = await Promise.all(Array.from({ length: 6 }, () => newUser()));
    const sites = await Promise.all(users.map((u) => core.websites.create(u, { urlname: `lb-${randomBytes(4).toString('hex')}` })));
    const acknowledged: Array<{ user: number; name: string; uuid: string }> = [];
    const refusedWrites: string[] = [];
    const failedReads: string[] = [];
    let answered = 0;
    let stopSent: Promise<number | null> | undefined;
    const PER_USER = RATE_POINTS - 4;

    await Promise.all(
      users.map(async (user, u) => {
        const c = clientOf(lb.url, user);
        for (let i = 0; i < PER_USER; i++) {
          if (i % 2 === 0) {
            const name = `load ${u}-${i}`;
            try {
              const r = await c.createGallery(sites[u]!.urlname, { name, parent: sites[u]!.rootGalleryUuid });
              acknowledged.push({ user: u, name, uuid: text(r.doc, 'gallery/uuid')! });
            } catch (err) {
              // nginx does not resend a POST that reached a node: such a write is refused, never acknowledged.
              refusedWrites.push(`${name}: ${(err as { status?: number }).status ?? 'no status'} ${(err as Error).message}`);
            }
          } else {
            try {
              await c.whoami();
            } catch (err) {
              failedReads.push((err as Error).message);
            }
          }
          if (++answered === 20) stopSent = api1.stop('SIGTERM', 20_000);
        }
      }),
    );
    expect(stopSent).toBeDefined();
    expect(await stopSent).toBe(0);
    expect(failedReads).toEqual([]);
    // Every acknowledged write is there; every refused one is not.
    const rows = await core.store.db.selectFrom('galleries').select(['uuid', 'name']).where('name', 'like', 'load %').execute();
    const stored = new Map(rows.map((r) => [r.name, r.uuid]));
    for (const a of acknowledged) expect(stored.get(a.name), a.name).toBe(a.uuid);
    for (const line of refusedWrites) {
      // 503: the node was already draining when the request came on a connection it had accepted; 502: reset before an answer.
      expect(line).toMatch(/^[^:]+: 50[23] /);
      expect(stored.has(line.slice(0, line.indexOf(':'))), line).toBe(false);
    }
    expect(acknowledged.length + refusedWrites.length).toBe(users.length * (PER_USER / 2));
    // nginx now sends everything to node 2.
    const after = await signedFetch(lb.url, app, 'GET', '/ping.xml');
    expect(after.status).toBe(200);
    await after.text();
  }, 120_000);
});

