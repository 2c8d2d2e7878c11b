// A batch job survives a restart of the service and completes exactly once:
// the service is stopped after the first chunks, a new one on the same
// database resumes after the last committed chunk. A lease left behind by a
// crashed worker is honoured until it expires, then the job is taken over.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MediaPortfolioClient } from '../../src/client/index.js';
import { int, text } from '../../src/client/xml.js';
import { loadConfig } from '../../src/config.js';
import { buildApp as createService, type App as Service } from '../../src/app.js';
import type { Db } from '../../src/database/db.js';
import { nowIso, openStore } from '../../src/database/db.js';
import { createPgDatabase, eachDatabase, type TestUser } from '../support/service.js';
import { insertMedias, waitForJob } from '../support/media.js';

const MEDIAS = 3000;

// Small chunks with a pause between them, so that a stop lands in the middle of the job.
async function startOn(env: Record<string, string>): Promise<{ service: Service; url: string }> {
  const config = loadConfig({ PORT: '0', RATE_LIMIT: 'off', LOG_LEVEL: 'warn', JOB_CHUNK_SIZE: '100', JOB_CHUNK_PAUSE_MS: '20', JOB_POLL_MS: '50', ...env });
  const service = await createService(config);
  await service.fastify.listen({ port: 0, host: '127.0.0.1' });
  const addr = service.fastify.server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  config.publicUrl = url;
  return { service, url };
}

