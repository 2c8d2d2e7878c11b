// Object keys of stored files. Generated here only, from the media UUID and
// random bytes, so no user input ever reaches a path or an S3 key.
import { randomBytes } from 'node:crypto';

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** A fresh key for an original file of a media: `originals/<media-uuid>/<random>`. */
export function newOriginalKey(mediaUuid: string): string {
  if (!/^[0-9a-f-]{36}$/i.test(mediaUuid)) throw new Error(`not a media uuid: ${mediaUuid}`);
  return `originals/${mediaUuid.toLowerCase()}/${randomBytes(16).toString('hex')}`;
}

/** Keys are relative, slash-separated, with no empty, dot or dot-dot segments. */
export function isSafeKey(key: string): boolean {
  return key.length <= 512 && SAFE_KEY.test(key);
}
