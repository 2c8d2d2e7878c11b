// The upload mechanics (docs/uploads.md): step 1 (instructions: where and how
// to send the file), step 2 (the service's own upload target receiving it),
// step 3 (verifying what arrived and moving it to its final key) and direct
// uploads. What a verified file then becomes is the media feature's business:
// it makes the media live with it (src/media/repository.ts, publish).
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { Config } from '../config.js';
import { ApiError, badRequest, conflict, missing } from '../core/errors.js';
import { nowIso } from '../database/db.js';
import type { PendingUploadRow } from '../database/schema.js';
import { ObjectGone, type StorageBackend, type UploadTarget } from '../file-storage/backend.js';
import type { FileDeletions } from '../file-storage/file-deletions.js';
import { INCOMING_PREFIX, newIncomingKey, newOriginalKey } from '../file-storage/object-keys.js';
import { verifyPolicy, type UploadPolicy } from '../file-storage/policy.js';
import { receiveToTempFile, sweepTempFiles } from '../file-storage/temp-file.js';
import { sanitizeFileName } from './file-names.js';
import { wholeDigest } from './probe.js';
import type { UploadCompletion, UploadDeclaration } from './input.js';
import { inspectLocalFile, inspectStoredObject } from './inspect.js';
import { candidateLocations, chooseLocation, uploadTarget, type UploadLocation } from './locations.js';
import type { MediaFacts } from './media-facts.js';
import { normalizeDeclaredType } from './sniff.js';
import type { StorageQuota } from './quota.js';
import type { UploadsRepository } from './repository.js';

export interface UploadSettings {
  /** Signs upload policies and raw-upload URLs. */
  secret: Buffer;
  /** Where upload bodies are received before they are moved into the store. */
  tmpDir: string;
  /** Read at each use: the public URL may be set once the port is known. */
  config: Pick<Config, 'maxUploadBytes' | 'uploadExpirySeconds' | 'publicUrl'>;
}

/** The media an upload is for. */
export interface UploadingMedia {
  id: number;
  uuid: string;
  /** Whose storage quota the file counts in (quota.ts). */
  owner_id: number;
}

/** Step 1's answer: where and how step 2 sends the file. */
export interface UploadInstructions {
  fileName: string;
  mimeType: string;
  location: UploadLocation;
  target: UploadTarget;
}

/** A file checked from its bytes and stored at its final key (recorded as unpublished until a media points to it). */
export interface VerifiedFile {
  storageKey: string;
  size: number;
  mimeType: string;
  fileName: string;
  facts: MediaFacts;
  /** src/uploads/probe.ts: set by the paths that computed it (the studio's resumable uploads). */
  contentProbe?: string;
}

/** Step 2 as the upload target receives it: the signed policy, and for a form the fields sent with it. */
export interface StepTwoRequest {
  policy?: string;
  signature?: string;
  /** A multipart POST (location `local`): the key and type fields sent before the file. */
  form?: { key?: string; contentType?: string };
  /** The request's Content-Length, when it announced one. */
  announcedBytes?: number;
}

export interface ReceivedFile {
  key: string;
  size: number;
}

/**
 * A complete file another upload path received (the studio's resumable uploads): a file on this
 * machine (local storage), or an object already in the store under a key of that path's own
 * (S3: the finished multipart upload), pinned to the version that was found whole.
 */
export type StoredSource = { path: string; size: number } | { key: string; size: number; version?: string };

/** A direct upload's file part. */
export interface IncomingFile {
  fileName: string;
  stream: Readable;
}

/** How long one step-2 authorisation lives, at most (never beyond the pending upload). */
const TARGET_LIFETIME_MS = 3600 * 1000;
/** Room for the form fields around the file in a multipart body. */
const MULTIPART_OVERHEAD = 64 * 1024;
/** An upload whose file has not arrived this long after step 1 expires then. */
export const IDLE_UPLOAD_MS = 3600 * 1000;
/** Keys per lookup of the incoming sweep. */
const SWEEP_BATCH = 200;

/**
 * An incoming object without a pending upload is left alone this long: what
 * lands after its upload ended (a replay, a step 2 racing its step 3) is
 * garbage, but listings and clocks of object stores are not instantaneous.
 */
export const INCOMING_GRACE_MS = 5 * 60 * 1000;

const unprocessable = (message: string, stopWithError: boolean) => new ApiError('unprocessable', message, { stopWithError });

/** A refusal after which retrying the same file is pointless: the upload is over. */
export function endsTheUpload(err: unknown): boolean {
  return err instanceof ApiError && err.extra.stopWithError === true;
}

