// The studio's resumable uploads (tus; docs/studio.md, Uploads) as operations on a user: who may
// create and send to an upload (tus-endpoint.ts receives the bytes), and its end, once whatever
// the client retries: the uploads feature verifies the file, the file's life (src/media/file-life.ts)
// makes the media live with it, or "already in the library" (src/media/same-files.ts).
import type { Logger } from 'pino';
import type { Access } from '../access/access.js';
import { ApiError, notFound } from '../core/errors.js';
import type { FileLife } from '../media/file-life.js';
import type { SameFiles } from '../media/same-files.js';
import { nowIso } from '../database/db.js';
import type { ResumableUploadRow, UserRow } from '../database/schema.js';
import { sanitizeFileName } from '../uploads/file-names.js';
import type { QuotaState, StorageQuota } from '../uploads/quota.js';
import type { StoredSource, UploadsService } from '../uploads/service.js';
import type { ResumableUploadsRepository } from './repository.js';

type User = Pick<UserRow, 'id'>;

/** An upload id: `<owner id>-<32 hex>`, made by the service (never by a client). */
export const UPLOAD_ID = /^([1-9][0-9]{0,15})-([0-9a-f]{32})$/;

/** Where the tus endpoint keeps what it received, as this service needs it. */
export interface ReceivedFiles {
  /** The whole file of upload `id` (on this machine, or an object in the store), for the pipeline; undefined while bytes are missing, or when it is gone. */
  complete(id: string): Promise<StoredSource | undefined>;
  /** Its content probe (probe.ts), computed from the bytes received. */
  probe(id: string, size: number): Promise<string>;
  /** The SHA-256 of every byte received (probe.ts, wholeDigest): a sampled probe's match is checked with it. */
  digest(id: string, size: number): Promise<string>;
  /** How many bytes of upload `id` arrived so far (0 when none, or when it is gone). */
  received(id: string): Promise<number>;
  /** What is left of upload `id` (its bytes, its tus record; S3: its multipart upload too); nothing there is not an error. */
  remove(id: string): Promise<void>;
}

export interface ResumableSettings {
  /** Uploads of one user not ended yet (a browser sends 3 at a time; the rest are what reloads and cuts left). */
  maxOpenPerUser: number;
  config: { maxUploadBytes: number; uploadExpirySeconds: number };
}

export type ResumableState = ResumableUploadRow['state'];

/** What became of an upload, for the screen: a media, a duplicate of one, or a refusal and its reason. */
export interface ResumableOutcome {
  id: string;
  state: ResumableState;
  fileName: string;
  /** Bytes. */
  size: number;
  media?: string;
  reason?: string;
}

export interface NewUpload {
  fileName: string;
  size: number | undefined;
  gallery?: string;
}

/** An upload that received no byte in this long since its creation expires then (issue 29): it held quota for nothing. */
export const IDLE_UPLOAD_MS = 3600 * 1000;

/** A claim older than this belongs to a process that died while processing (the pipeline takes seconds, not minutes). */
const STALE_CLAIM_MS = 10 * 60 * 1000;

const outcomeOf = (row: ResumableUploadRow): ResumableOutcome => ({
  id: row.id,
  state: row.state,
  fileName: row.file_name,
  size: Number(row.file_size),
  media: row.media_uuid ?? undefined,
  reason: row.reason ?? undefined,
});

/** What an upload's end goes through: the uploads feature's checks, the file's life, the library's files, the access module, the quota. */
export interface ResumableParts {
  uploads: Pick<UploadsService, 'takeStored'>;
  fileLife: Pick<FileLife, 'createLive'>;
  sameFiles: Pick<SameFiles, 'duplicates' | 'duplicateOf'>;
  access: Access;
  quota: StorageQuota;
}

export class ResumableUploadsService {
  private readonly access: Access;
  private readonly quota: StorageQuota;

  constructor(
    private readonly repo: ResumableUploadsRepository,
    private readonly parts: ResumableParts,
    private readonly files: ReceivedFiles,
    private readonly settings: ResumableSettings,
    private readonly log: Pick<Logger, 'error'>,
  ) {
    this.access = parts.access;
    this.quota = parts.quota;
  }

