// The one owner of a media file's life (docs/architecture.md, "A file's life"): publication, a media
// born live (the studio's resumable uploads), abandonment, deletion (for galleries and groups too)
// and the sweep of abandoned uploads, each one unit of work over the repositories a file's life
// touches. What must survive a crash is written in the transaction (file_deletions, a jobs row: an
// outbox); the after-commit hook only does it sooner, and never runs after a rollback.
import type { WebhookEmitter } from '../webhooks/events.js';
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.js';
import { ApiError } from '../core/errors.js';
import type { JobsRepository } from '../jobs/repository.js';
import type { JobQueue } from '../jobs/service.js';
import { RENDITIONS_JOB_KIND, type RenditionsPayload } from '../renditions/job.js';
import type { RenditionsRepository } from '../renditions/repository.js';
import type { DeletionsRepository } from '../file-storage/deletions-repository.js';
import type { FileDeletions } from '../file-storage/file-deletions.js';
import { nowIso, type Db } from '../database/db.js';
import type { MediaRow } from '../database/schema.js';
import { AfterCommitFailed, inUnit, type Unit } from '../database/unit-of-work.js';
import type { UploadsRepository } from '../uploads/repository.js';
import type { LiveFile, MediaRepository } from './repository.js';

/** Ids per statement of a deletion: far below every database's variable limit. */
export const DELETE_IDS = 500;
/** Expired uploads and stale medias per transaction of the sweep. */
const SWEEP_BATCH = 200;

/**
 * published: the media is live with the file. already-completed: a concurrent
 * step 3 won, or the media went; the file is recorded for deletion.
 * too-late: the file's unpublished record was swept (it may be gone).
 */
export type PublishOutcome = 'published' | 'already-completed' | 'too-late';

export interface FileLifeRepositories {
  medias: MediaRepository;
  uploads: UploadsRepository;
  renditions: RenditionsRepository;
  jobs: JobsRepository;
  deletions: DeletionsRepository;
}

export class FileLife {
  constructor(
    private readonly db: Db,
    private readonly repos: FileLifeRepositories,
    private readonly files: FileDeletions,
    private readonly jobs: Pick<JobQueue, 'wakeWorker'>,
    private readonly config: Pick<Config, 'uploadExpirySeconds'>,
    /** upload.completed and media.deleted, written in the unit of the change (docs/integrations.md "Webhooks"). */
    private readonly events?: WebhookEmitter,
  ) {}

  /**
   * The last move of every upload: in one unit the media becomes live with
   * its verified file (already at its final key), the pending upload it came
   * from ends, its renditions are queued afresh, and every file the media no
   * longer points to is recorded for deletion, then removed after the commit.
   * `pendingUploadId`: the step-1 row this file answers (step 3). It must still
   * exist, or a concurrent step 3 won the race and this one changes nothing.
   * Without it (direct upload) any pending upload of the media is cancelled.
   * On a failure the file, which nothing points to, is removed.
   */
  async publish(mediaId: number, file: LiveFile, pendingUploadId?: number): Promise<PublishOutcome> {
    let outcome: PublishOutcome;
    try {
      outcome = await inUnit(this.db, (unit) => this.publishIn(unit, mediaId, file, pendingUploadId));
    } catch (err) {
      // Rolled back: nothing points to the file. (After a commit, the media may.)
      if (!(err instanceof AfterCommitFailed)) await this.files.remove([file.storageKey]);
      throw err;
    }
    // Its record for deletion was swept: removed now, whatever the sweep did.
    if (outcome === 'too-late') await this.files.remove([file.storageKey]);
    return outcome;
  }