async function jobRow(db: Db, uuid: string) {
  return db.selectFrom('jobs').selectAll().where('uuid', '=', uuid).executeTakeFirstOrThrow();
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

eachDatabase((kind) => {
  let dataDir: string;
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>> | undefined;
  let env: Record<string, string>;
  const running: Service[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mps-restart-'));
    pgDb = kind === 'postgres' ? await createPgDatabase() : undefined;
    env = { DATA_DIR: dataDir, ...(pgDb ? { DATABASE_URL: pgDb.url } : {}) };
  });
  afterAll(async () => {
    for (const s of running) await s.close();
    await pgDb?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('resumes a batch job after a restart and applies it exactly once', async () => {
    const first = await startOn(env);
    running.push(first.service);
    const db = first.service.store.db;
    const { core } = first.service;
    const { key, secret } = await core.apps.create('test');
    const password = 'pw-restart';
    const { user, defaultArtistUuid } = await core.users.create({ email: 'restart@example.com', password });
    const testUser: TestUser = { uuid: user.uuid, id: user.id, email: user.email, password, defaultArtistUuid };
    const site = await core.websites.create(user, { urlname: 'restart-site' });
    const clientOf = (url: string) => new MediaPortfolioClient({ baseUrl: url, apiKey: key, apiSecret: secret, login: user.email, password, throttle: false, retry429: false });
    const c1 = clientOf(first.url);
    const gallery = text((await c1.createGallery(site.urlname, { name: 'Restart', parent: site.rootGalleryUuid })).doc, 'gallery/uuid')!;
    await insertMedias(db, testUser, MEDIAS);

    const res = await c1.request('PUT', '/medias/batch_update.xml', { select: 'all', medias_count: MEDIAS, 'medias[add_keywords]': 'restarted', 'medias[publish_to_galleries]': [gallery] }, { multipart: true, methodOverride: true });
    const jobUuid = text(res.doc, 'job-uuid')!;
    const location = text(res.doc, 'location')!;

    // Stop as soon as the first chunk committed.
    await until('the first chunk', async () => ((await jobRow(db, jobUuid)).cursor >= 100 ? true : undefined));
    await first.service.close();
    running.pop();

    // What the stopped service left: a released job, part done, its work matching its cursor.
    const peek = openStore({ dataDir, databaseUrl: env.DATABASE_URL });
    const left = await jobRow(peek.db, jobUuid);
    const appliedSoFar = await peek.db.selectFrom('media_keywords').select('media_id').where('keyword', '=', 'restarted').execute();
    await peek.close();
    expect(left.state).toBe('running');
    expect(left.locked_by).toBeNull();
    expect(left.cursor).toBeGreaterThanOrEqual(100);
    expect(left.cursor).toBeLessThan(MEDIAS);
    expect(left.cursor % 100).toBe(0);
    expect(left.processed).toBe(left.cursor);
    expect(appliedSoFar).toHaveLength(left.cursor);

    const stopped = await startOn(env);
    const stoppedDb = stopped.service.store.db;
    running.push(stopped.service);

    const c2 = clientOf(stopped.url);
    const done = await waitForJob(c2, location);
    expect(text(done.doc, 'job/state')).toBe('done');
    expect(int(done.doc, 'job/total')).toBe(MEDIAS);
    expect(int(done.doc, 'job/processed')).toBe(MEDIAS);
    expect(int(done.doc, 'job/failed')).toBe(0);
    const row = await jobRow(stoppedDb, jobUuid);
    expect(row.attempts).toBe(2);
    expect(row.cursor).toBe(MEDIAS);
    expect(row.locked_by).toBeNull();

    // Each media got the keyword once and one publication; positions 1..n in id order, no gap, no repeat.
    const keywords = await stoppedDb.selectFrom('media_keywords').select('media_id').where('keyword', '=', 'restarted').execute();
    expect(keywords).toHaveLength(MEDIAS);
    expect(new Set(keywords.map((k) => k.media_id)).size).toBe(MEDIAS);
    const gid = (await stoppedDb.selectFrom('galleries').select('id').where('uuid', '=', gallery).executeTakeFirstOrThrow()).id;
    const placed = await stoppedDb.selectFrom('media_galleries').select(['media_id', 'position']).where('gallery_id', '=', gid).orderBy('position').execute();
    expect(placed.map((p) => p.position)).toEqual(Array.from({ length: MEDIAS }, (_, i) => i + 1));
    const ids = placed.map((p) => p.media_id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('leaves a job leased by a crashed worker alone until the lease expires, then resumes it', async () => {
    const svc = running[running.length - 1];
    const db = svc.store.db;
    const user = await db.selectFrom('users').selectAll().where('email', '=', 'restart@example.com').executeTakeFirstOrThrow();
    const artist = await db.selectFrom('artists').select('uuid').where('owner_id', '=', user.id).executeTakeFirstOrThrow();
    const testUser: TestUser = { uuid: user.uuid, id: user.id, email: user.email, password: 'pw-restart', defaultArtistUuid: artist.uuid };
    const fresh = await insertMedias(db, testUser, 250);
    const ids = await db.selectFrom('medias').select('id').where('uuid', 'in', fresh).orderBy('id').execute();
    // A job as a worker that died mid-way leaves it: running, cursor after one chunk, lease still held.
    const now = nowIso();
    const leaseEnds = new Date(Date.now() + 1500).toISOString();
    await db
      .insertInto('jobs')
      .values({
        uuid: '00000000-0000-4000-8000-00000000c0de',
        owner_id: user.id,
        kind: 'media_batch_update',
        state: 'running',
        payload: JSON.stringify({ ids: ids.map((r) => r.id), changes: { columns: { region: 'Resumed' } } }),
        total: ids.length,
        cursor: 100,
        processed: 100,
        attempts: 1,
        locked_by: 'crashed-worker',
        locked_until: leaseEnds,
        created_at: now,
        started_at: now,
        updated_at: now,
      })
      .execute();
    await new Promise((r) => setTimeout(r, 700));
    const held = await jobRow(db, '00000000-0000-4000-8000-00000000c0de');
    expect(held.cursor).toBe(100);
    expect(held.locked_by).toBe('crashed-worker');

    const done = await until('the taken-over job', async () => {
      const r = await jobRow(db, '00000000-0000-4000-8000-00000000c0de');
      return r.state === 'done' ? r : undefined;
    });
    expect(done.processed).toBe(250);
    expect(done.attempts).toBe(2);
    // Only the items after the cursor were processed by the new worker.
    const regions = await db.selectFrom('medias').select(['id', 'region']).where('uuid', 'in', fresh).orderBy('id').execute();
    expect(regions.slice(0, 100).every((r) => r.region === null)).toBe(true);
    expect(regions.slice(100).every((r) => r.region === 'Resumed')).toBe(true);
  });

  it('never gives one job to two services sharing the database', async () => {
    const a = running[running.length - 1];
    const b = await startOn(env);
    running.push(b.service);
    const db = a.store.db;
    const user = await db.selectFrom('users').selectAll().where('email', '=', 'restart@example.com').executeTakeFirstOrThrow();
    const artist = await db.selectFrom('artists').select('uuid').where('owner_id', '=', user.id).executeTakeFirstOrThrow();
    const testUser: TestUser = { uuid: user.uuid, id: user.id, email: user.email, password: 'pw-restart', defaultArtistUuid: artist.uuid };
    const fresh = await insertMedias(db, testUser, 40);
    const ids = (await db.selectFrom('medias').select('id').where('uuid', 'in', fresh).orderBy('id').execute()).map((r) => r.id);
    const now = nowIso();
    const uuids = Array.from({ length: 12 }, (_, i) => `00000000-0000-4000-8000-0000000001${String(i).padStart(2, '0')}`);
    await db
      .insertInto('jobs')
      .values(uuids.map((uuid, i) => ({ uuid, owner_id: user.id, kind: 'media_batch_update', state: 'queued', payload: JSON.stringify({ ids, changes: { columns: {}, addKeywords: [`job-${i}`] } }), total: ids.length, created_at: now, updated_at: now })))
      .execute();
    const rows = await until('all jobs done', async () => {
      const r = await db.selectFrom('jobs').selectAll().where('uuid', 'in', uuids).execute();
      return r.every((j) => j.state === 'done') ? r : undefined;
    });
    for (const j of rows) {
      expect(j.attempts).toBe(1);
      expect(j.processed).toBe(40);
    }
    const applied = await db.selectFrom('media_keywords').select('keyword').where('media_id', 'in', ids).where('keyword', 'like', 'job-%').execute();
    expect(applied).toHaveLength(12 * 40);
  });
});
