// Object keys of stored files. Generated here only, from the media UUID and
// random bytes, so no user input ever reaches a path or an S3 key.
//   incoming/<media-uuid>/<random>   where step 2 of an upload writes; never served
//   originals/<media-uuid>/<random>  a verified original, written by the service only
//   resumable/<upload id>[.info|.part] a studio upload arriving in an S3 store (ids are the service's: UPLOAD_ID)
import { randomBytes } from 'node:crypto';
import { isUuid } from '../core/uuid.js';

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** Every incoming key starts with this; the cleanup sweep lists it. */
export const INCOMING_PREFIX = 'incoming/';

function keyUnder(folder: string, mediaUuid: string): string {
  if (!isUuid(mediaUuid)) throw new Error(`not a media uuid: ${mediaUuid}`);
  return `${folder}/${mediaUuid.toLowerCase()}/${randomBytes(16).toString('hex')}`;
}

/** A fresh key for an original file of a media: `originals/<media-uuid>/<random>`. */
export function newOriginalKey(mediaUuid: string): string {
  return keyUnder('originals', mediaUuid);
}

/** A fresh key for step 2 of an upload to land on: `incoming/<media-uuid>/<random>`. */
export function newIncomingKey(mediaUuid: string): string {
  return keyUnder('incoming', mediaUuid);
}

/** Keys are relative, slash-separated, with no empty, dot or dot-dot segments. */
export function isSafeKey(key: string): boolean {
  return key.length <= 512 && SAFE_KEY.test(key);
}

/**
 * Where the studio's resumable uploads live in an S3 store while they arrive (src/resumable-uploads/tus-s3.ts):
 * `resumable/<upload id>` and its `.info` and `.part`. Outside `incoming/`, whose sweep would take
 * them for orphans; the resumable uploads' own sweep removes them.
 */
export const RESUMABLE_PREFIX = 'resumable/';
