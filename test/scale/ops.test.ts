// Running at scale, in one test process: the ROLE of a process and what it
// refuses, /healthz and /readyz, the metrics (off unless configured, then on
// their own port or behind a token), the sweep lock, and two API nodes and a
// worker on one PostgreSQL + Redis + S3.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaPortfolioClient } from '../../src/client/index.js';
import { text } from '../../src/client/xml.js';
import { loadConfig } from '../../src/config.js';
import { buildApp, type App } from '../../src/app.js';
import { redisExclusive } from '../../src/ops/sweep-lock.js';
import { ScaleOutError } from '../../src/ops/roles.js';
import { StudioBrowser } from '../studio/studio-support.js';
import { insertMedias, waitForJob } from '../support/media.js';
import { basicAuth, createPgDatabase, eachDatabase, PG_URL, REDIS_URL, sessionCookieOf, TEST_REDIS_PREFIX, TestService } from '../support/service.js';
import { pdf, startS3, type LocalS3 } from '../api/uploads-support.js';

describe('roles', () => {
  it('ROLE is all, api or worker', () => {
    expect(loadConfig({ DATA_DIR: '/tmp/x' }).ops.role).toBe('all');
    expect(loadConfig({ DATA_DIR: '/tmp/x', ROLE: 'worker' }).ops.role).toBe('worker');
    expect(() => loadConfig({ DATA_DIR: '/tmp/x', ROLE: 'web' })).toThrow(/ROLE must be all, api or worker/);
  });

  it('refuses ROLE=api or worker on node-local state, naming every missing setting', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mps-role-'));
    try {
      for (const role of ['api', 'worker']) {
        const err = await buildApp(loadConfig({ DATA_DIR: dataDir, ROLE: role, LOG_LEVEL: 'silent' })).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ScaleOutError);
        for (const name of ['DATABASE_URL', 'STORAGE_URL', 'REDIS_URL', 'UPLOAD_SECRET']) expect((err as Error).message).toContain(name);
      }
      const partial = await buildApp(
        loadConfig({ DATA_DIR: dataDir, ROLE: 'api', LOG_LEVEL: 'silent', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/x', STORAGE_URL: 's3://b?endpoint=http://127.0.0.1:1', REDIS_URL: 'redis://127.0.0.1:1' }),
      ).catch((e: unknown) => e);
      expect(partial).toBeInstanceOf(ScaleOutError);
      expect((partial as Error).message).toMatch(/needs: UPLOAD_SECRET/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

eachDatabase((kind) => {
  describe('health', () => {
    let svc: TestService;
    beforeAll(async () => {
      svc = await TestService.start(kind, { RATE_LIMIT: '1/60s' });
    });
    afterAll(async () => svc?.close());

    it('answers /healthz and /readyz unsigned, in plain text, outside the rate limit', async () => {
      for (let i = 0; i < 4; i++) {
        const health = await fetch(`${svc.url}/healthz`);
        expect(health.status).toBe(200);
        expect(health.headers.get('content-type')).toMatch(/^text\/plain/);
        expect(await health.text()).toBe('ok\n');
        const ready = await fetch(`${svc.url}/readyz`);
        expect(ready.status).toBe(200);
        expect(await ready.text()).toBe('ready\n');
      }
    });

    it('is not ready once draining, while it still lives', async () => {
      svc.service.ops.readiness.drain();
      const ready = await fetch(`${svc.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.text()).toMatch(/draining/);
      expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
    });
  });

  it('is not ready when Redis is unreachable, and says so', async () => {
    const svc = await TestService.start(kind, { REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const ready = await fetch(`${svc.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.text()).toBe('not ready: redis\n');
    } finally {
      await svc.close();
    }
  });

  describe('metrics', () => {
    it('are not served unless configured', async () => {
      const svc = await TestService.start(kind);
      try {
        expect(svc.service.ops.metrics).toBeUndefined();
        const res = await fetch(`${svc.url}/metrics`);
        expect(res.status).toBe(404);
        await res.text();
      } finally {
        await svc.close();
      }
    });

    it('at /metrics only with the bearer token', async () => {
      const token = randomBytes(16).toString('hex');
      const svc = await TestService.start(kind, { METRICS_TOKEN: token, RATE_LIMIT: '1/60s' });
      try {
        const app = await svc.app();
        expect((await svc.raw(app, 'GET', '/ping.xml')).status).toBe(200);
        expect((await svc.raw(app, 'GET', '/ping.xml')).status).toBe(429);
        for (const auth of [undefined, 'Bearer wrong', `Basic ${token}`, `Bearer ${token}x`]) {
          const res = await fetch(`${svc.url}/metrics`, { headers: auth ? { authorization: auth } : {} });
          expect(res.status).toBe(401);
          expect(await res.text()).not.toContain('mps_');
        }
        const res = await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
        expect(res.status).toBe(200);
        const body = await res.text();
        expect(body).toMatch(/mps_http_requests_total\{method="GET",route="\/ping\.xml",status="200"\} 1/);
        expect(body).toMatch(/mps_http_requests_total\{method="GET",route="\/ping\.xml",status="429"\} 1/);
        expect(body).toMatch(/mps_http_request_duration_seconds_count\{method="GET",route="\/ping\.xml"\} 2/);
        expect(body).toMatch(/mps_rate_limited_total 1/);
        expect(body).toMatch(/mps_jobs_pending 0/);
        expect(body).toMatch(/mps_jobs_lane_pending\{lane="interactive"\} 0/);
        expect(body).toMatch(/mps_jobs_lane_oldest_age_seconds\{lane="background"\} 0/);
        if (kind === 'postgres') expect(body).toMatch(/mps_db_pool_connections\{state="total"\} \d+/);
      } finally {
        await svc.close();
      }
    });

    it('on METRICS_PORT alone (not on the API port), with job and upload figures', async () => {
      const svc = await TestService.start(kind, { METRICS_PORT: '0', JOB_CHUNK_SIZE: '10' });
      try {
        const addr = svc.service.ops.metricsServer!.address();
        const metricsUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/metrics`;
        const onApi = await fetch(`${svc.url}/metrics`);
        expect(onApi.status).toBe(404);
        await onApi.text();
        const app = await svc.app();
        const user = await svc.user();
        const client = svc.client(app, user);
        await insertMedias(svc.db, user, 25);
        // The job waits while the worker is stopped: the interactive lane's depth shows it, the background lane's does not.
        await svc.service.worker.stop();
        const res = await client.request('PUT', '/medias/batch_update.xml', { select: 'all', medias_count: 25, 'medias[add_keywords]': 'measured' }, { multipart: true, methodOverride: true });
        const waiting = await (await fetch(metricsUrl)).text();
        expect(waiting).toMatch(/mps_jobs_lane_pending\{lane="interactive"\} 1\n/);
        expect(waiting).toMatch(/mps_jobs_lane_pending\{lane="background"\} 0\n/);
        expect(waiting).toMatch(/mps_jobs_lane_oldest_age_seconds\{lane="interactive"\} \d/);
        svc.service.worker.start();
        await waitForJob(client, text(res.doc, 'location')!);
        const direct = await client.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', data: pdf(), fileName: 'a.pdf', contentType: 'application/pdf' } });
        expect(text(direct.doc, 'media/mime-type')).toBe('application/pdf');
        const body = await (await fetch(metricsUrl)).text();
        expect(body).toMatch(/mps_job_chunk_duration_seconds_count\{kind="[a-z_-]+",outcome="done"\} 3/);
        expect(body).toMatch(/mps_http_requests_total\{method="POST",route="\/medias\/batch_update\.xml",status="200"\} 1/);
        expect(body).toMatch(/mps_upload_bytes_total [1-9]/);
        expect((await fetch(metricsUrl.replace('/metrics', '/other'))).status).toBe(404);
      } finally {
        await svc.close();
      }
    });
  });
});

describe('the sweep lock', () => {
  it.runIf(REDIS_URL)('lets one holder run a sweep at a time, and the next once it is done', async () => {
    const a = await redisExclusive(REDIS_URL!, { prefix: TEST_REDIS_PREFIX });
    const b = await redisExclusive(REDIS_URL!, { prefix: TEST_REDIS_PREFIX });
    const name = `test-${randomBytes(4).toString('hex')}`;
    try {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let started!: () => void;
      const running = new Promise<void>((r) => (started = r));
      const first = a.run(name, async () => {
        started();
        await gate;
      });
      await running;
      let ranTwice = false;
      expect(await b.run(name, async () => (ranTwice = true))).toBe(false);
      expect(ranTwice).toBe(false);
      release();
      expect(await first).toBe(true);
      expect(await b.run(name, async () => (ranTwice = true))).toBe(true);
      expect(ranTwice).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

// PostgreSQL + Redis + S3, as several processes would run them (here in one test process).
describe.runIf(PG_URL && REDIS_URL)('scaled out in one process', () => {
  let s3: LocalS3;
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>>;
  const nodes: App[] = [];
  const urls: string[] = [];
  let secret: string;

  async function node(role: string, extra: Record<string, string> = {}): Promise<string> {
    const dataDir = await mkdtemp(join(tmpdir(), `mps-${role}-`));
    const config = loadConfig({
      ROLE: role,
      DATA_DIR: dataDir,
      DATABASE_URL: pgDb.url,
      REDIS_URL: REDIS_URL!,
      UPLOAD_SECRET: secret,
      RATE_LIMIT: 'off',
      LOG_LEVEL: 'warn',
      JOB_POLL_MS: '20',
      ...s3.env,
      ...extra,
    });
    const app = await buildApp(config);
    await app.fastify.listen({ port: 0, host: '127.0.0.1' });
    const addr = app.fastify.server.address();
    const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    config.publicUrl = url;
    nodes.push(app);
    urls.push(url);
    return url;
  }

  beforeAll(async () => {
    s3 = await startS3();
    pgDb = await createPgDatabase();
    secret = randomBytes(24).toString('hex');
  });
  afterAll(async () => {
    for (const n of nodes.reverse()) await n.close();
    await pgDb?.drop();
    await s3?.close();
  });

  it('api nodes enqueue and never run jobs; a worker runs them and serves nothing but health', async () => {
    const api = await node('api');
    const core = nodes[0]!.core;
    const app = await core.apps.create('scale');
    const password = 'scale password';
    const { user, defaultArtistUuid } = await core.users.create({ email: `s-${randomBytes(3).toString('hex')}@example.com`, password });
    const client = new MediaPortfolioClient({ baseUrl: api, apiKey: app.key, apiSecret: app.secret, login: user.email, password, throttle: false, retry429: false });
    await insertMedias(nodes[0]!.core.store.db, { uuid: user.uuid, id: user.id, email: user.email, password, defaultArtistUuid }, 5);
    const res = await client.request('PUT', '/medias/batch_update.xml', { select: 'all', medias_count: 5, 'medias[add_keywords]': 'by-worker' }, { multipart: true, methodOverride: true });
    const jobUuid = text(res.doc, 'job-uuid')!;
    // Many poll intervals of the api node's (unstarted) worker pass: the job stays queued.
    await new Promise((r) => setTimeout(r, 300));
    const queued = await nodes[0]!.core.store.db.selectFrom('jobs').selectAll().where('uuid', '=', jobUuid).executeTakeFirstOrThrow();
    expect(queued.state).toBe('queued');
    expect(queued.attempts).toBe(0);

    const worker = await node('worker');
    const done = await waitForJob(client, text(res.doc, 'location')!);
    expect(text(done.doc, 'job/state')).toBe('done');
    const row = await nodes[0]!.core.store.db.selectFrom('jobs').select('locked_by').where('uuid', '=', jobUuid).executeTakeFirstOrThrow();
    expect(row.locked_by).toBeNull();
    // The worker answers health, not the API.
    expect((await fetch(`${worker}/healthz`)).status).toBe(200);
    expect((await fetch(`${worker}/readyz`)).status).toBe(200);
    const ping = await fetch(`${worker}/ping.xml`);
    expect(ping.status).toBe(404);
    await ping.text();
  });

  it('a logout on one api node is refused at once on another', async () => {
    const a = urls[0]!;
    const b = await node('api');
    const core = nodes[0]!.core;
    const app = await core.apps.create('logout');
    const password = 'logout password';
    const { user } = await core.users.create({ email: `l-${randomBytes(3).toString('hex')}@example.com`, password });
    const signed = (base: string, method: string, path: string, headers: Record<string, string>) => TestService.prototype.raw.call({ url: base }, app, method, path, { headers });
    const login = await signed(a, 'GET', '/ping.xml', { authorization: basicAuth(user.email, password) });
    const cookie = sessionCookieOf(login)!;
    expect(cookie).toBeDefined();
    // Node b reads (and would cache) the session ...
    for (let i = 0; i < 3; i++) {
      const who = await signed(b, 'GET', '/whoami.xml', { cookie });
      expect(who.status).toBe(200);
      await who.text();
    }
    // ... node a ends it ...
    const out = await signed(a, 'GET', '/logout.xml', { cookie });
    expect(out.status).toBe(200);
    // ... and node b refuses it on the very next request.
    const after = await signed(b, 'GET', '/whoami.xml', { cookie });
    expect(after.status).toBe(401);
    await after.text();
  });

  it('api nodes serve the studio, a worker does not; signing out everywhere on one node ends the API session on another', async () => {
    const a = urls[0]!;
    const b = urls[urls.length - 1]!;
    const core = nodes[0]!.core;
    const app = await core.apps.create('studio');
    const password = 'studio password';
    const { user } = await core.users.create({ email: `st-${randomBytes(3).toString('hex')}@example.com`, password });
    const signed = (base: string, method: string, path: string, headers: Record<string, string>) => TestService.prototype.raw.call({ url: base }, app, method, path, { headers });
    const cookie = sessionCookieOf(await signed(b, 'GET', '/ping.xml', { authorization: basicAuth(user.email, password) }))!;
    const worker = await node('worker');
    const none = await fetch(`${worker}/studio/signin`);
    expect(none.status).toBe(404);
    await none.text();
    const studio = await new StudioBrowser({ url: a } as TestService).signIn({ email: user.email, password });
    expect((await studio.get('/studio/websites')).status).toBe(200);
    expect((await studio.submit('/studio/account', '/studio/signout-everywhere', {})).status).toBe(303);
    const after = await signed(b, 'GET', '/whoami.xml', { cookie });
    expect(after.status).toBe(401);
    await after.text();
  });
});
