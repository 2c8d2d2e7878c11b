// PUT /medias/batch_update.xml: resolves the selection and validates the
// attributes at request time, then hands a fixed list of media ids to the job
// queue (docs/batch-updates.md). The job applies them chunk by chunk.
import type { RequestContext, Services } from '../http/context.js';
import { userOf } from '../http/context.js';
import { conflict, invalid, notFound } from '../http/errors.js';
import type { Params } from '../http/params.js';
import type { XmlObject } from '../http/xml.js';
import type { JobHandler } from '../jobs/handlers.js';
import { jobLocation, jobXml } from '../jobs/xml.js';
import { nowIso, type Db } from '../store/db.js';
import { applyMediaChanges } from './apply.js';
import { isEmptyChange, mediaAttributeParams, readMediaChanges, type MediaChanges } from './metadata.js';
import { dropFilesOfDeletedMedias } from './pending-uploads.js';
import { mediaIds } from './selection.js';
import { removeStoredFiles } from './service.js';
import { filterFromParams, looksLikeUuid } from './targets.js';

export const BATCH_JOB_KIND = 'media_batch_update';

/** UUIDs `select` or `medias[medias]` may name: a whole library, read in chunks (below). */
export const MAX_SELECTED_UUIDS = 100_000;
/** Ids per statement, whatever JOB_CHUNK_SIZE is: far below every database's variable limit. */
const APPLY_IDS = 500;

export const BATCH_PARAMS = [
  'select',
  'medias_count',
  'gallery_id',
  'medias_group_id',
  'lightbox_id',
  'medias[on]',
  'medias[medias]',
  ...mediaAttributeParams('medias', 'batch'),
];

export interface BatchPayload {
  /** Media ids fixed at request time; the job's cursor indexes this list. */
  ids: number[];
  changes: MediaChanges;
}

/** Owned medias named by UUID, in the order given; any unknown one is a 404. */
async function idsOfUuids(db: Db, userId: number, uuids: string[]): Promise<number[]> {
  const wanted = [...new Set(uuids.map((u) => u.toLowerCase()))];
  const bad = wanted.find((u) => !looksLikeUuid(u));
  if (bad) throw notFound(`media ${bad}`);
  const byUuid = new Map<string, number>();
  for (let i = 0; i < wanted.length; i += 500) {
    const rows = await db.selectFrom('medias').select(['id', 'uuid']).where('owner_id', '=', userId).where('uuid', 'in', wanted.slice(i, i + 500)).execute();
    for (const r of rows) byUuid.set(r.uuid, r.id);
  }
  const missing = wanted.find((u) => !byUuid.has(u));
  if (missing) throw notFound(`media ${missing}`);
  return wanted.map((u) => byUuid.get(u)!);
}

/** `select` (all or UUIDs), or the older medias[on]=medias with medias[medias]. */
export async function resolveSelection(db: Db, userId: number, p: Params): Promise<number[]> {
  const select = p.str('select')?.trim();
  const older = p.str('medias[on]')?.trim();
  const filter = await filterFromParams(db, userId, p);
  const scoped = Object.keys(filter).length > 0;
  let uuids: string[] | undefined;
  if (select !== undefined && select !== '') {
    if (select.toLowerCase() === 'all') return mediaIds(db, userId, filter);
    uuids = p.csvList('select', MAX_SELECTED_UUIDS) ?? [];
  } else if (older === 'medias') {
    uuids = p.csvList('medias[medias]', MAX_SELECTED_UUIDS) ?? [];
    if (uuids.length === 0) throw invalid('medias[medias] must list the UUIDs of the medias to update');
  } else if (older === 'all') {
    return mediaIds(db, userId, filter);
  } else {
    throw invalid('select is required: all, or comma-separated media UUIDs (or medias[on]=medias with medias[medias])');
  }
  const ids = await idsOfUuids(db, userId, uuids);
  if (!scoped) return ids;
  // A scope restricts an explicit selection to the medias it holds.
  const inScope = new Set(await mediaIds(db, userId, filter));
  return ids.filter((id) => inScope.has(id));
}

export async function batchUpdate(ctx: RequestContext): Promise<XmlObject> {
  const user = userOf(ctx);
  const { db } = ctx.services;
  const p = ctx.params;
  const changes = await readMediaChanges(db, user.id, p, 'medias', 'batch');
  if (isEmptyChange(changes)) throw invalid('nothing to do: give at least one medias[...] attribute');
  const ids = await resolveSelection(db, user.id, p);
  const expected = p.int('medias_count', { min: 0 });
  if (expected !== undefined && expected !== ids.length) {
    throw conflict(`medias_count is ${expected} but the selection holds ${ids.length} medias: nothing was done`, 'count_mismatch');
  }
  const payload: BatchPayload = { ids, changes };
  const job = await ctx.services.jobs.enqueue(user.id, BATCH_JOB_KIND, payload, ids.length);
  return {
    job: jobXml(job),
    'job-uuid': job.uuid,
    'medias-count': ids.length,
    location: jobLocation(job),
    message: `batch update of ${ids.length} medias queued; follow it at ${jobLocation(job)}`,
  };
}

/** Applies one chunk of a batch update, in the worker's chunk transaction. */
export function batchJobHandler(services: Services): JobHandler {
  return {
  async runChunk(trx, job, payload, start, end) {
    const { ids, changes } = payload as BatchPayload;
    const chunk = ids.slice(start, end);
    const now = nowIso();
    const affectedIds: number[] = [];
    const deletedStorageKeys: string[] = [];
    for (let i = 0; i < chunk.length; i += APPLY_IDS) {
      const r = await applyMediaChanges(trx, services.store.dialect, job.owner_id, chunk.slice(i, i + APPLY_IDS), changes, now);
      affectedIds.push(...r.affectedIds);
      deletedStorageKeys.push(...r.deletedStorageKeys);
    }
    // Recorded with the chunk: a crash after its commit leaves the files to the cleanup sweep, not orphaned.
    const files = changes.delete ? await dropFilesOfDeletedMedias(trx, affectedIds, deletedStorageKeys) : [];
    const missing = chunk.length - affectedIds.length;
    return {
      processed: chunk.length,
      failed: missing,
      errors: missing > 0 ? [`${missing} of the medias ${start + 1} to ${end} no longer exist`] : [],
      afterCommit: files.length ? () => removeStoredFiles({ services }, files) : undefined,
    };
  },
  };
}
