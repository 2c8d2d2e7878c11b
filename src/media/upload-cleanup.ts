// Abandoned uploads: a step 1 whose step 3 never came. After
// UPLOAD_EXPIRY_SECONDS the sweep deletes the pending upload, whatever reached
// its location, and the media when it never went live; it also drops
// temporary files that a crash left behind. Safe to run in several processes
// at once: every step is idempotent.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Feature } from '../features.js';
import type { Services } from '../http/context.js';
import { closeUploadServices, uploadServicesOf } from '../storage/registry.js';
import { deleteNeverLiveMedia } from './pending-uploads.js';

export interface SweepResult {
  uploads: number;
  medias: number;
  tempFiles: number;
}

const BATCH = 200;

export async function sweepExpiredUploads(services: Pick<Services, 'config' | 'features' | 'db'>, now = new Date()): Promise<SweepResult> {
  const { db, config } = services;
  const { storage, tmpDir } = uploadServicesOf(services);
  const result: SweepResult = { uploads: 0, medias: 0, tempFiles: 0 };

  for (;;) {
    const expired = await db
      .selectFrom('uploads')
      .select(['id', 'media_id', 'storage_key'])
      .where('expires_at', '<=', now.toISOString())
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const upload of expired) {
      // The object first: if that fails the row stays, and the next sweep tries again.
      await storage.delete([upload.storage_key]);
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('uploads').where('id', '=', upload.id).execute();
        if (await deleteNeverLiveMedia(trx, upload.media_id)) result.medias++;
      });
      result.uploads++;
    }
    if (expired.length < BATCH) break;
  }

  // Medias that stayed pending without any upload (a refused or failed file).
  const cutoff = new Date(now.getTime() - config.uploadExpirySeconds * 1000).toISOString();
  for (;;) {
    const stale = await db
      .selectFrom('medias')
      .select(['id', 'storage_key'])
      .where('status', '=', 'pending')
      .where('created_at', '<=', cutoff)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('uploads').select('uploads.id').whereRef('uploads.media_id', '=', 'medias.id'))))
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const media of stale) {
      if (media.storage_key) await storage.delete([media.storage_key]);
      if (await db.transaction().execute((trx) => deleteNeverLiveMedia(trx, media.id))) result.medias++;
    }
    if (stale.length < BATCH) break;
  }

  result.tempFiles = await removeOldTempFiles(tmpDir, now.getTime() - config.uploadExpirySeconds * 1000);
  return result;
}

async function removeOldTempFiles(dir: string, olderThanMs: number): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith('.part')) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info && info.mtimeMs <= olderThanMs) {
      await rm(path, { force: true });
      removed++;
    }
  }
  return removed;
}

/** Every so often, a fraction of the expiry time: from 1 s to 10 min. */
export function sweepIntervalMs(uploadExpirySeconds: number): number {
  return Math.min(600_000, Math.max(1000, Math.floor((uploadExpirySeconds * 1000) / 4)));
}

interface SweepTimer {
  timer: NodeJS.Timeout;
  running?: Promise<void>;
}

const TIMER_KEY = 'upload-cleanup';

// State lives in services.features: several services may share this process (tests).
export const uploadCleanupFeature: Feature = {
  name: 'upload-cleanup',
  start(services) {
    const state: SweepTimer = {
      timer: setInterval(() => {
        if (state.running) return;
        state.running = sweepExpiredUploads(services)
          .then((r) => {
            if (r.uploads || r.medias || r.tempFiles) services.log.info(r, 'abandoned uploads cleaned up');
          })
          .catch((err: unknown) => services.log.error({ err }, 'upload cleanup failed'))
          .finally(() => {
            state.running = undefined;
          });
      }, sweepIntervalMs(services.config.uploadExpirySeconds)),
    };
    state.timer.unref();
    services.features.set(TIMER_KEY, state);
  },
  async stop(services) {
    const state = services.features.get(TIMER_KEY) as SweepTimer | undefined;
    if (state) {
      clearInterval(state.timer);
      await state.running;
      services.features.delete(TIMER_KEY);
    }
    closeUploadServices(services);
  },
};
