// CONTRACT between the media routes (src/media/routes.ts) and the upload
// machinery (this file, src/storage/*). The uploads engineer implements the
// bodies; the media engineer calls these from the /medias routes.
// How uploads work end to end: docs/uploads.md.
import { rm } from 'node:fs/promises';
import type { RequestContext, UploadedFile } from '../http/context.js';
import { ApiError, missing } from '../http/errors.js';
import type { Params } from '../http/params.js';
import type { XmlObject } from '../http/xml.js';
import { nowIso } from '../store/db.js';
import { ObjectGone } from '../storage/backend.js';
import { recordFileDeletions, recordUnpublishedFile, removeRecordedFiles } from '../storage/file-deletions.js';
import { newIncomingKey, newOriginalKey } from '../storage/object-keys.js';
import { receiveToTempFile } from '../storage/temp-file.js';
import { sanitizeFileName } from './file-names.js';
import { inspectLocalFile, inspectStoredObject, type Inspection } from './inspect-upload.js';
import { deleteNeverLiveMedia, findPendingUpload, replacePendingUpload } from './pending-uploads.js';
import { publishUpload, type VerifiedFile } from './publish-upload.js';
import { normalizeDeclaredType } from './sniff.js';
import { candidateLocations, chooseLocation, uploadTarget } from './upload-locations.js';
import type { MediaRow } from '../store/schema.js';

/** `media[content][upload_location]` is REQUEST: step 1 (POST /medias.xml, or PUT of an existing media to replace its file). */
export function isUploadRequest(params: Params): boolean {
  return params.str('media[content][upload_location]') === 'REQUEST';
}

/** `media[content][upload_location]` names a location returned by step 1: step 3 on PUT /medias/<uuid>.xml. */
export function isUploadCompletion(params: Params): boolean {
  const v = params.str('media[content][upload_location]');
  return v !== undefined && v !== '' && v !== 'REQUEST';
}

/** Parameter names the upload steps accept, for the routes' whitelists. */
export const UPLOAD_PARAMS = [
  'media[content][upload_location]',
  'media[content][file_name]',
  'media[content][file_size]',
  'media[content][mime_type]',
  'media[content][capabilities]',
  'media[content][failed_locations]',
  'media[content][upload_duration]',
] as const;

/** How long one step-2 authorisation lives, at most (never beyond the pending upload). */
const TARGET_LIFETIME_MS = 3600 * 1000;

const unprocessable = (message: string, stopWithError: boolean) => new ApiError('unprocessable', message, { stopWithError });

/**
 * Step 1 (after the media row exists, status 'pending' for a new media): validates the
 * declared file (name, size, type), chooses a storage location (honouring
 * failed_locations), records the pending upload and returns the fields to merge into
 * the reply's `<media>`: file-name, mime-type, upload-location, upload-url,
 * upload-method, upload-params (an XmlObject, one element per parameter, named exactly
 * as the parameter), upload-file-param. Throws ApiError 422 (with stopWithError when
 * pointless to retry) on a refused declaration.
 */
