// CONTRACT between the media routes (src/media/routes.ts) and the upload
// machinery (this file, src/storage/*). The uploads engineer implements the
// bodies; the media engineer calls these from the /medias routes.
import type { Selectable } from 'kysely';
import type { RequestContext, UploadedFile } from '../http/context.js';
import type { Params } from '../http/params.js';
import type { XmlObject } from '../http/xml.js';
import type { MediasTable } from '../store/schema.js';

export type MediaRow = Selectable<MediasTable>;

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
  void ctx;
  void media;
  void params;
  throw new Error('beginUpload: not implemented yet');
}

/**
 * Step 3: checks that the object arrived whole (size as declared), sniffs its real type
 * from the bytes (refused with stop-with-error when not an accepted image/video/document),
 * reads metadata (dimensions, capture date via exifr when the client sent none), moves it
 * into place, and makes the media live (status 'live', file_size, mime_type, storage_key …).
 * Returns the fields to merge into the reply's `<media>` (at least mime-type, file-size).
 */
export async function completeUpload(ctx: RequestContext, media: MediaRow, params: Params): Promise<XmlObject> {
  void ctx;
  void media;
  void params;
  throw new Error('completeUpload: not implemented yet');
}

/**
 * Direct upload: the multipart `media[content]` part is the file itself (POST /medias.xml
 * or PUT /medias/<uuid>.xml). Streams it to storage (never buffered whole), verifies the
 * type as in step 3, and makes the media live. Returns fields to merge into `<media>`.
 */
export async function storeDirectUpload(ctx: RequestContext, media: MediaRow, file: UploadedFile): Promise<XmlObject> {
  void ctx;
  void media;
  void file;
  throw new Error('storeDirectUpload: not implemented yet');
}

/** Removes a media's stored files (original and renditions); called after its row is deleted. */
export async function deleteStoredFiles(ctx: Pick<RequestContext, 'services'>, storageKeys: string[]): Promise<void> {
  void ctx;
  void storageKeys;
  throw new Error('deleteStoredFiles: not implemented yet');
}
