// Compression of what the HTML faces send (the website's pages and assets, the studio's assets):
// the one reading of Accept-Encoding, and bytes compressed once and kept beside their original.
// The figures behind each effort are in docs/website.md ("What loads at first").
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

export type Coding = 'br' | 'gzip';

/**
 * How hard to compress: `asset` once per process (brotli 11, gzip 9); `cached` once per
 * micro-cached page copy (brotli 5, gzip 6: about 1 ms each on a 40 kB page, brotli 11 takes
 * 100 times that); `fresh` for each request of a page rendered for its visitor (brotli 2, gzip 2:
 * a fraction of a millisecond against the render's few).
 */
export type Effort = 'asset' | 'cached' | 'fresh';
const BROTLI: Record<Effort, number> = { asset: 11, cached: 5, fresh: 2 };
const GZIP: Record<Effort, number> = { asset: 9, cached: 6, fresh: 2 };

/** Below this, compression saves less than a packet and costs a call: sent as it is. */
export const MIN_COMPRESSED_BYTES = 1024;

/** A q-value as RFC 9110 12.4.2 writes it (0, 0.5, 1.000); anything else is not one. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The coding to send for an Accept-Encoding header: brotli or gzip, whichever it gives the higher
 * q (brotli on a tie), when above 0, named or through `*`; else none (the bytes as they are).
 * A malformed part counts as not given; only the first 1000 characters are read (a real header is
 * a few dozen).
 */
export function codingFor(acceptEncoding: string | string[] | undefined): Coding | undefined {
  const header = (Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : (acceptEncoding ?? '')).slice(0, 1000);
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (!name) continue;
    const given = params.find((p) => /^q\s*=/.test(p))?.replace(/^q\s*=\s*/, '');
    const value = given === undefined ? 1 : QVALUE.test(given) ? Number(given) : 0;
    q.set(name === 'x-gzip' ? 'gzip' : name, value);
  }
  const of = (name: Coding) => q.get(name) ?? q.get('*') ?? 0;
  const br = of('br');
  const gzip = of('gzip');
  if (br > 0 && br >= gzip) return 'br';
  return gzip > 0 ? 'gzip' : undefined;
}

/** The bytes compressed in one coding at one effort. */
export function compress(body: Buffer, coding: Coding, effort: Effort): Buffer {
  if (coding === 'gzip') return gzipSync(body, { level: GZIP[effort] });
  return brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: BROTLI[effort], [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } });
}

/** Whether an If-None-Match header names this entity tag (the weak comparison RFC 9110 13.1.2 asks for), or is `*`. */
export function matchesEtag(ifNoneMatch: string, etag: string): boolean {
  const tag = etag.replace(/^W\//, '');
  return ifNoneMatch
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === '*' || t === tag);
}

/** Bytes and their compressed copies, each made on its first request and kept with them. */
export class Encoded {
  private readonly made: Partial<Record<Coding, Buffer>> = {};
  private hash: string | undefined;

  constructor(
    readonly body: Buffer,
    private readonly effort: Effort,
  ) {}

  /** What to send for `accept-encoding`: a compressed copy when the client takes one, else the bytes; tiny bodies as they are. */
  for(acceptEncoding: string | string[] | undefined): { body: Buffer; coding?: Coding } {
    const coding = this.body.length < MIN_COMPRESSED_BYTES ? undefined : codingFor(acceptEncoding);
    if (!coding) return { body: this.body };
    return { body: (this.made[coding] ??= compress(this.body, coding, this.effort)), coding };
  }

  /** A strong entity tag per coding (RFC 9110 8.8.3: each coding is its own representation), named by the bytes' hash. */
  etag(coding: Coding | undefined): string {
    this.hash ??= createHash('sha256').update(this.body).digest('base64url').slice(0, 22);
    return `"${this.hash}${coding ? `-${coding}` : ''}"`;
  }
}