export async function beginUpload(ctx: RequestContext, media: MediaRow, params: Params): Promise<XmlObject> {
  const { config, db } = ctx.services;
  const { storage, uploadSecret: secret } = ctx.services;
  const fileName = sanitizeFileName(params.required('media[content][file_name]'));
  const size = params.int('media[content][file_size]');
  if (size === undefined) throw missing('media[content][file_size]');
  if (size < 1) throw unprocessable('media[content][file_size] must be at least 1 byte: empty files are not media', true);
  if (size > config.maxUploadBytes) throw unprocessable(`the file is larger than the ${config.maxUploadBytes} bytes allowed`, true);
  // Mandatory in step 1 (spec 4.7), even though the bytes decide in the end.
  const declared = normalizeDeclaredType(params.required('media[content][mime_type]'), fileName);
  if (declared.refused) throw unprocessable(`files of type ${declared.mimeType} are not accepted: send images, videos or PDF documents`, true);

  const capabilities = params.csvList('media[content][capabilities]') ?? [];
  const failed = params.csvList('media[content][failed_locations]') ?? [];
  const location = chooseLocation(candidateLocations(storage, capabilities.includes('raw')), failed);

  const now = Date.now();
  const expiresAt = new Date(now + config.uploadExpirySeconds * 1000);
  // Step 2 writes here only; step 3 moves the verified file to a key no policy names.
  const key = newIncomingKey(media.uuid);
  const target = await uploadTarget(
    location,
    // The exact declared size: a different file is refused at step 2 where the store enforces it, and at step 3 always.
    { key, contentType: declared.mimeType, minSize: size, maxSize: size, expiresAt: new Date(Math.min(now + TARGET_LIFETIME_MS, expiresAt.getTime())) },
    storage,
    secret,
    config,
  );

  const replaced = await replacePendingUpload(db, {
    media_id: media.id,
    location,
    storage_key: key,
    file_name: fileName,
    declared_size: size,
    declared_mime: declared.mimeType,
    expires_at: expiresAt.toISOString(),
    created_at: nowIso(),
  });
  if (media.status === 'pending' && media.file_name !== fileName) {
    await db.updateTable('medias').set({ file_name: fileName, updated_at: nowIso() }).where('id', '=', media.id).execute();
  }
  if (replaced) await removeRecordedFiles(ctx.services, [replaced]);

  return {
    'file-name': fileName,
    'mime-type': declared.mimeType,
    'upload-location': location,
    'upload-url': target.url,
    'upload-method': target.method,
    'upload-params': { ...target.params },
    'upload-file-param': target.fileParam,
  };
}

/**
 * Step 3: checks that the object arrived whole (size as declared), sniffs its real type
 * from the bytes (refused with stop-with-error when not an accepted image/video/document),
 * reads metadata (dimensions, capture date via exifr when the client sent none), moves it
 * into place, and makes the media live (status 'live', file_size, mime_type, storage_key …).
 * Returns the fields to merge into the reply's `<media>` (at least mime-type, file-size).
 */
export async function completeUpload(ctx: RequestContext, media: MediaRow, params: Params): Promise<XmlObject> {
  const { db } = ctx.services;
  const { storage } = ctx.services;
  const location = params.required('media[content][upload_location]');
  const sentSize = params.int('media[content][file_size]');
  const pending = await findPendingUpload(db, media.id);
  if (!pending) {
    // A repeated step 3 of an upload that is already complete answers as the first one did.
    if (media.status === 'live' && media.storage_key && (sentSize === undefined || sentSize === Number(media.file_size))) return liveFields(media);
    throw unprocessable('no upload is pending for this media: start again with step 1', false);
  }
  if (pending.location !== location) throw unprocessable(`media[content][upload_location] must be ${pending.location}, as returned by step 1`, false);
  if (pending.expires_at <= nowIso()) throw unprocessable('this upload has expired: start again with step 1', false);
  const declaredSize = Number(pending.declared_size);
  if (sentSize !== undefined && sentSize !== declaredSize) {
    throw unprocessable(`media[content][file_size] is ${sentSize} but step 1 declared ${declaredSize}`, false);
  }

  const incoming = pending.storage_key;
  const stored = await storage.stat(incoming);
  if (!stored) throw notArrived();
  if (stored.size !== declaredSize) {
    await storage.delete([incoming]);
    throw unprocessable(`the upload location received ${stored.size} bytes but the file has ${declaredSize}: send it again (step 2)`, false);
  }
  let inspection: Inspection;
  try {
    inspection = await inspectStoredObject(storage, incoming, stored.version);
  } catch (err) {
    if (err instanceof ObjectGone) return raceLost(ctx, media.id);
    if (err instanceof ApiError && err.extra.stopWithError) {
      // Pointless to retry: the upload is over, its bytes go, and so does a media that never had a file.
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('uploads').where('id', '=', pending.id).execute();
        await deleteNeverLiveMedia(trx, media.id);
        await recordFileDeletions(trx, [incoming]);
      });
      await removeRecordedFiles(ctx.services, [incoming]);
    }
    throw err;
  }
  // The verified bytes move to a fresh key that no upload policy names, with the type they really have.
  const file: VerifiedFile = {
    storageKey: newOriginalKey(media.uuid),
    size: declaredSize,
    mimeType: inspection.type.mimeType,
    fileName: pending.file_name,
    facts: inspection.facts,
  };
  await recordUnpublishedFile(db, file.storageKey);
  let outcome;
  try {
    await storage.promote(incoming, file.storageKey, file.mimeType, stored.version);
    outcome = await publishUpload(ctx.services, media.id, file, pending.id);
  } catch (err) {
    await removeRecordedFiles(ctx.services, [file.storageKey]);
    if (err instanceof ObjectGone) return raceLost(ctx, media.id);
    throw err;
  }
  if (outcome === 'already-completed') {
    const now = await db.selectFrom('medias').selectAll().where('id', '=', media.id).executeTakeFirst();
    if (now) return liveFields(now);
  }
  return { 'file-name': file.fileName, 'mime-type': file.mimeType, 'file-size': file.size };
}

