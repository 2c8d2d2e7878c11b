// A gallery's download controls (docs/delivery.md "Download controls"): the PIN asked first, the
// photos each client may download, web-size or original files. Pure rules shared by the pages,
// the download route, archives and /files, so the page and the file agree on every decision.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FileUrls } from '../../file-storage/file-urls.js';
import type { SiteRendition } from '../repository.js';
import type { VisitorPass } from '../signin/pass.js';

export interface DownloadControls {
  /** 4–8 digits asked before any download here; null: none. */
  pin: string | null;
  /** Distinct photos each client may download here; null: no limit. */
  limit: number | null;
  /** What the right to the original gives: the original, or the web rendition. */
  size: 'web' | 'original';
}

export const NO_CONTROLS: DownloadControls = { pin: null, limit: null, size: 'original' };
/** The web size's long edge (the ladder's 2048 rung: sRGB JPEG, no metadata but copyright and author). */
export const WEB_EDGE = 2048;

export function controlsOf(g: { download_pin: string | null; download_limit: number | null; download_size: string | null }): DownloadControls {
  return { pin: g.download_pin, limit: g.download_limit, size: g.download_size === 'web' ? 'web' : 'original' };
}

/** Whether downloads here go through the download route (PIN, limit) or are plainly signed. */
export function guarded(c: DownloadControls): boolean {
  return c.pin !== null || c.limit !== null || c.size === 'web';
}

/**
 * A pass's proof that its visitor gave this gallery's PIN as it is now: keyed (the pass is
 * readable by its visitor and a 4-digit PIN's plain hash is guessed in a moment), so the cookie
 * does not tell the PIN, and a new PIN opens nothing given before.
 */
export function pinEntry(urls: Pick<FileUrls, 'accessStamp'>, galleryUuid: string, pin: string): string {
  return `${galleryUuid}:${urls.accessStamp(`download pin\n${galleryUuid}\n${pin}`)}`;
}

export function pinOpens(urls: Pick<FileUrls, 'accessStamp'>, pass: VisitorPass | undefined, galleryUuid: string, pin: string | null): boolean {
  if (pin === null) return true;
  return pass?.pins?.includes(pinEntry(urls, galleryUuid, pin)) ?? false;
}

/** The PIN given against the stored one, in constant time whatever their lengths. */
export function samePin(given: string, stored: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(stored).digest();
  return timingSafeEqual(a, b);
}

/**
 * Whom a download limit counts: a client whose pass proves an address (an invitation, a sign-in
 * on an access list) by that address, across their devices; anyone else by their pass (the
 * browser's session on the website). A visitor without a pass is given one before a limited download.
 */
export function clientKeyOf(pass: VisitorPass): string {
  return pass.email ? `email:${pass.email}` : `pass:${pass.id}`;
}

/** The same key from a signed download address's visitor (a sealed address or a pass id); undefined for no one. */
export function clientKeyOfVisitor(urls: Pick<FileUrls, 'openClient'>, visitor: string): string | undefined {
  const email = urls.openClient(visitor);
  if (email) return `email:${email}`;
  return visitor === 'anonymous' || visitor === '' ? undefined : `pass:${visitor}`;
}

/** The web-size file: the 2048 JPEG, else the largest JPEG (a smaller photo), else the largest rendition. */
export function webRendition<R extends SiteRendition>(rs: readonly R[]): R | undefined {
  const pool = rs.filter((r) => r.name !== 'poster');
  const jpeg = pool.filter((r) => r.mime_type === 'image/jpeg');
  const from = jpeg.length > 0 ? jpeg : pool;
  return from.find((r) => r.name === String(WEB_EDGE)) ?? [...from].filter((r) => Math.max(r.width, r.height) <= WEB_EDGE).sort((a, b) => b.width - a.width)[0] ?? [...from].sort((a, b) => a.width - b.width)[0];
}