  private async publishIn(unit: Unit, mediaId: number, file: LiveFile, pendingUploadId?: number): Promise<PublishOutcome> {
    const { deletions, uploads, medias, renditions, jobs } = this.repos;
    const tx = unit.db;
    // Only a sweep a day later takes that record: the file may be gone with it.
    if (!(await deletions.takeOff(tx, file.storageKey))) return 'too-late';
    const orphaned: string[] = [];
    // Every file the media no longer points to: recorded in the unit, removed after its commit.
    const dropOrphaned = async (): Promise<void> => {
      await deletions.record(tx, orphaned);
      // A file left behind here is garbage, not a failure of the upload.
      unit.afterCommit(() => this.files.remove(orphaned));
    };
    if (pendingUploadId !== undefined) {
      if (!(await uploads.end(tx, pendingUploadId))) {
        orphaned.push(file.storageKey);
        await dropOrphaned();
        return 'already-completed';
      }
    } else {
      orphaned.push(...(await uploads.endOfMedias(tx, [mediaId])));
    }
    const previous = await medias.goLive(tx, mediaId, file);
    if (!previous) {
      orphaned.push(file.storageKey);
      await dropOrphaned();
      return 'already-completed';
    }
    if (previous.storageKey && previous.storageKey !== file.storageKey) orphaned.push(previous.storageKey);
    // New renditions are queued with the file (a job row: the outbox); the old ones go with the old file.
    orphaned.push(...(await renditions.reset(tx, mediaId)));
    const payload: RenditionsPayload = { mediaId, storageKey: file.storageKey };
    await jobs.enqueue({ ownerId: previous.ownerId, kind: RENDITIONS_JOB_KIND, payload, total: 1, lane: 'background' }, tx);
    await dropOrphaned();
    await this.events?.emitIn(unit, 'upload.completed', { medias: [mediaId] });
    // A media's first file: the galleries it was published in show it from now on.
    if (!previous.wasLive && this.events) await this.galleriesChanged(unit, await medias.galleriesShowing(tx, [mediaId]));
    unit.afterCommit(() => this.jobs.wakeWorker());
    return 'published';
  }

  /**
   * A media born with a file another upload path received whole (the studio's resumable
   * uploads): the media is made in `artistId`'s library and published into `galleries`, `take`
   * verifies the file and stores it under the media (the uploads feature), and the media goes
   * live with it as in publish. A refused file leaves no media. Returns the media's UUID.
   */
  async createLive(ownerId: number, media: { artistId: number; fileName: string; galleries: readonly number[] }, take: (media: MediaRow) => Promise<LiveFile>): Promise<string> {
    const { medias } = this.repos;
    const publish = media.galleries.length > 0 ? [...media.galleries] : undefined;
    const row = await medias.create({ ownerId, artistId: media.artistId, uuid: randomUUID(), fileName: media.fileName }, { columns: { artist_id: media.artistId }, publish }, nowIso());
    try {
      const outcome = await this.publish(row.id, await take(row));
      if (outcome === 'too-late') throw new ApiError('unprocessable', 'the upload took too long to complete: send the file again', { stopWithError: false });
    } catch (err) {
      // Refused: the media must not exist (its relations go with it). Should this fail, the sweep takes it (never live).
      await medias.remove(row.id).catch(() => undefined);
      throw err;
    }
    return row.uuid;
  }

  /**
   * An upload whose file was refused for good: the pending row ends, its
   * incoming file is recorded for deletion (and removed after the commit),
   * and a media that never had a file goes.
   */
  abandonUpload(mediaId: number, pendingUploadId: number, incomingKey: string): Promise<void> {
    return inUnit(this.db, async (unit) => {
      const { uploads, medias, deletions } = this.repos;
      await uploads.end(unit.db, pendingUploadId);
      const gone = await medias.deleteNeverLive(unit.db, [mediaId]);
      await deletions.record(unit.db, [...gone.keys, incomingKey]);
      unit.afterCommit(() => this.files.remove([incomingKey]));
    });
  }

  /** Deletes medias of `ownerId` among `ids` in a unit of their own (see deleteIn); returns how many went. */
  delete(ownerId: number, ids: readonly number[]): Promise<number> {
    return inUnit(this.db, (unit) => this.deleteIn(unit, ownerId, ids));
  }