function notArrived(): ApiError {
  return unprocessable('the file has not arrived at the upload location: send it (step 2), then complete the upload', false);
}

/**
 * The incoming object went (or changed) while step 3 looked at it: a concurrent
 * step 3 took it, answered as that one did, or a replay rewrote it: send again.
 */
async function raceLost(ctx: RequestContext, mediaId: number): Promise<XmlObject> {
  const { db } = ctx.services;
  if (!(await findPendingUpload(db, mediaId))) {
    const now = await db.selectFrom('medias').selectAll().where('id', '=', mediaId).executeTakeFirst();
    if (now?.status === 'live') return liveFields(now);
  }
  throw notArrived();
}

/**
 * Direct upload: the multipart `media[content]` part is the file itself (POST /medias.xml
 * or PUT /medias/<uuid>.xml). Streams it to storage (never buffered whole), verifies the
 * type as in step 3, and makes the media live. Returns fields to merge into `<media>`.
 */
export async function storeDirectUpload(ctx: RequestContext, media: MediaRow, file: UploadedFile): Promise<XmlObject> {
  const { config, db } = ctx.services;
  const { storage, tmpDir } = ctx.services;
  const received = await receiveToTempFile(file.stream, tmpDir, config.maxUploadBytes, ctx.req.raw).catch((err: unknown) => {
    // The rest of an oversized body is not read: the connection ends with the reply.
    if (err instanceof ApiError && err.status === 413) ctx.reply.header('connection', 'close');
    throw err;
  });
  try {
    if (received.size === 0) throw unprocessable('the file is empty', true);
    const inspection = await inspectLocalFile(received.path);
    const fileName = sanitizeFileName(file.fileName || media.file_name);
    const verified: VerifiedFile = { storageKey: newOriginalKey(media.uuid), size: received.size, mimeType: inspection.type.mimeType, fileName, facts: inspection.facts };
    await recordUnpublishedFile(db, verified.storageKey);
    try {
      await storage.putFile(verified.storageKey, received.path, received.size, verified.mimeType);
      await publishUpload(ctx.services, media.id, verified);
    } catch (err) {
      await removeRecordedFiles(ctx.services, [verified.storageKey]);
      throw err;
    }
    return { 'file-name': fileName, 'mime-type': verified.mimeType, 'file-size': verified.size };
  } finally {
    await rm(received.path, { force: true });
  }
}

/**
 * Removes files whose references a committed transaction dropped (and recorded
 * with recordFileDeletions), and their records. Never throws: what fails stays
 * recorded, and the cleanup sweep removes it later.
 */
export async function deleteStoredFiles(ctx: Pick<RequestContext, 'services'>, storageKeys: string[]): Promise<void> {
  await removeRecordedFiles(ctx.services, storageKeys);
}

function liveFields(media: MediaRow): XmlObject {
  return { 'file-name': media.file_name, 'mime-type': media.mime_type, 'file-size': media.file_size === null ? null : Number(media.file_size) };
}