  /** The user's storage use and quota (the upload screen shows them). */
  usage(user: User): Promise<QuotaState> {
    return this.quota.of(user.id);
  }

  /** A new id for an upload of `user`: the owner is part of it (tus namingFunction). */
  static idFor(user: User, random: string): string {
    return `${user.id}-${random}`;
  }

  /**
   * Before the tus endpoint creates upload `id`: the file's name and size as the API's
   * limits take them, the gallery as the access module allows it, and the user's open
   * uploads counted. Records the upload as the user's.
   */
  async begin(user: User, id: string, upload: NewUpload): Promise<void> {
    if (!this.isOwn(user, id)) throw notFound('upload');
    const { maxUploadBytes, uploadExpirySeconds } = this.settings.config;
    const fileName = sanitizeFileName(upload.fileName);
    if (!fileName) throw new ApiError('missing_parameter', 'the file has no name: send it as Upload-Metadata filename');
    if (upload.size === undefined) throw new ApiError('missing_parameter', 'the file size must be known when the upload starts');
    if (upload.size < 1) throw new ApiError('unprocessable', 'the file is empty');
    if (upload.size > maxUploadBytes) throw new ApiError('payload_too_large', `the file is larger than the ${maxUploadBytes} bytes allowed`);
    let gallery: string | null = null;
    if (upload.gallery) {
      await this.access.requireOne(user, 'gallery', upload.gallery, { invalid: 'gallery' });
      gallery = upload.gallery.trim().toLowerCase();
    }
    const now = new Date();
    if ((await this.repo.countOpen(user.id, now.toISOString())) >= this.settings.maxOpenPerUser) {
      throw new ApiError('rate_limited', `at most ${this.settings.maxOpenPerUser} uploads may be open at once: let some finish first`);
    }
    // The announced size is held against the quota from the creation to the upload's end: checked and
    // recorded in one turn of the account's quota (the studio sends three at once).
    const size = upload.size;
    await this.quota.holding(user.id, size, undefined, (trx) => this.repo.insert({
      id,
      owner_id: user.id,
      gallery_uuid: gallery,
      file_name: fileName,
      file_size: size,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + uploadExpirySeconds * 1000).toISOString(),
    }, trx));
  }

  /** Whether upload `id` is the user's and still known (every tus request but the creation asks; 404 otherwise). */
  async owns(user: User, id: string): Promise<boolean> {
    if (!this.isOwn(user, id)) return false;
    const row = await this.repo.get(id);
    return row !== undefined && row.owner_id === user.id && row.expires_at > nowIso();
  }

  /** The outcome of one of the user's uploads (404 for anyone else's). */
  async outcome(user: User, id: string): Promise<ResumableOutcome> {
    const row = this.isOwn(user, id) ? await this.repo.get(id) : undefined;
    if (!row || row.owner_id !== user.id) throw notFound('upload');
    return outcomeOf(row);
  }

  /**
   * The end of an upload whose bytes all arrived: once. The first caller claims it and runs
   * the pipeline; a caller meanwhile, or afterwards (a retried last request, the screen's own
   * finish), gets the outcome stored. A refusal of the file is an outcome too (its bytes go); a
   * failure of the service leaves the upload to be finished again.
   */
  async finish(user: User, id: string): Promise<ResumableOutcome> {
    const row = this.isOwn(user, id) ? await this.repo.get(id) : undefined;
    if (!row || row.owner_id !== user.id) throw notFound('upload');
    if (row.state !== 'receiving' && row.state !== 'processing') return outcomeOf(row);
    const now = Date.now();
    if (!(await this.repo.claim(id, new Date(now).toISOString(), new Date(now - STALE_CLAIM_MS).toISOString()))) {
      const current = await this.repo.get(id);
      if (!current) throw notFound('upload');
      return outcomeOf(current);
    }
    try {
      const source = await this.files.complete(id);
      if (!source) {
        await this.repo.release(id);
        return { ...outcomeOf(row), state: 'receiving' };
      }
      if (source.size !== Number(row.file_size)) {
        // Never a media: only a store that lost track of the offset makes this (two nodes writing
        // one S3 upload at once, which nothing orders: docs/studio.md, Uploads).
        const reason = `the file arrived with ${source.size} bytes instead of the ${row.file_size} announced: send it again`;
        await this.settled(id, 'refused', null, reason);
        return { ...outcomeOf(row), state: 'refused', reason };
      }
      const probe = await this.files.probe(id, source.size);
      const existing = await this.parts.sameFiles.duplicateOf(user, { size: source.size, probe }, () => this.files.digest(id, source.size));
      if (existing) {
        await this.settled(id, 'duplicate', existing, null);
        return { ...outcomeOf(row), state: 'duplicate', media: existing };
      }
      // A new media in the user's default library, published into the gallery chosen at the start (if it is still theirs).
      const artistId = await this.access.defaultArtist(user);
      const galleries = row.gallery_uuid ? await this.access.require(user, 'gallery', [row.gallery_uuid], { invalid: 'gallery' }) : [];
      const uuid = await this.parts.fileLife.createLive(user.id, { artistId, fileName: sanitizeFileName(row.file_name), galleries }, (media) =>
        this.parts.uploads.takeStored({ id: media.id, uuid: media.uuid, owner_id: media.owner_id, fileName: media.file_name }, source, probe),
      );
      await this.settled(id, 'done', uuid, null);
      return { ...outcomeOf(row), state: 'done', media: uuid };
    } catch (err) {
      if (err instanceof ApiError && err.status < 500) {
        // The pipeline refused the file (sniffing, limits, the gallery gone): that is its outcome.
        await this.settled(id, 'refused', null, err.message);
        return { ...outcomeOf(row), state: 'refused', reason: err.message };
      }
      await this.repo.release(id).catch((e: unknown) => this.log.error({ err: e, upload: id }, 'could not release a resumable upload'));
      throw err;
    }
  }

  /** The user's files (size and probe each) already in their library: a media UUID per `${size}/${probe}`. */
  duplicates(user: User, files: ReadonlyArray<{ size: number; probe: string }>): Promise<Map<string, string>> {
    return this.parts.sameFiles.duplicates(user, files);
  }

  /**
   * Uploads expired at `now`: an unfinished one's bytes go, and every row goes (a finished
   * one's outcome was kept this long for a late retry). Returns how many rows went.
   */
  async sweep(now: Date): Promise<number> {
    let removed = 0;
    // Created an hour ago or more and not a byte received: expired now (the declared size no longer held against the quota).
    let after = '';
    for (;;) {
      const idle = await this.repo.idle(new Date(now.getTime() - IDLE_UPLOAD_MS).toISOString(), now.toISOString(), after);
      for (const row of idle) {
        if ((await this.files.received(row.id)) > 0) continue;
        await this.files.remove(row.id);
        await this.repo.remove([row.id]);
        removed++;
      }
      if (idle.length < 200) break;
      after = idle[idle.length - 1].id;
    }
    for (;;) {
      const rows = await this.repo.expired(now.toISOString());
      if (rows.length === 0) return removed;
      for (const row of rows) await this.files.remove(row.id);
      await this.repo.remove(rows.map((r) => r.id));
      removed += rows.length;
      if (rows.length < 200) return removed;
    }
  }

  private async settled(id: string, state: 'done' | 'duplicate' | 'refused', media: string | null, reason: string | null): Promise<void> {
    await this.repo.settle(id, state, media, reason);
    // What the upload left (the local file was moved into the store; its tus record, or the S3 object after its copy).
    await this.files.remove(id).catch((err: unknown) => this.log.error({ err, upload: id }, 'could not remove what a resumable upload left; the sweep removes it'));
  }

  private isOwn(user: User, id: string): boolean {
    const m = UPLOAD_ID.exec(id);
    return m !== null && Number(m[1]) === user.id;
  }
}
