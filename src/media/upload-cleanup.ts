// The cleanup sweep, once at start and then every so often in each process:
//  - abandoned uploads (a step 1 whose step 3 never came, UPLOAD_EXPIRY_SECONDS
//    later): the pending row, and the media when it never went live, with the
//    file recorded for deletion in the same transaction;
//  - recorded file deletions that are due (src/storage/file-deletions.ts):
//    what a failure or a crash left after the commit that recorded them;
//  - incoming objects no pending upload points to (a replayed presigned POST,
//    a promotion cut by a crash), past a grace period;
//  - temporary files of processes that no longer run, and old ones;
//  - finished jobs older than JOB_RETENTION_SECONDS.
// Safe to run in several processes at once: every step is idempotent. A part
// that fails is logged and the others still run.
import { PeriodicTask } from '../jobs/periodic.js';
import type { Services } from '../http/context.js';
import { drainFileDeletions, recordFileDeletions, removeRecordedFiles } from '../storage/file-deletions.js';
import { INCOMING_PREFIX } from '../storage/object-keys.js';
import { sweepTempFiles } from '../storage/temp-file.js';
import type { Db } from '../store/db.js';

export interface SweepResult {
  uploads: number;
  medias: number;
  tempFiles: number;
  /** Recorded file deletions carried out. */
  fileDeletions: number;
  /** Incoming objects removed that no pending upload pointed to. */
  incoming: number;
  jobs: number;
}

type SweepServices = Pick<Services, 'config' | 'storage' | 'tmpDir' | 'db' | 'log' | 'jobs'>;

const BATCH = 200;

/**
 * An incoming object without a pending upload is left alone this long: what
 * lands after its upload ended (a replay, a step 2 racing its step 3) is
 * garbage, but listings and clocks of object stores are not instantaneous.
 */
export const INCOMING_GRACE_MS = 5 * 60 * 1000;

/** Deletes never-live medias among `ids` (clearing covers that point at them); returns how many went. */
async function deleteNeverLiveMedias(trx: Db, ids: readonly number[]): Promise<number> {
  if (ids.length === 0) return 0;
  const doomed = await trx.selectFrom('medias').select(['id', 'storage_key']).where('id', 'in', ids).where('status', '=', 'pending').execute();
  if (doomed.length === 0) return 0;
  const doomedIds = doomed.map((m) => m.id);
  // Covers reference medias without a foreign key.
  await trx.updateTable('galleries').set({ cover_media_id: null }).where('cover_media_id', 'in', doomedIds).execute();
  await trx.deleteFrom('medias').where('id', 'in', doomedIds).where('status', '=', 'pending').execute();
  await recordFileDeletions(trx, doomed.map((m) => m.storage_key));
  return doomed.length;
}

async function sweepAbandonedUploads(services: SweepServices, now: Date, result: SweepResult): Promise<void> {
  const { db, config } = services;
  for (;;) {
    const expired = await db
      .selectFrom('uploads')
      .select(['id', 'media_id', 'storage_key'])
      .where('expires_at', '<=', now.toISOString())
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (expired.length === 0) break;
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('uploads').where('id', 'in', expired.map((u) => u.id)).execute();
      await recordFileDeletions(trx, expired.map((u) => u.storage_key));
      result.medias += await deleteNeverLiveMedias(trx, expired.map((u) => u.media_id));
    });
    result.uploads += expired.length;
    await removeRecordedFiles(services, expired.map((u) => u.storage_key));
    if (expired.length < BATCH) break;
  }

  // Medias that stayed pending without any upload (a refused or failed file).
  const cutoff = new Date(now.getTime() - config.uploadExpirySeconds * 1000).toISOString();
  for (;;) {
    const stale = await db
      .selectFrom('medias')
      .select('id')
      .where('status', '=', 'pending')
      .where('created_at', '<=', cutoff)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('uploads').select('uploads.id').whereRef('uploads.media_id', '=', 'medias.id'))))
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (stale.length === 0) break;
    result.medias += await db.transaction().execute((trx) => deleteNeverLiveMedias(trx, stale.map((m) => m.id)));
    if (stale.length < BATCH) break;
  }
}

/** Incoming objects older than the grace period that no pending upload points to. */
async function sweepIncoming(services: SweepServices, now: Date): Promise<number> {
  const { storage } = services;
  const before = now.getTime() - INCOMING_GRACE_MS;
  let removed = 0;
  for await (const page of storage.list(INCOMING_PREFIX)) {
    const old = page.filter((o) => o.modifiedAt.getTime() <= before).map((o) => o.key);
    for (let i = 0; i < old.length; i += BATCH) {
      const keys = old.slice(i, i + BATCH);
      const pending = await services.db.selectFrom('uploads').select('storage_key').where('storage_key', 'in', keys).execute();
      const waitedFor = new Set(pending.map((p) => p.storage_key));
      const orphans = keys.filter((k) => !waitedFor.has(k));
      await storage.delete(orphans);
      removed += orphans.length;
    }
  }
  return removed;
}

export async function sweepExpiredUploads(services: SweepServices, now = new Date()): Promise<SweepResult> {
  const { config, log } = services;
  const { tmpDir } = services;
  const result: SweepResult = { uploads: 0, medias: 0, tempFiles: 0, fileDeletions: 0, incoming: 0, jobs: 0 };
  const part = async (name: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      log.error({ err, part: name }, 'cleanup sweep: a part failed; the next sweep tries again');
    }
  };
  await part('abandoned uploads', () => sweepAbandonedUploads(services, now, result));
  await part('file deletions', async () => {
    result.fileDeletions = await drainFileDeletions(services, now);
  });
  await part('incoming objects', async () => {
    result.incoming = await sweepIncoming(services, now);
  });
  await part('temporary files', async () => {
    result.tempFiles = await sweepTempFiles(tmpDir, now.getTime() - config.uploadExpirySeconds * 1000);
  });
  await part('finished jobs', async () => {
    result.jobs = await services.jobs.purgeFinished(new Date(now.getTime() - config.jobs.retentionSeconds * 1000));
  });
  return result;
}

/** Every so often, a fraction of the expiry time: from 1 s to 10 min. */
export function sweepIntervalMs(uploadExpirySeconds: number): number {
  return Math.min(600_000, Math.max(1000, Math.floor((uploadExpirySeconds * 1000) / 4)));
}

/**
 * The cleanup sweep of this process, once at start and then every
 * sweepIntervalMs. Temporary files of a crashed process are removed before
 * this one serves: nothing half-received outlives a restart.
 */
export async function startCleanupSweep(services: SweepServices): Promise<PeriodicTask> {
  await sweepTempFiles(services.tmpDir, Date.now() - services.config.uploadExpirySeconds * 1000).catch((err: unknown) =>
    services.log.error({ err }, 'start-up sweep of temporary files failed'),
  );
  const task = new PeriodicTask('cleanup sweep', sweepIntervalMs(services.config.uploadExpirySeconds), async () => {
    const r = await sweepExpiredUploads(services);
    if (Object.values(r).some((n) => n > 0)) services.log.info(r, 'cleanup sweep removed leftovers');
  }, services.log);
  task.start({ now: true });
  return task;
}