export function notArrived(): ApiError {
  return unprocessable('the file has not arrived at the upload location: send it (step 2), then complete the upload', false);
}

export class UploadsService {
  constructor(
    private readonly repo: UploadsRepository,
    private readonly storage: StorageBackend,
    private readonly files: FileDeletions,
    private readonly settings: UploadSettings,
    private readonly quota: StorageQuota,
  ) {}

  /**
   * Step 1 (the media row exists): validates the declared file (name, size,
   * type), chooses a storage location (honouring failed_locations), and
   * records the pending upload, replacing any earlier one. A refused
   * declaration is a 422, with stop-with-error when retrying is pointless.
   */
  async begin(media: UploadingMedia, d: UploadDeclaration): Promise<UploadInstructions> {
    const { maxUploadBytes, uploadExpirySeconds } = this.settings.config;
    const fileName = sanitizeFileName(d.fileName);
    const size = d.fileSize;
    if (size === undefined) throw missing('media[content][file_size]');
    if (size < 1) throw unprocessable('media[content][file_size] must be at least 1 byte: empty files are not media', true);
    if (size > maxUploadBytes) throw unprocessable(`the file is larger than the ${maxUploadBytes} bytes allowed`, true);
    // Mandatory in step 1 (spec 4.7), even though the bytes decide in the end.
    if (d.mimeType === undefined || d.mimeType === '') throw missing('media[content][mime_type]');
    const declared = normalizeDeclaredType(d.mimeType, fileName);
    if (declared.refused) throw unprocessable(`files of type ${declared.mimeType} are not accepted: send images, videos or PDF documents`, true);

    const location = chooseLocation(candidateLocations(this.storage, d.capabilities.includes('raw')), d.failedLocations);
    const now = Date.now();
    const expiresAt = new Date(now + uploadExpirySeconds * 1000);
    // Step 2 writes here only; step 3 moves the verified file to a key no policy names.
    const key = newIncomingKey(media.uuid);
    const target = await uploadTarget(
      location,
      // The exact declared size: a different file is refused at step 2 where the store enforces it, and at step 3 always.
      { key, contentType: declared.mimeType, minSize: size, maxSize: size, expiresAt: new Date(Math.min(now + TARGET_LIFETIME_MS, expiresAt.getTime())) },
      this.storage,
      this.settings.secret,
      this.settings.config,
    );
    // The declared size is held against the quota from now until step 3 or the upload's end: checked
    // and recorded in one turn of the account's quota (two step 1s at once cannot both pass).
    const replaced = await this.quota.holding(media.owner_id, size, media.id, (trx) => this.repo.replace({
      media_id: media.id,
      owner_id: media.owner_id,
      location,
      storage_key: key,
      file_name: fileName,
      declared_size: size,
      declared_mime: declared.mimeType,
      expires_at: expiresAt.toISOString(),
      created_at: nowIso(),
    }, trx));
    if (replaced) await this.files.remove([replaced]);
    return { fileName, mimeType: declared.mimeType, location, target };
  }

  /** The media's upload between step 1 and step 3, if any. */
  pendingOf(mediaId: number): Promise<PendingUploadRow | undefined> {
    return this.repo.find(mediaId);
  }

  /**
   * Step 3 up to the file's final place: checks the request against step 1,
   * that the object arrived whole (size as declared), sniffs its real type
   * and reads its facts, then moves it to a fresh key that no upload policy
   * names, with the type it really has. Throws ObjectGone when the incoming
   * object went or changed meanwhile (a concurrent step 3, a replay); a type
   * the service refuses throws with stop-with-error (see endsTheUpload).
   */
  async complete(media: UploadingMedia, pending: PendingUploadRow, completion: UploadCompletion): Promise<VerifiedFile> {
    if (pending.location !== completion.location) throw unprocessable(`media[content][upload_location] must be ${pending.location}, as returned by step 1`, false);
    if (pending.expires_at <= nowIso()) throw unprocessable('this upload has expired: start again with step 1', false);
    const declaredSize = Number(pending.declared_size);
    if (completion.fileSize !== undefined && completion.fileSize !== declaredSize) {
      throw unprocessable(`media[content][file_size] is ${completion.fileSize} but step 1 declared ${declaredSize}`, false);
    }
    const incoming = pending.storage_key;
    const stored = await this.storage.stat(incoming);
    // Missing: never sent, or a concurrent step 3 took it a moment ago (MediaService.raceLost tells which).
    if (!stored) throw new ObjectGone(incoming);
    if (stored.size !== declaredSize) {
      await this.storage.delete([incoming]);
      throw unprocessable(`the upload location received ${stored.size} bytes but the file has ${declaredSize}: send it again (step 2)`, false);
    }
    return this.storeObject(media, { key: incoming, size: declaredSize, version: stored.version }, pending.file_name);
  }

