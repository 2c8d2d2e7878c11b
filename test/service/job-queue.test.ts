// The job queue's lanes, owners' turns and parallel runners
// (docs/batch-updates.md, "Lanes and turns"): the repository and the worker
// on a real database (SQLite; PostgreSQL too when TEST_DATABASE_URL is set),
// with job handlers of the test's own kinds (the worker's plug-in point, as
// the composition root gives the features' handlers). The HTTP-level contract
// of the job resource's lane and place in line is in test/api/batch-update.test.ts.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { defaultNewcomerRunners, defaultRenditionConcurrency, loadConfig, type JobSettings } from '../../src/config.js';
import type { JobHandler } from '../../src/jobs/handlers.js';
import type { Lane } from '../../src/jobs/lanes.js';
import { JobsRepository } from '../../src/jobs/repository.js';
import { JobWorker } from '../../src/jobs/worker.js';
import type { JobRow } from '../../src/database/schema.js';
import { withCore } from '../support/core.js';

const silent = pino({ level: 'silent' });

function settings(interactive: number, background: number, newcomers = 0): JobSettings {
  return { chunkSize: 10, pollMs: 20, leaseSeconds: 60, chunkPauseMs: 0, maxAttempts: 5, retrySeconds: 0, retentionSeconds: 3600, interactiveConcurrency: interactive, backgroundConcurrency: background, newcomerConcurrency: newcomers };
}

