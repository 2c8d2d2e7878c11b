// The media operations (docs/media.md): listing, one media, create, update, delete, batch updates
// (enqueued, then applied chunk by chunk by the job worker). Upload mechanics are the uploads
// feature's and a file's life is file-life.ts's; this service decides what happens to the media around
// them (docs/architecture.md, "A file's life").
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { Access } from '../access/access.js';
import { ApiError, conflict, invalid, notFound } from '../core/errors.js';
import type { ChunkResult, JobHandler } from '../jobs/handlers.js';
import type { JobQueue } from '../jobs/service.js';
import { nowIso } from '../database/db.js';
import type { JobRow, MediaRow, UserRow } from '../database/schema.js';
import type { Unit } from '../database/unit-of-work.js';
import type { WebhookEmitter } from '../webhooks/events.js';
import { ObjectGone } from '../file-storage/backend.js';
import { sanitizeFileName } from '../uploads/file-names.js';
import type { UploadCompletion, UploadDeclaration, UploadStep } from '../uploads/input.js';
import { ListMemo } from './list-memo.js';
import { endsTheUpload, notArrived, type IncomingFile, type UploadInstructions, type UploadsService, type VerifiedFile } from '../uploads/service.js';
import type { RenditionView } from '../renditions/service.js';
import type { FileLife } from './file-life.js';
import type { MediaChanges, MediaInput } from './metadata.js';
import { NO_RELATIONS, type GroupScope, type MediaRecord, type MediaRelations, type MediaRepository, type MediaScope } from './repository.js';

/** How long a step 3 that lost the race for the incoming object waits for the winner's commit. */
const RACE_WAIT_MS = 3000;

export { NO_RELATIONS } from './repository.js';
export type { GroupScope, MediaRecord, MediaRelations, MediaScope } from './repository.js';

export const BATCH_JOB_KIND = 'media_batch_update';
/** Ids per statement of a batch chunk, whatever JOB_CHUNK_SIZE is: far below every database's variable limit. */
const APPLY_IDS = 500;

type User = Pick<UserRow, 'id'>;

/** The UUIDs of a request's artist_id, gallery_id, medias_group_id and lightbox_id (those it has). */
export interface MediaFilterInput {
  artist?: string;
  gallery?: string;
  group?: string;
  lightbox?: string;
}

export interface MediaDetails {
  record: MediaRecord;
  /** NO_RELATIONS when not asked for. */
  relations: MediaRelations;
  /** Its renditions (empty when relations were not asked for). */
  renditions: RenditionView[];
}

/** What a medias_group_id filter needs of the groups feature (src/groups): the group as a scope of medias. */
export interface GroupScopes {
  scope(groupId: number): Promise<GroupScope>;
}

/** What media replies need of the renditions feature (src/renditions). */
export interface MediaRenditions {
  /** The renditions of a page of medias, in one query. */
  views(mediaIds: readonly number[]): Promise<Map<number, RenditionView[]>>;
}

export interface MediaPage {
  total: number;
  records: MediaRecord[];
  /** When asked for, with the renditions. */
  relations?: Map<number, MediaRelations>;
  renditions?: Map<number, RenditionView[]>;
}

/** The file a media holds after step 3 or a direct upload. */
export interface StoredFile {
  fileName: string;
  mimeType: string | null;
  size: number | null;
}

export type UploadOutcome = { step: 'begun'; instructions: UploadInstructions } | { step: 'completed' | 'received'; file: StoredFile };

export interface MediaWriteResult {
  media: MediaDetails;
  /** The upload steps the request took, in order. */
  uploads: UploadOutcome[];
  /** Create with media[replace]: an existing media took the file. */
  replaced?: boolean;
}

export interface CreateMediaInput {
  attributes: MediaInput;
  /** The top-level artist_id: the library when media[artist_id] names none. */
  artist?: string;
  /** media[replace]: the latest media of the library with this file name takes the file instead. */
  replace: boolean;
  fileName: string;
  /** A direct upload, or step 1. */
  upload: { direct: IncomingFile } | { declaration: UploadDeclaration };
}

export interface UpdateMediaInput {
  attributes: MediaInput;
  /** The top-level artist_id of a client replacing the file (spec 4.7). */
  artist?: string;
  upload?: UploadStep;
  direct?: IncomingFile;
}

