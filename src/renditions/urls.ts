// Addresses of stored files for visitors. A rendition that everyone may see is
// served at its content-addressed key, cacheable for ever. Anything else (a
// rendition of a protected gallery, a comp, an original) is reachable only by a
// signed address that names the visitor and expires, so a copied address
// stops working. The signing key is derived from the upload secret, so every
// process that shares UPLOAD_SECRET (or DATA_DIR) agrees on it.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** Storage keys are ours (letters, digits, dashes, dots, underscores and slashes), never a client's text. */
export const FILE_KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,254}$/;

export type FileAccess =
  /** No signature: the file may be served only if it is public. */
  | { kind: 'unsigned' }
  | { kind: 'signed'; visitor: string; expiresAt: number }
  | { kind: 'expired' }
  | { kind: 'invalid' };

export class FileUrls {
  private readonly key: Buffer;
  private readonly base: () => string;

  /** `baseUrl` is PUBLIC_URL (or reads it at each use: it may be set once the port is known); `secret` the upload secret. */
  constructor(secret: Buffer, baseUrl: string | (() => string)) {
    this.key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'mps file urls', 32));
    this.base = typeof baseUrl === 'string' ? () => baseUrl : baseUrl;
  }

  private get baseUrl(): string {
    return this.base();
  }

  /** The permanent address of a public, content-addressed file. */
  public(key: string): string {
    return `${this.baseUrl}/files/${key}`;
  }

  /** An address for one visitor, good until `expiresAt`. `download` asks for Content-Disposition: attachment. */
  signed(key: string, expiresAt: Date, visitor: string, download = false): string {
    const e = Math.floor(expiresAt.getTime() / 1000);
    const d = download ? '1' : '0';
    return `${this.baseUrl}/files/${key}?e=${e}&v=${encodeURIComponent(visitor)}&d=${d}&s=${this.mac(key, e, visitor, d)}`;
  }

  /** What the query string of a request for `key` proves. */
  check(key: string, query: { e?: string; v?: string; d?: string; s?: string }, now = Date.now()): FileAccess & { download?: boolean } {
    if (query.s === undefined && query.e === undefined && query.v === undefined) return { kind: 'unsigned' };
    const { e, v, s } = query;
    const d = query.d ?? '0';
    if (!e || !/^\d{1,12}$/.test(e) || v === undefined || v.length > 100 || !s || (d !== '0' && d !== '1')) return { kind: 'invalid' };
    const expected = Buffer.from(this.mac(key, Number(e), v, d));
    const given = Buffer.from(s);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { kind: 'invalid' };
    if (Number(e) * 1000 <= now) return { kind: 'expired' };
    return { kind: 'signed', visitor: v, expiresAt: Number(e) * 1000, download: d === '1' };
  }

  private mac(key: string, e: number, visitor: string, d: string): string {
    return createHmac('sha256', this.key).update(`${key}\n${e}\n${visitor}\n${d}`).digest('base64url');
  }
}