  /**
   * An object already in the store, checked where it lies (sniffed type and facts from its
   * bytes, that version only) and moved to a fresh original key with the type it really has:
   * step 3's end, and the studio's resumable uploads to S3. Throws ObjectGone when the object
   * went or changed meanwhile.
   */
  private async storeObject(media: UploadingMedia, source: { key: string; size: number; version?: string }, fileName: string): Promise<VerifiedFile> {
    const inspection = await inspectStoredObject(this.storage, source.key, source.version);
    const file: VerifiedFile = {
      storageKey: newOriginalKey(media.uuid),
      size: source.size,
      mimeType: inspection.type.mimeType,
      fileName,
      facts: inspection.facts,
    };
    await this.files.recordUnpublished(file.storageKey);
    try {
      await this.storage.promote(source.key, file.storageKey, file.mimeType, source.version);
    } catch (err) {
      await this.files.remove([file.storageKey]);
      throw err;
    }
    return file;
  }

  /**
   * A direct upload: the file part is streamed to a temporary file (never
   * buffered whole), checked as in step 3, and stored at a fresh key.
   * `request`: the HTTP request the part belongs to (its end is watched).
   */
  async receiveDirect(media: UploadingMedia & { fileName: string }, part: IncomingFile, request?: IncomingMessage): Promise<VerifiedFile> {
    const received = await receiveToTempFile(part.stream, this.settings.tmpDir, this.settings.config.maxUploadBytes, request);
    try {
      // Its size is known only now: checked before the file is kept.
      await this.quota.require(media.owner_id, received.size, media.id);
      return await this.storeLocalFile(media, received, sanitizeFileName(part.fileName || media.fileName));
    } finally {
      await rm(received.path, { force: true });
    }
  }

  /**
   * A complete file that another path received (the studio's tus endpoint), checked against the
   * size limit and then as the path it arrived by is: a file on this machine as a direct upload
   * (sniffed, read, put into the store; the local store takes the file itself, with S3 the caller
   * removes it), an object already in the store as step 3 checks one (sniffed and read where it
   * lies, copied to its original key, the source removed). Throws ObjectGone when such an object
   * went or changed meanwhile.
   */
  async takeStored(media: UploadingMedia & { fileName: string }, source: StoredSource, contentProbe?: string): Promise<VerifiedFile> {
    if (source.size > this.settings.config.maxUploadBytes) throw unprocessable(`the file is larger than the ${this.settings.config.maxUploadBytes} bytes allowed`, true);
    const fileName = sanitizeFileName(media.fileName);
    if ('key' in source) {
      if (source.size === 0) throw unprocessable('the file is empty', true);
      return { ...(await this.storeObject(media, source, fileName)), contentProbe };
    }
    return { ...(await this.storeLocalFile(media, source, fileName)), contentProbe };
  }

  /** The SHA-256 of every byte of the stored file `key` (probe.ts, wholeDigest); undefined when it is gone. */
  async digestOf(key: string, size: number): Promise<string | undefined> {
    try {
      return await wholeDigest(size, async (start, end) => {
        const body = await this.storage.read(key, { start, end });
        if (!body) throw new ObjectGone(key);
        return body;
      });
    } catch (err) {
      if (err instanceof ObjectGone) return undefined;
      throw err;
    }
  }

  /** A complete file on this machine: sniffed, read for its facts, moved into the store under a fresh original key. */
  private async storeLocalFile(media: UploadingMedia, received: { path: string; size: number }, fileName: string): Promise<VerifiedFile> {
    if (received.size === 0) throw unprocessable('the file is empty', true);
    const inspection = await inspectLocalFile(received.path);
    const file: VerifiedFile = {
      storageKey: newOriginalKey(media.uuid),
      size: received.size,
      mimeType: inspection.type.mimeType,
      fileName,
      facts: inspection.facts,
    };
    await this.files.recordUnpublished(file.storageKey);
    try {
      await this.storage.putFile(file.storageKey, received.path, received.size, file.mimeType);
    } catch (err) {
      await this.files.remove([file.storageKey]);
      throw err;
    }
    return file;
  }

