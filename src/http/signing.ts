// Application request signing (spec 5.1). Pure functions, shared by the server
// and the client SDK so both sides compute the same text.
import * as crypto from 'node:crypto';
import { createHash } from 'node:crypto';

export const SIGNATURE_WINDOW_MS = 30 * 60 * 1000;

export type SignatureAlgorithm = 'sha1' | 'md5';

/** The five signed lines, each ending with a line feed. */
export function signatureText(method: string, path: string, query: string, secret: string, timestamp: string): string {
  return `${method}\n${path}\n${query}\n${secret}\n${timestamp}\n`;
}

export function computeSignature(
  method: string,
  path: string,
  query: string,
  secret: string,
  timestamp: string,
  algorithm: SignatureAlgorithm = 'sha1',
): string {
  return digest(algorithm, signatureText(method, path, query, secret, timestamp));
}

// crypto.hash (Node 20.12+) digests a string in one call, without a Hash object: every signed request pays this.
// It answers hex in well under half the time it takes to answer a Buffer (Node 20 to 26).
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

function digest(algorithm: SignatureAlgorithm, text: string): string {
  return oneShot ? oneShot(algorithm, text, 'hex') : createHash(algorithm).update(text, 'utf8').digest('hex');
}

/** SHA-1 digests are 40 hex digits, MD5 ones 32: that is how the algorithm is detected. */
export function detectAlgorithm(signature: string): SignatureAlgorithm | undefined {
  if (!/^[0-9a-fA-F]+$/.test(signature)) return undefined;
  if (signature.length === 40) return 'sha1';
  if (signature.length === 32) return 'md5';
  return undefined;
}

export function signatureMatches(
  given: string,
  method: string,
  path: string,
  query: string,
  secret: string,
  timestamp: string,
): boolean {
  const algorithm = detectAlgorithm(given);
  if (!algorithm) return false;
  return sameHex(digest(algorithm, signatureText(method, path, query, secret, timestamp)), given);
}

/**
 * Whether two hex texts of one length stand for the same bytes, in either case, in a time that
 * depends on their length only (every character is compared; no early exit, no branch on a value).
 * Without the two Buffers and timingSafeEqual the digest's comparison cost on every signed request.
 */
function sameHex(expected: string, given: string): boolean {
  if (expected.length !== given.length) return false;
  let diff = 0;
  // 0x20 folds A-F onto a-f and leaves digits as they are (both are hex: detectAlgorithm).
  for (let i = 0; i < expected.length; i++) diff |= (expected.charCodeAt(i) | 0x20) ^ (given.charCodeAt(i) | 0x20);
  return diff === 0;
}

const POSIX = /^\d{1,12}(\.\d+)?$/;
const ISO = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;
const ISO_BASIC = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z|[+-]\d{4})?$/;
const RFC2822 =
  /^(?:[A-Za-z]{3},\s*)?\d{1,2}\s+[A-Za-z]{3}\s+\d{2,4}\s+\d{1,2}:\d{2}(?::\d{2})?\s*(?:[+-]\d{4}|UT|UTC|GMT|Z|[ECMP][SD]T)?(?:\s*\([^)]*\))?$/;

function offsetMinutes(zone: string | undefined): number {
  if (!zone || zone === 'Z' || zone === 'z') return 0;
  const sign = zone[0] === '-' ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  return sign * (hours * 60 + minutes);
}

function fromParts(y: string, mo: string, d: string, h: string, mi: string, s: string | undefined, frac: string | undefined, zone: string | undefined): number | undefined {
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = s === undefined ? 0 : Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  const ms = frac ? Math.round(Number(frac) * 1000) : 0;
  const utc = Date.UTC(Number(y), month - 1, day, hour, minute, second, ms);
  return utc - offsetMinutes(zone) * 60_000;
}

/**
 * Parses the X-Service-Timestamp forms clients send: RFC 2822, ISO 8601 with any
 * offset (no offset means UTC), and POSIX seconds. Returns epoch ms or undefined.
 */
export function parseTimestamp(value: string): number | undefined {
  const v = value.trim();
  if (POSIX.test(v)) return Math.round(Number(v) * 1000);
  let m = ISO.exec(v);
  if (m) return fromParts(m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]);
  m = ISO_BASIC.exec(v);
  if (m) return fromParts(m[1], m[2], m[3], m[4], m[5], m[6], undefined, m[7]);
  if (RFC2822.test(v)) {
    const t = Date.parse(v);
    return Number.isNaN(t) ? undefined : t;
  }
  return undefined;
}

/** RFC 2822 date, the form the spec names first. */
export function rfc2822(date: Date = new Date()): string {
  return date.toUTCString().replace('GMT', '+0000');
}