/** `select` (all, or UUIDs), or the older medias[on]=medias with medias[medias] (or medias[on]=all). */
export interface BatchSelection {
  select?: string;
  on?: string;
  /** `select` as a list of UUIDs. */
  selectList?: string[];
  mediasList?: string[];
}

export interface BatchInput {
  attributes: MediaInput;
  selection: BatchSelection;
  filter: MediaFilterInput;
  /** medias_count: the number of medias the client expects. */
  expectedCount?: number;
}

export interface BatchPayload {
  /** Media ids fixed at request time; the job's cursor indexes this list. */
  ids: number[];
  changes: MediaChanges;
}

export class MediaService {
  constructor(
    private readonly repo: MediaRepository,
    private readonly fileLife: FileLife,
    private readonly uploads: UploadsService,
    private readonly access: Access,
    private readonly groups: GroupScopes,
    private readonly jobs: JobQueue,
    private readonly log: Pick<Logger, 'error'>,
    private readonly renditions?: MediaRenditions,
    /** gallery.updated for the galleries a media joins or leaves, in the change's unit (docs/integrations.md "Webhooks"). */
    private readonly events?: WebhookEmitter,
  ) {}

  /** Each gallery that gained or lost a media tells it, in the change's unit. */
  private galleriesChanged = async (unit: Unit, galleries: readonly number[]): Promise<void> => {
    await this.events?.emitIn(unit, 'gallery.updated', { galleries });
  };

  /** A page of the user's live medias in the filter's scope and order. */
  async list(user: User, filter: MediaFilterInput, page: { limit: number; offset: number }, withRelations: boolean): Promise<MediaPage> {
    const scope = await this.scope(user, filter);
    const [total, ids] = await this.window(user, scope, page);
    // The records first, the renditions after: read in parallel (two connections on PostgreSQL),
    // a worker's commit between the two reads gave `renditions-state` ready with no renditions.
    const records = await this.repo.records(ids);
    const [relations, renditions] = await Promise.all([
      withRelations ? this.repo.relations(ids) : undefined,
      withRelations ? this.renditions?.views(ids) : undefined,
    ]);
    return { total, records, relations, renditions };
  }

  /** The user's images whose title or file name holds `text`, the latest first, with their renditions (the studio's pickers). */
  async searchImages(user: User, text: string, limit: number): Promise<Pick<MediaPage, 'records' | 'renditions'>> {
    const ids = await this.repo.searchImages(user.id, text.slice(0, 100), limit);
    const records = await this.repo.records(ids);
    return { records, renditions: await this.renditions?.views(ids) };
  }

  /** One media's renditions on `get`'s rule (404 for another's), without its record's relations: the studio's thumbnails, hundreds a minute. */
  async renditionsOf(user: User, uuid: string): Promise<RenditionView[]> {
    const media = await this.owned(user, uuid);
    return (await this.renditions?.views([media.id]))?.get(media.id) ?? [];
  }

  /** One media of the user; 404 otherwise. */
  async get(user: User, uuid: string, withRelations: boolean): Promise<MediaDetails> {
    return this.details(await this.access.requireOne(user, 'media', uuid, { notFound: 'media' }), withRelations);
  }

  /**
   * POST /medias.xml: a new media (or, with replace, the latest of its library
   * with that file name) and upload step 1, or a direct upload. Everything is
   * validated before anything is created.
   */
  async create(user: User, input: CreateMediaInput, request?: IncomingMessage): Promise<MediaWriteResult> {
    // The name as it is stored and handed back, so media[replace] finds what an earlier upload stored.
    const fileName = sanitizeFileName(input.fileName);
    const changes = await this.resolve(user, input.attributes);
    const artistId =
      changes.columns.artist_id ??
      (input.artist ? await this.access.requireOne(user, 'artist', input.artist, { invalid: 'artist_id' }) : await this.access.defaultArtist(user));
    changes.columns.artist_id = artistId;
    const existing = input.replace ? await this.repo.latestByFileName(user.id, artistId, fileName) : undefined;

    let media: MediaRow;
    let upload: UploadOutcome;
    if (existing) {
      // Replacing: the media keeps its UUID; the upload is checked first, then the metadata applied.
      upload = await this.takeUpload(existing, input.upload, request);
      await this.repo.update(user.id, existing.id, changes, nowIso(), this.galleriesChanged);
      media = existing;
    } else {
      media = await this.repo.create({ ownerId: user.id, artistId, uuid: randomUUID(), fileName }, changes, nowIso());
      try {
        upload = await this.takeUpload(media, input.upload, request);
      } catch (err) {
        // The upload was refused: the media must not exist (its relations go with it).
        await this.repo.remove(media.id).catch((e: unknown) => this.log.error({ err: e, media: media.uuid }, 'could not remove the media of a refused upload'));
        throw err;
      }
    }
    return { media: await this.details(media.id), uploads: [upload], replaced: existing !== undefined };
  }

