// Upload policies of the service's own upload target, in the manner of an S3
// browser POST: a base64url JSON document that binds the exact object key, an
// expiry and a size range, signed with HMAC-SHA256 under the server secret.
//   policy    = base64url(JSON {key, expires, minSize, maxSize, contentType?})
//   signature = hex(HMAC-SHA256(secret, policy))
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../core/errors.js';

export interface UploadPolicy {
  key: string;
  /** Unix time in seconds after which the policy is refused. */
  expires: number;
  minSize: number;
  maxSize: number;
  contentType?: string;
}

export interface SignedPolicy {
  policy: string;
  signature: string;
}

function hmac(secret: Buffer, encoded: string): Buffer {
  return createHmac('sha256', secret).update(encoded, 'utf8').digest();
}

export function signPolicy(policy: UploadPolicy, secret: Buffer): SignedPolicy {
  const encoded = Buffer.from(JSON.stringify(policy), 'utf8').toString('base64url');
  return { policy: encoded, signature: hmac(secret, encoded).toString('hex') };
}

const forbidden = (message: string) => new ApiError('forbidden', message);

/** Checks signature (constant time), shape and expiry; throws a 403 ApiError otherwise. */
export function verifyPolicy(encoded: string | undefined, signature: string | undefined, secret: Buffer, now = Date.now()): UploadPolicy {
  if (!encoded || !signature) throw forbidden('upload policy and signature are required');
  const given = /^[0-9a-f]{64}$/i.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
  const expected = hmac(secret, encoded);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw forbidden('upload policy signature does not match');
  let policy: UploadPolicy;
  try {
    policy = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as UploadPolicy;
  } catch {
    throw forbidden('upload policy is not valid');
  }
  const wellFormed =
    typeof policy === 'object' && policy !== null &&
    typeof policy.key === 'string' &&
    Number.isInteger(policy.expires) &&
    Number.isInteger(policy.minSize) &&
    Number.isInteger(policy.maxSize) &&
    (policy.contentType === undefined || typeof policy.contentType === 'string');
  if (!wellFormed) throw forbidden('upload policy is not valid');
  if (now / 1000 > policy.expires) throw forbidden('upload policy has expired: start the upload again (step 1)');
  return policy;
}