/** Resolves once `check` answers something other than undefined (polled; the test's own timeout bounds it). */
async function until<T>(check: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A gate the test opens: a handler waits on it. */
function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('the default parallelism of renditions', () => {
  it('is one per core, at most 4, and at most what a quarter of the memory holds at 256 MiB a ladder', () => {
    const GiB = 1024 ** 3;
    expect(defaultRenditionConcurrency(2, 24 * GiB)).toBe(2);
    expect(defaultRenditionConcurrency(16, 64 * GiB)).toBe(4);
    expect(defaultRenditionConcurrency(8, 2 * GiB)).toBe(2);
    expect(defaultRenditionConcurrency(8, 512 * 1024 ** 2)).toBe(1);
    expect(defaultRenditionConcurrency(1, 64 * GiB)).toBe(1);
    expect(loadConfig({ RENDITION_CONCURRENCY: '3', JOB_INTERACTIVE_CONCURRENCY: '2' }).jobs).toMatchObject({ backgroundConcurrency: 3, interactiveConcurrency: 2 });
  });

  it('keeps one runner for newcomers when the memory holds one ladder more', () => {
    const GiB = 1024 ** 3;
    expect(defaultNewcomerRunners(2, 24 * GiB)).toBe(1);
    expect(defaultNewcomerRunners(2, 2 * GiB)).toBe(0);
    expect(defaultNewcomerRunners(1, 2 * GiB)).toBe(1);
    expect(defaultNewcomerRunners(1, 1 * GiB)).toBe(0);
    expect(loadConfig({ RENDITION_NEWCOMER_RUNNERS: '0' }).jobs.newcomerConcurrency).toBe(0);
    expect(loadConfig({ RENDITION_NEWCOMER_RUNNERS: '2' }).jobs.newcomerConcurrency).toBe(2);
  });
});

const DATABASES: Array<[string, string | undefined]> = [['sqlite', undefined], ...(process.env.TEST_DATABASE_URL ? [['postgres', process.env.TEST_DATABASE_URL] as [string, string]] : [])];

for (const [kind, postgresUrl] of DATABASES) {
  describe(`[${kind}] the job queue's lanes and turns`, () => {
    const w = withCore({ postgresUrl });
    const repo = () => new JobsRepository(w.core.store);
    const enqueue = (ownerId: number, lane: Lane, kind = `k-${lane}`, total = 1) => repo().enqueue({ ownerId, kind, payload: {}, total, lane });
    /** Unfinished jobs of these owners. */
    const pendingOf = async (...owners: Array<{ id: number }>) =>
      (await w.core.store.db.selectFrom('jobs').select('id').where('owner_id', 'in', owners.map((o) => o.id)).where('state', 'in', ['queued', 'running']).execute()).length;
    /** Claims every job of `lane` there is, one at a time, as one runner would (finishing each): the owners in claim order. */
    async function drain(lane: Lane): Promise<number[]> {
      const order: number[] = [];
      for (;;) {
        const job = await repo().claim('test-runner', 60, lane);
        if (!job) return order;
        order.push(job.owner_id);
        await repo().finish(job.id, 'test-runner');
      }
    }

    it('claims interactive jobs only in the interactive lane, and background jobs only in the background lane', async () => {
      const a = await w.user('lanes');
      for (let i = 0; i < 5; i++) await enqueue(a.id, 'background');
      const batch = await enqueue(a.id, 'interactive');
      // The interactive job is the newest of all, yet the next one its lane's runner takes.
      const first = await repo().claim('runner-i', 60, 'interactive');
      expect(first?.id).toBe(batch.id);
      expect(first?.lane).toBe(0);
      expect(await repo().claim('runner-i2', 60, 'interactive')).toBeUndefined();
      await repo().finish(batch.id, 'runner-i');
      // A background runner never takes an interactive job.
      const late = await enqueue(a.id, 'interactive');
      const taken = await drain('background');
      expect(taken).toHaveLength(5);
      expect((await repo().claim('runner-i', 60, 'interactive'))?.id).toBe(late.id);
      await repo().finish(late.id, 'runner-i');
    });

    it('lets a new owner go next, ahead of another owner\'s long line (place in line 1)', async () => {
      const a = await w.user('bulk');
      const b = await w.user('single');
      const bulk: JobRow[] = [];
      for (let i = 0; i < 100; i++) bulk.push(await enqueue(a.id, 'background'));
      // A worker holds A's first job.
      const running = await repo().claim('runner-b', 60, 'background');
      expect(running?.owner_id).toBe(a.id);
      expect(await repo().placeInLine(running!)).toBeUndefined();
      const last = (await repo().findOwned(a.id, bulk[99]!.uuid))!;
      expect(await repo().placeInLine(last)).toBe(99);
      const mine = await enqueue(b.id, 'background');
      // B waits behind no job of A's: the next free runner takes it.
      expect(await repo().placeInLine(mine)).toBe(1);
      expect(await repo().placeInLine((await repo().findOwned(a.id, bulk[99]!.uuid))!)).toBe(100);
      const next = await repo().claim('runner-b2', 60, 'background');
      expect(next?.id).toBe(mine.id);
      await repo().finish(running!.id, 'runner-b');
      await repo().finish(next!.id, 'runner-b2');
      expect(await drain('background')).toEqual(Array.from({ length: 99 }, () => a.id));
    });

    it('lets the newcomers\' runner take only jobs of owners with none running, at the front of the line', async () => {
      const a = await w.user('held-a');
      const b = await w.user('held-b');
      for (let i = 0; i < 100; i++) await enqueue(a.id, 'background');
      // A has nothing running yet: A is a newcomer too.
      const first = await repo().claim('runner-n', 60, 'background', 'newcomers');
      expect(first?.owner_id).toBe(a.id);
      // Now A has a job running: the newcomers' runner leaves A's 99 others to the other runners.
      expect(await repo().claim('runner-n2', 60, 'background', 'newcomers')).toBeUndefined();
      const mine = await enqueue(b.id, 'background');
      const taken = await repo().claim('runner-n2', 60, 'background', 'newcomers');
      expect(taken?.id).toBe(mine.id);
      const again = await enqueue(b.id, 'background');
      // B's second job waits its turn like A's: B has one running.
      expect(await repo().claim('runner-n3', 60, 'background', 'newcomers')).toBeUndefined();
      // A lapsed lease is not a job running: its owner is a newcomer again, and the job is taken over.
      await w.core.store.db.updateTable('jobs').set({ locked_until: new Date(Date.now() - 1000).toISOString() }).where('id', '=', first!.id).execute();
      const over = await repo().claim('runner-n3', 60, 'background', 'newcomers');
      expect(over?.id).toBe(first!.id);
      await repo().finish(over!.id, 'runner-n3');
      await repo().finish(taken!.id, 'runner-n2');
      const order = await drain('background');
      expect(order).toHaveLength(100);
      expect(order.filter((o) => o === b.id)).toHaveLength(1);
      expect((await repo().findOwned(b.id, again.uuid))?.state).toBe('done');
    });

    it('takes owners in turns, one job each, whoever queued first', async () => {
      const a = await w.user('turns-a');
      const b = await w.user('turns-b');
      const c = await w.user('turns-c');
      for (let i = 0; i < 6; i++) await enqueue(a.id, 'background');
      for (let i = 0; i < 3; i++) await enqueue(b.id, 'background');
      for (let i = 0; i < 2; i++) await enqueue(c.id, 'background');
      expect(await drain('background')).toEqual([a.id, b.id, c.id, a.id, b.id, c.id, a.id, b.id, a.id, a.id, a.id]);
    });

    it('does not let a job waiting out a retry delay hold the lane\'s turn back', async () => {
      const a = await w.user('retry-a');
      const b = await w.user('retry-b');
      for (let i = 0; i < 4; i++) await enqueue(a.id, 'background');
      const failing = (await repo().claim('runner-r', 60, 'background'))!;
      // Given back with a long backoff (a failed chunk): it is not claimable for an hour.
      await repo().release(failing.id, 'runner-r', 3600);
      const second = (await repo().claim('runner-r', 60, 'background'))!;
      await repo().finish(second.id, 'runner-r');
      // B's first job takes the lane's current turn (A's third job's, which was queued first: at most one job
      // before it), not the delayed job's earlier one, which would put both of B's jobs before A's.
      try {
        await enqueue(b.id, 'background');
        await enqueue(b.id, 'background');
        expect(await drain('background')).toEqual([a.id, b.id, a.id, b.id]);
        // The delayed job is still there, to be resumed after its backoff.
        expect((await repo().findOwned(a.id, failing.uuid))?.state).toBe('running');
      } finally {
        await w.core.store.db.deleteFrom('jobs').where('id', '=', failing.id).execute();
      }
    });

    it('counts unfinished jobs per lane for the metrics', async () => {
      const a = await w.user('stats');
      await enqueue(a.id, 'background');
      await enqueue(a.id, 'background');
      await enqueue(a.id, 'interactive');
      const stats = await repo().pendingStats();
      expect(stats.find((s) => s.lane === 'background')?.pending).toBe(2);
      expect(stats.find((s) => s.lane === 'interactive')?.pending).toBe(1);
      expect(stats.every((s) => typeof s.oldestCreatedAt === 'string')).toBe(true);
      await drain('background');
      await drain('interactive');
      expect(await repo().pendingStats()).toEqual([]);
    });

    it('runs an interactive job while every background runner is busy', async () => {
      const a = await w.user('busy');
      const held = gate();
      let backgroundStarted = 0;
      const done: string[] = [];
      const handlers = new Map<string, JobHandler>([
        // Held in its slow step, outside any transaction, as renditions are (decoding, encoding, storing).
        ['slow', { prepare: async () => { backgroundStarted++; await held.wait; }, runChunk: async () => ({ processed: 1, failed: 0, errors: [] }) }],
        ['batch', { runChunk: async (_u, job) => { done.push(job.uuid); return { processed: 1, failed: 0, errors: [] }; } }],
      ]);
      const worker = new JobWorker(repo(), silent, handlers, settings(1, 1));
      for (let i = 0; i < 3; i++) await enqueue(a.id, 'background', 'slow');
      worker.start();
      try {
        await until(async () => (backgroundStarted === 1 ? true : undefined));
        const batch = await enqueue(a.id, 'interactive', 'batch');
        worker.wake();
        // Done while the background runner is still held by its first job.
        await until(async () => ((await repo().findOwned(a.id, batch.uuid))?.state === 'done' ? true : undefined));
        expect(done).toEqual([batch.uuid]);
        expect(backgroundStarted).toBe(1);
      } finally {
        held.open();
        await until(async () => ((await pendingOf(a)) === 0 ? true : undefined));
        await worker.stop();
      }
    });

    it('starts a newcomer\'s job at once while every background runner holds another owner\'s job', async () => {
      const a = await w.user('newcomer-a');
      const b = await w.user('newcomer-b');
      const held = gate();
      const started: number[] = [];
      const handlers = new Map<string, JobHandler>([
        // A's jobs hold their runner in the slow step (as a ladder does) until the test opens the gate; B's do not.
        ['ladder', { prepare: async (job) => { started.push(job.owner_id); if (job.owner_id === a.id) await held.wait; }, runChunk: async () => ({ processed: 1, failed: 0, errors: [] }) }],
      ]);
      const worker = new JobWorker(repo(), silent, handlers, settings(1, 1, 1));
      for (let i = 0; i < 5; i++) await enqueue(a.id, 'background', 'ladder');
      // A's first job is held by a runner elsewhere (another worker process), so that A is not a newcomer
      // when this worker starts: its two runners would otherwise both race for A's first job.
      const elsewhere = await repo().claim('other-worker', 60, 'background');
      expect(elsewhere?.owner_id).toBe(a.id);
      worker.start();
      try {
        await until(async () => (started.length === 1 ? true : undefined));
        // A's second job holds the background runner; the newcomers' runner does not take A's third.
        await new Promise((r) => setTimeout(r, 200));
        expect(started).toEqual([a.id]);
        const mine = await enqueue(b.id, 'background', 'ladder');
        worker.wake();
        await until(async () => ((await repo().findOwned(b.id, mine.uuid))?.state === 'done' ? true : undefined));
        // Done while A's second job still holds the background runner.
        expect(started).toEqual([a.id, b.id]);
      } finally {
        await repo().finish(elsewhere!.id, 'other-worker');
        held.open();
        await until(async () => ((await pendingOf(a, b)) === 0 ? true : undefined));
        await worker.stop();
      }
    });

    it('runs two background jobs at once with parallelism 2, across two workers never the same job twice', async () => {
      const owners = [await w.user('par-a'), await w.user('par-b')];
      const JOBS = 40;
      const runs: number[] = [];
      let inFlight = 0;
      let most = 0;
      // The first two wait for each other (a barrier): with one runner the second never comes, and the
      // barrier gives up after 5 s so that the assertion, not the test's timeout, says so.
      let waiting: Array<() => void> = [];
      const barrier = () =>
        new Promise<void>((resolve) => {
          waiting.push(resolve);
          if (waiting.length >= 2) for (const r of waiting.splice(0)) r();
          else setTimeout(() => resolve(), 5000).unref();
        });
      let barriers = 0;
      const handler: JobHandler<number> = {
        prepare: async (job) => {
          inFlight++;
          most = Math.max(most, inFlight);
          if (barriers++ < 2) await barrier();
          await new Promise((r) => setTimeout(r, 2));
          inFlight--;
          return job.id;
        },
        runChunk: async (_unit, job, _payload, start, end, prepared) => {
          expect(prepared).toBe(job.id);
          runs.push(job.id);
          return { processed: end - start, failed: 0, errors: [] };
        },
      };
      const handlers = new Map<string, JobHandler<any>>([['par', handler]]);
      const jobs: JobRow[] = [];
      for (let i = 0; i < JOBS; i++) jobs.push(await enqueue(owners[i % 2]!.id, 'background', 'par'));
      const one = new JobWorker(repo(), silent, handlers, settings(1, 2));
      const two = new JobWorker(repo(), silent, handlers, settings(1, 2));
      one.start();
      try {
        await until(async () => (runs.length >= 2 ? true : undefined));
        expect(most).toBe(2);
        two.start();
        await until(async () => ((await pendingOf(...owners)) === 0 ? true : undefined));
      } finally {
        waiting = [];
        await Promise.all([one.stop(), two.stop()]);
      }
      expect([...runs].sort((x, y) => x - y)).toEqual(jobs.map((j) => j.id).sort((x, y) => x - y));
      const rows = await w.core.store.db.selectFrom('jobs').select(['state', 'attempts', 'processed', 'locked_by']).where('kind', '=', 'par').execute();
      expect(rows).toHaveLength(JOBS);
      for (const r of rows) expect(r).toEqual({ state: 'done', attempts: 1, processed: 1, locked_by: null });
    });
  });
}