  /** PUT /medias/<uuid>.xml: metadata and publication, and any upload step. */
  async update(user: User, uuid: string, input: UpdateMediaInput, request?: IncomingMessage): Promise<MediaWriteResult> {
    const media = await this.owned(user, uuid);
    const changes = await this.resolve(user, input.attributes);
    // Clients replace a file by sending the step 1 parameters here (spec 4.7): the top-level
    // artist_id then names the library, and media[replace] is implied.
    if (changes.columns.artist_id === undefined && input.artist) {
      changes.columns.artist_id = await this.access.requireOne(user, 'artist', input.artist, { invalid: 'artist_id' });
    }
    const uploads: UploadOutcome[] = [];
    if (input.upload?.step === 'request') uploads.push({ step: 'begun', instructions: await this.beginUpload(media, input.upload.declaration) });
    else if (input.upload?.step === 'complete') uploads.push({ step: 'completed', file: await this.completeUpload(media, input.upload.completion) });
    if (input.direct) {
      const now = await this.repo.byId(media.id);
      if (!now) throw notFound(`media ${uuid}`);
      uploads.push({ step: 'received', file: await this.receiveDirect(now, input.direct, request) });
    }
    if (!isEmptyChange(changes)) await this.repo.update(user.id, media.id, changes, nowIso(), this.galleriesChanged);
    return { media: await this.details(media.id), uploads };
  }

  /** DELETE /medias/<uuid>.xml: the row, its relations and its pending upload; its files recorded for deletion, then removed. Returns its UUID. */
  async delete(user: User, uuid: string): Promise<string> {
    const media = await this.owned(user, uuid);
    await this.fileLife.delete(user.id, [media.id]);
    return media.uuid;
  }

  /**
   * PUT /medias/batch_update.xml: resolves the selection and validates the
   * attributes now, then hands a fixed list of media ids to the job queue
   * (docs/batch-updates.md).
   */
  async batchUpdate(user: User, input: BatchInput): Promise<{ job: JobRow; count: number }> {
    const changes = await this.resolve(user, input.attributes);
    if (isEmptyChange(changes)) throw invalid('nothing to do: give at least one medias[...] attribute');
    const ids = await this.selection(user, input.selection, input.filter);
    if (input.expectedCount !== undefined && input.expectedCount !== ids.length) {
      throw conflict(`medias_count is ${input.expectedCount} but the selection holds ${ids.length} medias: nothing was done`, 'count_mismatch');
    }
    const payload: BatchPayload = { ids, changes };
    const job = await this.jobs.enqueue(user.id, BATCH_JOB_KIND, payload, ids.length, 'interactive');
    return { job, count: ids.length };
  }

  /** Applies items [start, end) of a batch update, in the worker's chunk unit (a deletion goes to file-life.ts). */
  /** This feature's entry in the worker's handler map (src/jobs/handlers.ts): batch updates, chunk by chunk. */
  jobHandler(): readonly [string, JobHandler] {
    return [BATCH_JOB_KIND, { runChunk: this.batchChunk.bind(this) }];
  }

  async batchChunk(unit: Unit, job: JobRow, payload: unknown, start: number, end: number): Promise<ChunkResult> {
    const { ids, changes } = payload as BatchPayload;
    const chunk = ids.slice(start, end);
    let affected = 0;
    if (changes.delete) {
      affected = await this.fileLife.deleteIn(unit, job.owner_id, chunk);
    } else {
      const now = nowIso();
      const galleries = new Set<number>();
      for (let i = 0; i < chunk.length; i += APPLY_IDS) {
        const applied = await this.repo.apply(unit.db, job.owner_id, chunk.slice(i, i + APPLY_IDS), changes, now);
        affected += applied.ids.length;
        applied.galleries.forEach((g) => galleries.add(g));
      }
      // One gallery.updated per gallery and chunk, with the chunk's commit.
      await this.galleriesChanged(unit, [...galleries]);
    }
    const missing = chunk.length - affected;
    return {
      processed: chunk.length,
      failed: missing,
      errors: missing > 0 ? [`${missing} of the medias ${start + 1} to ${end} no longer exist`] : [],
    };
  }

