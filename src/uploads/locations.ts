// Upload locations (step 1's `upload-location`) and the targets they stand for: `s3` (presigned
// POST to the object store), `local` (multipart POST to this service), `local-raw` (raw PUT to a
// self-authorising URL, for clients with the `raw` capability). The first not listed in
// failed_locations wins. The table and the fallbacks: docs/uploads.md, "Locations".
import type { Config } from '../config.js';
import type { StorageBackend, UploadSpec, UploadTarget } from '../file-storage/backend.js';
import { signPolicy } from '../file-storage/policy.js';

export type UploadLocation = 's3' | 'local' | 'local-raw';

export const LOCAL_UPLOAD_PATH = '/uploads/local.xml';
export const RAW_UPLOAD_PATH = '/uploads/raw.xml';

/** Locations in order of preference for this store and client. */
export function candidateLocations(storage: StorageBackend, rawCapable: boolean): UploadLocation[] {
  const out: UploadLocation[] = [];
  if (storage.directPostTarget) out.push('s3');
  out.push('local');
  if (rawCapable) out.push('local-raw');
  return out;
}

/** The first candidate the client has not seen fail; when every one failed, the first (failures may be transient). */
export function chooseLocation(candidates: readonly UploadLocation[], failed: readonly string[]): UploadLocation {
  const failedSet = new Set(failed.map((f) => f.trim().toLowerCase()));
  return candidates.find((c) => !failedSet.has(c)) ?? candidates[0];
}

export async function uploadTarget(
  location: UploadLocation,
  spec: UploadSpec,
  storage: StorageBackend,
  secret: Buffer,
  config: Pick<Config, 'publicUrl'>,
): Promise<UploadTarget> {
  if (location === 's3') {
    if (!storage.directPostTarget) throw new Error('the object store has no direct upload target');
    return storage.directPostTarget(spec);
  }
  const signed = signPolicy(
    { key: spec.key, expires: Math.ceil(spec.expiresAt.getTime() / 1000), minSize: spec.minSize, maxSize: spec.maxSize, contentType: spec.contentType },
    secret,
  );
  if (location === 'local-raw') {
    const query = new URLSearchParams({ policy: signed.policy, signature: signed.signature });
    return { url: `${config.publicUrl}${RAW_UPLOAD_PATH}?${query}`, method: 'PUT', params: {}, fileParam: '' };
  }
  return {
    url: `${config.publicUrl}${LOCAL_UPLOAD_PATH}`,
    method: 'POST',
    params: { key: spec.key, policy: signed.policy, signature: signed.signature, 'Content-Type': spec.contentType },
    fileParam: 'file',
  };
}