  /**
   * Deletes medias of `ownerId` among `ids` in `unit` (another feature may be
   * deleting what holds them in the same unit): their rows and relations,
   * their pending uploads (step 2 is refused from then on); every file of
   * theirs (original, renditions, incoming file) is recorded for deletion in
   * the unit and removed after its commit. Each gallery that showed one of them tells gallery.updated,
   * but those in `goneGalleries` (deleted in the same unit, with their medias). Returns how many went.
   */
  async deleteIn(unit: Unit, ownerId: number, ids: readonly number[], goneGalleries: readonly number[] = []): Promise<number> {
    const showing = new Set<number>();
    const { medias, renditions, uploads, deletions } = this.repos;
    const keys: Array<string | null> = [];
    let deleted = 0;
    // Every media locked (lowest id first) before the first chunk writes its owner's stamp: the
    // lock order of src/database/page-stamp-lock-order.ts. Locking each chunk after the one before had taken the
    // stamp met an update holding a later chunk's media and waiting for that stamp (a deadlock).
    const sorted = [...new Set(ids)].sort((a, b) => a - b);
    const chunks: Array<Array<{ id: number; storage_key: string | null }>> = [];
    for (let i = 0; i < sorted.length; i += DELETE_IDS) chunks.push(await medias.lockOwned(unit.db, ownerId, sorted.slice(i, i + DELETE_IDS)));
    for (const present of chunks) {
      if (present.length === 0) continue;
      const presentIds = present.map((m) => m.id);
      // Read before the rows cascade away with the medias.
      keys.push(...present.map((m) => m.storage_key), ...(await renditions.keysOf(unit.db, presentIds)));
      await this.events?.emitIn(unit, 'media.deleted', { medias: presentIds });
      if (this.events) for (const g of await medias.galleriesShowing(unit.db, presentIds)) showing.add(g);
      await medias.deleteRows(unit.db, presentIds);
      keys.push(...(await uploads.endOfMedias(unit.db, presentIds)));
      deleted += presentIds.length;
    }
    for (const g of goneGalleries) showing.delete(g);
    await this.galleriesChanged(unit, [...showing]);
    await deletions.record(unit.db, keys);
    // Recorded with the rows: a crash after the commit leaves the files to the cleanup sweep, not orphaned.
    unit.afterCommit(() => this.files.remove(keys));
    return deleted;
  }

  /** gallery.updated for each gallery, in the change's unit. */
  private async galleriesChanged(unit: Unit, galleries: readonly number[]): Promise<void> {
    await this.events?.emitIn(unit, 'gallery.updated', { galleries });
  }

  /**
   * The cleanup sweep's part. Abandoned uploads (a step 1 whose step 3 never
   * came, UPLOAD_EXPIRY_SECONDS later): the pending row, and the media when it
   * never went live, with the file recorded for deletion in the same
   * transaction and removed after it; then medias that stayed pending without
   * any upload for as long (a refused or failed file).
   */
  async sweepAbandonedUploads(now: Date): Promise<{ uploads: number; medias: number }> {
    const { uploads, medias, deletions } = this.repos;
    const result = { uploads: 0, medias: 0 };
    for (;;) {
      const expired = await uploads.expired(now.toISOString(), SWEEP_BATCH);
      if (expired.length === 0) break;
      result.uploads += expired.length;
      result.medias += await inUnit(this.db, async (unit) => {
        const keys = expired.map((u) => u.storage_key);
        await uploads.endMany(unit.db, expired.map((u) => u.id));
        const gone = await medias.deleteNeverLive(unit.db, expired.map((u) => u.media_id));
        await deletions.record(unit.db, [...keys, ...gone.keys]);
        unit.afterCommit(() => this.files.remove(keys));
        return gone.count;
      });
      if (expired.length < SWEEP_BATCH) break;
    }
    const cutoff = new Date(now.getTime() - this.config.uploadExpirySeconds * 1000).toISOString();
    for (;;) {
      const stale = await medias.staleNeverLive(cutoff, SWEEP_BATCH);
      if (stale.length === 0) break;
      // Their files (if any) stay recorded: the sweep's file-deletions part drains them.
      result.medias += await inUnit(this.db, async (unit) => {
        const gone = await medias.deleteNeverLive(unit.db, stale);
        await deletions.record(unit.db, gone.keys);
        return gone.count;
      });
      if (stale.length < SWEEP_BATCH) break;
    }
    return result;
  }
}