  /**
   * Step 2 at the service's own upload target (locations `local` and
   * `local-raw`). The signed policy is the authorisation, and it is good once,
   * for a pending upload only: its key must be the incoming key of a pending
   * upload before a byte of the body is read, and the file lands only where
   * nothing landed yet. The body is streamed to a temporary file, checked
   * against the policy's size range, then put into the store in one piece.
   */
  async receive(req: StepTwoRequest, body: Readable | undefined, request?: IncomingMessage): Promise<ReceivedFile> {
    const policy = verifyPolicy(req.policy, req.signature, this.settings.secret);
    if (req.form) {
      if (req.form.key !== policy.key) throw new ApiError('forbidden', 'key does not match the upload policy');
      const contentType = req.form.contentType;
      if (contentType !== undefined && policy.contentType !== undefined && contentType.toLowerCase() !== policy.contentType.toLowerCase()) {
        throw new ApiError('forbidden', `Content-Type must be ${policy.contentType}, as given in the upload parameters`);
      }
    }
    if (!body) throw badRequest('no file: send the upload parameters first, then the file');
    if (req.announcedBytes !== undefined) {
      if (req.announcedBytes > policy.maxSize + (req.form ? MULTIPART_OVERHEAD : 0)) throw tooLarge(policy);
      if (req.announcedBytes < policy.minSize) throw tooSmall(policy);
    }
    // A completed, replaced, expired or deleted upload no longer takes a file: a replay of its policy must not write anything anywhere.
    if (!(await this.repo.isPending(policy.key, nowIso()))) {
      throw conflict('this upload is no longer pending (completed, replaced, expired or its media deleted): start again with step 1');
    }
    const received = await receiveToTempFile(body, this.settings.tmpDir, policy.maxSize, request).catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 413) throw tooLarge(policy);
      throw err;
    });
    try {
      if (received.size < policy.minSize) throw tooSmall(policy);
      // Never over a file that already landed: step 3 may be checking it right now.
      if (!(await this.storage.putFileExclusive(policy.key, received.path, received.size))) {
        throw conflict('this upload already received its file: complete it (step 3), or start again with step 1 to send another');
      }
    } finally {
      await rm(received.path, { force: true });
    }
    return { key: policy.key, size: received.size };
  }

  /**
   * Uploads whose file never arrived an hour after step 1 expire now (issue 29): their declared
   * size held the account's quota for nothing. The sweep of abandoned uploads then ends them as
   * any expired one. Returns how many.
   */
  async expireIdle(now: Date): Promise<number> {
    const cutoff = new Date(now.getTime() - IDLE_UPLOAD_MS).toISOString();
    const at = now.toISOString();
    let expired = 0;
    let after = 0;
    for (;;) {
      const idle = await this.repo.idle(cutoff, at, after, SWEEP_BATCH);
      const empty: number[] = [];
      for (const u of idle) if (!(await this.storage.stat(u.storage_key))) empty.push(u.id);
      await this.repo.expireAt(empty, at);
      expired += empty.length;
      if (idle.length < SWEEP_BATCH) return expired;
      after = idle[idle.length - 1].id;
    }
  }

  /** Incoming objects older than the grace period that no pending upload points to; returns how many went. */
  async sweepIncoming(now: Date): Promise<number> {
    const before = now.getTime() - INCOMING_GRACE_MS;
    let removed = 0;
    for await (const page of this.storage.list(INCOMING_PREFIX)) {
      const old = page.filter((o) => o.modifiedAt.getTime() <= before).map((o) => o.key);
      for (let i = 0; i < old.length; i += SWEEP_BATCH) {
        const keys = old.slice(i, i + SWEEP_BATCH);
        const waitedFor = await this.repo.pendingKeys(keys);
        const orphans = keys.filter((k) => !waitedFor.has(k));
        await this.storage.delete(orphans);
        removed += orphans.length;
      }
    }
    return removed;
  }

  /** Temporary files of processes that no longer run, and any older than the upload expiry; returns how many went. */
  sweepTempFiles(now: number): Promise<number> {
    return sweepTempFiles(this.settings.tmpDir, now - this.settings.config.uploadExpirySeconds * 1000);
  }
}

function tooLarge(policy: UploadPolicy): ApiError {
  return new ApiError('payload_too_large', `the file is larger than the ${policy.maxSize} bytes this upload allows`);
}

function tooSmall(policy: UploadPolicy): ApiError {
  return badRequest(`the file is smaller than the ${policy.minSize} bytes this upload expects`);
}
