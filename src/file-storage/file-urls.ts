// Addresses of stored files for visitors: a rendition everyone may see at its content-addressed key,
// cacheable for ever; anything else only by a signed address that names the visitor and the gallery
// and expires. The key derives from the upload secret, so every process sharing it agrees
// (docs/renditions.md, "What a signed address promises").
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { isUuid } from '../core/uuid.js';

/** Storage keys are ours (letters, digits, dashes, dots, underscores and slashes), never a client's text. */
export const FILE_KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,254}$/;
const STAMP = /^[A-Za-z0-9_-]{1,64}$/;
/** The visitor of a signed address: a pass id, or a sealed address (sealClient), at most 254 bytes of it. */
const MAX_VISITOR_LENGTH = 400;
const SEALED = /^c\.([A-Za-z0-9_-]{40,390})$/;

export type FileAccess =
  /** No signature: the file may be served only if it is public. */
  | { kind: 'unsigned' }
  /**
   * `gallery`: the gallery the file was shown in; the file is served only while its media is
   * published there. `access`: the gallery chain's access stamp at signing (accessStamp below),
   * when the signer gave one; the file is served only while the chain still has it.
   */
  | { kind: 'signed'; visitor: string; gallery: string; access?: string; expiresAt: number }
  | { kind: 'expired' }
  | { kind: 'invalid' };

/** A public, content-addressed file's path (host-relative; no secret in it). */
export const publicFilePath = (key: string) => `/files/${key}`;

export class FileUrls {
  private readonly key: Buffer;
  private readonly stampKey: Buffer;
  private readonly sealKey: Buffer;
  private readonly base: () => string;

  /** `baseUrl` is PUBLIC_URL (or reads it at each use: it may be set once the port is known); `secret` the upload secret. */
  constructor(secret: Buffer, baseUrl: string | (() => string)) {
    this.key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'mps file urls', 32));
    this.stampKey = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'mps file access stamp', 32));
    this.sealKey = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'mps file visitor seal', 32));
    this.base = typeof baseUrl === 'string' ? () => baseUrl : baseUrl;
  }

  private get baseUrl(): string {
    return this.base();
  }

  /** The permanent address of a public, content-addressed file. */
  public(key: string): string {
    return `${this.baseUrl}${publicFilePath(key)}`;
  }

  /**
   * An address for one visitor, for a file of a media shown in `gallery` (its UUID), good until
   * `expiresAt`. `download` asks for Content-Disposition: attachment. `access`: the gallery
   * chain's access stamp (the pages always give it), which a change of who may see it revokes.
   */
  signed(key: string, expiresAt: Date, visitor: string, gallery: string, download = false, access?: string): string {
    const e = Math.floor(expiresAt.getTime() / 1000);
    const d = download ? '1' : '0';
    const a = access === undefined ? '' : `&a=${access}`;
    return `${this.baseUrl}/files/${key}?e=${e}&v=${encodeURIComponent(visitor)}&g=${gallery}${a}&d=${d}&s=${this.mac(key, e, visitor, gallery, access, d)}`;
  }

  /** What the query string of a request for `key` proves. */
  check(key: string, query: { e?: string; v?: string; g?: string; a?: string; d?: string; s?: string }, now = Date.now()): FileAccess & { download?: boolean } {
    if (query.s === undefined && query.e === undefined && query.v === undefined && query.g === undefined && query.a === undefined) return { kind: 'unsigned' };
    const { e, v, g, a, s } = query;
    const d = query.d ?? '0';
    if (!e || !/^\d{1,12}$/.test(e) || v === undefined || v.length > MAX_VISITOR_LENGTH || !g || !isUuid(g) || (a !== undefined && !STAMP.test(a)) || !s || (d !== '0' && d !== '1')) {
      return { kind: 'invalid' };
    }
    const expected = Buffer.from(this.mac(key, Number(e), v, g, a, d));
    const given = Buffer.from(s);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { kind: 'invalid' };
    if (Number(e) * 1000 <= now) return { kind: 'expired' };
    return { kind: 'signed', visitor: v, gallery: g, access: a, expiresAt: Number(e) * 1000, download: d === '1' };
  }

  /**
   * The stamp of a gallery chain's access (gate.ts accessState) that signed addresses carry:
   * keyed, so an address (which anyone it is forwarded to can read) does not let them test
   * guesses of who is on an access list; 96 bits.
   */
  accessStamp(state: string): string {
    return createHmac('sha256', this.stampKey).update(state).digest('base64url').slice(0, 16);
  }

  /**
   * The visitor of a download address when their pass proves an e-mail address: the address
   * encrypted (AES-256-GCM), so that /files can record who downloaded (docs/delivery.md
   * "Activity") while the address itself appears in no URL, log or proxy. The nonce is derived
   * from the address: the same visitor gets the same address within an expiry period.
   */
  sealClient(email: string): string {
    const nonce = createHmac('sha256', this.sealKey).update(email).digest().subarray(0, 12);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, nonce);
    const body = Buffer.concat([cipher.update(email, 'utf8'), cipher.final()]);
    return `c.${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  /** The address sealed in a visitor by sealClient; undefined for a pass id or anything else. */
  openClient(visitor: string): string | undefined {
    const m = SEALED.exec(visitor);
    if (!m) return undefined;
    const raw = Buffer.from(m[1], 'base64url');
    if (raw.length < 12 + 16 + 3) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.sealKey, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }

  private mac(key: string, e: number, visitor: string, gallery: string, access: string | undefined, d: string): string {
    // 'g1': addresses signed before the gallery was part of them do not verify. An address
    // without a stamp cannot be made from one with it by dropping `a` (presence is signed too).
    const a = access === undefined ? '0' : `1${access}`;
    return createHmac('sha256', this.key).update(`g1\n${key}\n${e}\n${visitor}\n${gallery}\n${a}\n${d}`).digest('base64url');
  }
}