  // ---- for the groups feature: medias in a scope

  /** How many of the user's live medias the scope holds (in `unit` when given). */
  count(user: User, scope: MediaScope, unit?: Unit): Promise<number> {
    return this.repo.count(user.id, scope, unit?.db);
  }

  /** Ids of the user's live medias in the scope's order; a page when given (in `unit` when given). */
  idsIn(user: User, scope: MediaScope, page?: { limit: number; offset: number }, unit?: Unit): Promise<number[]> {
    return this.repo.ids(user.id, scope, page, unit?.db);
  }

  /** Records of `ids`, in their order. */
  records(ids: readonly number[]): Promise<MediaRecord[]> {
    return this.repo.records(ids);
  }

  /**
   * Live medias of each group. A group whose ids are kept under the owner's current stamps (a page
   * of it was read since the last write that could change it) is their number; the others are
   * counted, one statement for the collections, one for the smart ones.
   */
  async countGroups(user: User, groups: readonly GroupScope[]): Promise<Map<number, number>> {
    const kept = new Map<number, number>();
    const unknown: GroupScope[] = [];
    if (groups.length > 0) {
      const stamps = await this.repo.stamps(user.id);
      for (const g of groups) {
        const scope = { group: g };
        const ids = await this.lists.fresh(listKey(user, scope), stampOf(stamps, scope))?.catch(() => undefined);
        if (ids) kept.set(g.id, ids.length);
        else unknown.push(g);
      }
    }
    const [plain, smart] = await Promise.all([
      this.repo.countCollections(user.id, unknown.filter((g) => g.kind !== 'smart').map((g) => g.id)),
      this.repo.countSmartGroups(user.id, unknown.filter((g) => g.kind === 'smart')),
    ]);
    return new Map([...kept, ...plain, ...smart]);
  }

  // ---- inside

  /**
   * The scope's size and the ids of one page: a slice of the scope's ids kept under the owner's
   * stamps (list-memo.ts), read once again when a stamp moved. The stamps are read before the ids.
   */
  private async window(user: User, scope: MediaScope, page: { limit: number; offset: number }): Promise<[number, number[]]> {
    const stamps = await this.repo.stamps(user.id);
    const all = await this.lists.ids(listKey(user, scope), stampOf(stamps, scope), () => this.repo.ids(user.id, scope));
    return [all.length, Array.from(all.subarray(page.offset, page.offset + page.limit))];
  }

  /** Each list scope's ids under its owner's stamps. */
  private readonly lists = new ListMemo();

  private async owned(user: User, uuid: string): Promise<MediaRow> {
    const media = await this.repo.byId(await this.access.requireOne(user, 'media', uuid, { notFound: 'media' }));
    if (!media) throw notFound(`media ${uuid}`);
    return media;
  }

  private async details(id: number, withRelations = true): Promise<MediaDetails> {
    // The record before its renditions (see list): what a ready record names is committed.
    const [record] = await this.repo.records([id]);
    const [relations, renditions] = await Promise.all([
      withRelations ? this.repo.relations([id]) : undefined,
      withRelations ? this.renditions?.views([id]) : undefined,
    ]);
    if (!record) throw notFound('media');
    return { record, relations: relations?.get(id) ?? NO_RELATIONS, renditions: renditions?.get(id) ?? [] };
  }

  /** The scope named by a request's filters; a target that is unknown or not the user's is a 404. */
  private async scope(user: User, f: MediaFilterInput): Promise<MediaScope> {
    const scope: MediaScope = {};
    if (f.artist) scope.artistId = await this.access.requireOne(user, 'artist', f.artist, { notFound: 'media library' });
    if (f.gallery) scope.galleryId = await this.access.requireOne(user, 'gallery', f.gallery, { notFound: 'gallery' });
    if (f.group) scope.group = await this.groups.scope(await this.access.requireOne(user, 'group', f.group, { notFound: 'medias group' }));
    if (f.lightbox) scope.lightboxId = await this.access.requireOne(user, 'lightbox', f.lightbox, { notFound: 'lightbox' });
    return scope;
  }

