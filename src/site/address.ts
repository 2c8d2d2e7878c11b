// Where a website is being visited, and which return addresses stay on it.
// A website is seen at `${PUBLIC_URL}/sites/<urlname>` or, when it has one,
// at its own host name; a visitor keeps to the address they came by (cookies
// are per host and path).
import { isUuid } from '../core/uuid.js';
import { homeUrl } from '../websites/home-url.js';
import type { SiteWebsite } from './repository.js';

/** The one address type of the website: pages, sign-in, password form and cookies all use it. */
export interface SiteAddress {
  website: SiteWebsite;
  /** Absolute, no trailing slash: `https://photos.example` or `https://svc.example/sites/jane`. */
  home: string;
  /** The home's path as requests name it, no trailing slash: '' on its own host, else `/sites/jane`. */
  homePath: string;
}

/** A urlname as websites are created with it (src/websites/input.ts): anything else names no website, before any query. */
export const URLNAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The website's address as the API announces it (`home-url`): where the links it mails lead. */
export function canonicalAddress(publicUrl: string, website: SiteWebsite): SiteAddress {
  const home = homeUrl(publicUrl, website);
  return { website, home, homePath: new URL(home).pathname.replace(/\/+$/, '') };
}

/** The website visited through the service's own address, `/sites/<urlname>`. */
export function pathAddress(publicUrl: string, website: SiteWebsite): SiteAddress {
  return { website, home: `${publicUrl}/sites/${website.urlname}`, homePath: `/sites/${website.urlname}` };
}

/** The website visited on its own host name. */
export function hostAddress(website: SiteWebsite): SiteAddress {
  return { website, home: `https://${website.hostname!.toLowerCase()}`, homePath: '' };
}

/** The path of the cookie that carries a visitor's pass on this address. */
export function cookiePath(a: SiteAddress): string {
  return a.homePath || '/';
}

export const MAX_BACK_LENGTH = 2048;

/**
 * The one check of a return address, for every form that sends a visitor back
 * (the sign-in form and link, the gallery password form): `basePath` is the
 * home's path, '' at a website's own host name. A browser resolves `//host/…`
 * as another host and `/sites/a/../b/` (or `%2e%2e`) as another website, so
 * only a path a URL parser leaves exactly as it is may pass.
 */
export function backUnder(basePath: string, back: string | undefined): string | undefined {
  if (back === undefined || back === '') return `${basePath}/`;
  if (back.length > MAX_BACK_LENGTH || !back.startsWith('/') || back.startsWith('//') || /[\\\x00-\x20\x7f]/.test(back)) return undefined;
  let url: URL;
  try {
    url = new URL(back, 'http://visitor.invalid');
  } catch {
    return undefined;
  }
  if (url.origin !== 'http://visitor.invalid' || url.hash !== '' || `${url.pathname}${url.search}` !== back) return undefined;
  if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return undefined;
  // At its own host name every path looks like the website's, but /sites/<urlname>/ there
  // serves another website (any Host reaches those routes): a link must not lead there.
  if (basePath === '' && /^\/sites(\/|$)/i.test(url.pathname)) return undefined;
  return back;
}

/**
 * Whether a form post comes from the website itself: a browser names the page
 * that sent it in `Origin`, so a cross-site page cannot post in a visitor's
 * name (plant a return address, ask for mail). No Origin (an older browser) is
 * let through; `null` (a sandboxed or no-referrer page) is not.
 */
export function fromOwnOrigin(origin: string | undefined, ours: readonly string[]): boolean {
  if (origin === undefined) return true;
  const given = origin.toLowerCase();
  return ours.some((o) => o.toLowerCase() === given);
}

/** A request's path and query, as the visitor sent them (read from the raw URL, undecoded). */
export function pathAndQuery(rawUrl: string | undefined): { path: string; query: URLSearchParams } {
  const url = rawUrl ?? '/';
  const q = url.indexOf('?');
  return { path: q < 0 ? url : url.slice(0, q), query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)) };
}

const FULL_PATH = /^[a-z0-9-]+(\/[a-z0-9-]+)*$/;
/** No gallery has a longer full url path or lies deeper (docs/galleries.md): refused before any query. */
const MAX_FULL_PATH_CHARS = 1000;
const MAX_DEPTH = 32;

function isGalleryPath(path: string): boolean {
  return path.length <= MAX_FULL_PATH_CHARS && FULL_PATH.test(path) && path.split('/').length <= MAX_DEPTH;
}

/** A gallery or media page named by a path below the home, its shape checked (no query yet). */
export type PageAddress = { kind: 'gallery'; path: string } | { kind: 'media'; path: string; uuid: string };

export function pageAddressOf(rest: string): PageAddress | undefined {
  if (rest === '') return { kind: 'gallery', path: '' };
  if (rest.startsWith('_/')) return isUuid(rest.slice(2)) ? { kind: 'media', path: '', uuid: rest.slice(2).toLowerCase() } : undefined;
  if (!rest.startsWith('-/')) return undefined;
  const inner = rest.slice(2);
  const cut = inner.indexOf('/_/');
  const path = cut < 0 ? inner : inner.slice(0, cut);
  if (!isGalleryPath(path)) return undefined;
  if (cut < 0) return { kind: 'gallery', path };
  const uuid = inner.slice(cut + 3);
  return isUuid(uuid) ? { kind: 'media', path, uuid: uuid.toLowerCase() } : undefined;
}

/** The gallery of a page address under the home (for the form shown again after a wrong password). */
export function backGalleryPath(back: string, homePath: string): string {
  const rest = back.slice(homePath.length + 1).split('?')[0];
  if (!rest.startsWith('-/')) return '';
  const inner = rest.slice(2);
  const cut = inner.indexOf('/_/');
  const path = cut < 0 ? inner : inner.slice(0, cut);
  return isGalleryPath(path) ? path : '';
}
