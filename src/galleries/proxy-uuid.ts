// <user-medias-gallery-proxy-uuid>: a second, stable identifier of a gallery,
// derived from its UUID (RFC 4122 version 5, SHA-1), so it needs no storage
// and is the same for every reply about the gallery, the root included.
import { createHash } from 'node:crypto';

// Fixed namespace of this service's gallery proxies (a random UUID chosen once).
const NAMESPACE = Buffer.from('6f1d2b8e4c0a4b7f9d3e5a1c2b7e8f90', 'hex');

export function mediasProxyUuid(galleryUuid: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(galleryUuid.toLowerCase()).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