  /** All medias of the scope, or those named (404 for any unknown one); a scope restricts an explicit selection to the medias it holds. */
  private async selection(user: User, selection: BatchSelection, filter: MediaFilterInput): Promise<number[]> {
    const select = selection.select?.trim();
    const older = selection.on?.trim();
    const scope = await this.scope(user, filter);
    let uuids: string[];
    if (select !== undefined && select !== '') {
      if (select.toLowerCase() === 'all') return this.repo.ids(user.id, scope);
      uuids = selection.selectList ?? [];
    } else if (older === 'medias') {
      uuids = selection.mediasList ?? [];
      if (uuids.length === 0) throw invalid('medias[medias] must list the UUIDs of the medias to update');
    } else if (older === 'all') {
      return this.repo.ids(user.id, scope);
    } else {
      throw invalid('select is required: all, or comma-separated media UUIDs (or medias[on]=medias with medias[medias])');
    }
    const ids = await this.access.require(user, 'media', uuids, { notFound: 'media' });
    if (Object.keys(scope).length === 0) return ids;
    const inScope = new Set(await this.repo.ids(user.id, scope));
    return ids.filter((id) => inScope.has(id));
  }

  /** The change set of `input`: every UUID resolved to an id the user may use (422 naming the parameter otherwise). */
  private async resolve(user: User, input: MediaInput): Promise<MediaChanges> {
    const name = (attr: string) => `${input.prefix}[${attr}]`;
    const ids = (kind: 'gallery' | 'collection' | 'pricing-profile', uuids: readonly string[], attr: string) =>
      this.access.require(user, kind, uuids, { invalid: name(attr) });
    const changes: MediaChanges = { columns: { ...input.columns } };
    if (input.artist !== undefined) changes.columns.artist_id = await this.access.requireOne(user, 'artist', input.artist, { invalid: name('artist_id') });
    if (input.watermark !== undefined) {
      changes.columns.watermark_id = input.watermark === null ? null : await this.access.requireOne(user, 'watermark', input.watermark, { invalid: name('watermark_uuid') });
    }
    if (input.keywords) changes.keywords = input.keywords;
    if (input.addKeywords) changes.addKeywords = input.addKeywords;
    if (input.removeKeywords) changes.removeKeywords = input.removeKeywords;
    // An empty galleries[] unpublishes from every gallery; the other lists do nothing when empty.
    if (input.galleries) changes.galleries = await ids('gallery', input.galleries, 'galleries');
    if (input.publish?.length) changes.publish = await ids('gallery', input.publish, 'publish_to_galleries');
    if (input.unpublish?.length) changes.unpublish = await ids('gallery', input.unpublish, 'unpublish_from_galleries');
    if (input.collections) changes.collections = await ids('collection', input.collections, 'medias_collections');
    if (input.addCollections?.length) changes.addCollections = await ids('collection', input.addCollections, 'add_to_medias_collections');
    if (input.removeCollections?.length) changes.removeCollections = await ids('collection', input.removeCollections, 'remove_from_medias_collections');
    if (input.addPricing?.length) changes.addPricing = await ids('pricing-profile', input.addPricing, 'add_pricing_profiles');
    if (input.removePricing?.length) changes.removePricing = await ids('pricing-profile', input.removePricing, 'remove_pricing_profiles');
    if (input.delete) changes.delete = true;
    return changes;
  }

  private async takeUpload(media: MediaRow, upload: CreateMediaInput['upload'], request?: IncomingMessage): Promise<UploadOutcome> {
    if ('direct' in upload) return { step: 'received', file: await this.receiveDirect(media, upload.direct, request) };
    return { step: 'begun', instructions: await this.beginUpload(media, upload.declaration) };
  }

  /** Step 1: the upload's instructions; a media without a file yet takes the declared name. */
  private async beginUpload(media: MediaRow, declaration: UploadDeclaration): Promise<UploadInstructions> {
    const instructions = await this.uploads.begin(media, declaration);
    if (media.status === 'pending' && media.file_name !== instructions.fileName) await this.repo.setFileName(media.id, instructions.fileName, nowIso());
    return instructions;
  }

  /**
   * Step 3: the uploads feature verifies what arrived and moves it into
   * place; the media goes live with it. A repeated step 3 of an upload that
   * is complete answers as the first one did.
   */
  private async completeUpload(media: MediaRow, completion: UploadCompletion): Promise<StoredFile> {
    const pending = await this.uploads.pendingOf(media.id);
    if (!pending) {
      if (media.status === 'live' && media.storage_key && (completion.fileSize === undefined || completion.fileSize === Number(media.file_size))) return liveFile(media);
      throw new ApiError('unprocessable', 'no upload is pending for this media: start again with step 1', { stopWithError: false });
    }
    let file: VerifiedFile;
    try {
      file = await this.uploads.complete(media, pending, completion);
    } catch (err) {
      if (err instanceof ObjectGone) return this.raceLost(media.id);
      if (endsTheUpload(err)) {
        // Pointless to retry: the upload is over, its bytes go, and so does a media that never had a file.
        await this.fileLife.abandonUpload(media.id, pending.id, pending.storage_key);
      }
      throw err;
    }
    if ((await this.publish(media.id, file, pending.id)) === 'already-completed') {
      const now = await this.repo.byId(media.id);
      if (now) return liveFile(now);
    }
    return { fileName: file.fileName, mimeType: file.mimeType, size: file.size };
  }

  /**
   * The incoming object went (or changed) while step 3 looked at it: a
   * concurrent step 3 took it, answered as that one did, or a replay rewrote
   * it: send again.
   */
  private async raceLost(mediaId: number): Promise<StoredFile> {
    // The other step 3 may be between its promotion of the object and its commit: wait for that
    // commit a moment (RACE_WAIT_MS in all) rather than answer "not arrived" for a file that has.
    for (let waited = 0, step = 25; ; waited += step, step = Math.min(step * 2, 250)) {
      if (!(await this.uploads.pendingOf(mediaId))) {
        const now = await this.repo.byId(mediaId);
        if (now?.status === 'live') return liveFile(now);
        break;
      }
      if (waited >= RACE_WAIT_MS) break;
      await new Promise((resolve) => setTimeout(resolve, step));
    }
    throw notArrived();
  }

  /** A direct upload: the file part is the media's new file. */
  private async receiveDirect(media: MediaRow, part: IncomingFile, request?: IncomingMessage): Promise<StoredFile> {
    const file = await this.uploads.receiveDirect({ id: media.id, uuid: media.uuid, owner_id: media.owner_id, fileName: media.file_name }, part, request);
    await this.publish(media.id, file);
    return { fileName: file.fileName, mimeType: file.mimeType, size: file.size };
  }

  /** Makes the media live with a verified file (file-life.ts); a file swept meanwhile must be sent again. */
  private async publish(mediaId: number, file: VerifiedFile, pendingUploadId?: number): Promise<'published' | 'already-completed'> {
    const outcome = await this.fileLife.publish(mediaId, file, pendingUploadId);
    if (outcome === 'too-late') throw new ApiError('unprocessable', 'the upload took too long to complete: send the file again', { stopWithError: false });
    return outcome;
  }
}

/**
 * What a list scope's ids are kept under in the memo. A smart collection's key also holds its
 * library and a digest of its stored rules: a changed rule set is another key, never the old ids.
 */
function listKey(user: User, scope: MediaScope): string {
  const key: unknown[] = [user.id, scope.artistId, scope.galleryId, scope.lightboxId, scope.group?.id];
  if (scope.group?.kind === 'smart') key.push('smart', scope.group.artistId, createHash('sha256').update(scope.group.rulesText).digest('base64url'));
  return key.join('/');
}

/**
 * The stamp a scope's ids are kept under. Smart rules read titles, ratings, capture times, file
 * names, MIME types and keywords, which the owner's media stamp does not follow (a title edit
 * must not rebuild every library list): their ids are kept under both stamps.
 */
function stampOf(stamps: { stamp: number; rule: number }, scope: MediaScope): string {
  return scope.group?.kind === 'smart' ? `${stamps.stamp}.${stamps.rule}` : String(stamps.stamp);
}

function liveFile(media: MediaRow): StoredFile {
  return { fileName: media.file_name, mimeType: media.mime_type, size: media.file_size === null ? null : Number(media.file_size) };
}

/** True when the change set would change nothing (only updated_at). */
export function isEmptyChange(c: MediaChanges): boolean {
  return Object.keys(c.columns).length === 0 && Object.keys(c).length === 1;
}
