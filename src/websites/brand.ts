// A website's brand and its pages as the API extension reads them (the PUT of a website and of one
// of its pages): the whitelist, the typed input and the 422 naming a wrong value, before anything is
// read or written. What the values mean to a visitor is src/site/look/theme.ts's (docs/website.md, "Brand
// and pages (an API extension)").
import { bracketNames, custom, entries, int, line, oneOf, refuse, text, type At, type Entry, type InputOf } from '../core/fields.js';
import { isUuid } from '../core/uuid.js';
import { specInput, type Input } from '../http/input.js';
import { isValidHostname } from './input.js';

export const THEMES = ['modern', 'editorial', 'classic', 'system'] as const;
export type Theme = (typeof THEMES)[number];
export const COLOR_SCHEMES = ['light', 'dark', 'auto'] as const;
export type ColorScheme = (typeof COLOR_SCHEMES)[number];

export const MAX_TITLE = 255;
export const MAX_LINE = 255;
export const MAX_SOCIAL_LINKS = 8;
const MAX_URL = 500;
export const MAX_PAGES = 20;
/** Markdown of one page: a long About page is a few thousand characters. */
export const MAX_PAGE_BODY = 100_000;
export const MAX_PAGE_POSITION = 1000;

export const ACCENT = /^#[0-9a-f]{6}$/;
/** A page's address below the home (`/p/<slug>`): lower-case letters, digits and inner dashes. */
export const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const EMAIL = /^[^\s@"\\<>]+@[^\s@"\\<>]+\.[^\s@"\\<>]+$/;

/** An absolute http(s) address, as a visitor's browser would follow it. */
export function isWebAddress(v: string): boolean {
  if (v.length > MAX_URL || /[\s<>"\\]/.test(v)) return false;
  try {
    const u = new URL(v);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname !== '' && u.username === '' && u.password === '';
  } catch {
    return false;
  }
}

/** The home page's hero: at most this many photos (one, or a slideshow). */
export const MAX_HERO = 12;
/** Galleries featured on the home page, at most. */
export const MAX_FEATURED = 24;
export const HERO_FITS = ['fill', 'fit'] as const;
export type HeroFit = (typeof HERO_FITS)[number];
export const MAX_HEADLINE = 120;

/**
 * An ordered list of UUIDs sent as `<name>[<n>][<sub>]` (like `gallery[acl][<n>][…]`): ordered by n,
 * blank values skipped (so `<name>[0][<sub>]=` alone clears the list), each UUID once.
 */
function orderedUuids(sub: string, max: number, what: string) {
  return entries([sub], (list: Entry[], at: At): string[] | undefined => {
    if (list.length === 0) return undefined;
    const bad = list.find((e) => !/^\d{1,4}$/.test(e.id));
    if (bad) throw refuse(at, `${at.name}[${bad.id}]: the entry number must be 0, 1, 2…`);
    const out: string[] = [];
    for (const e of [...list].sort((a, b) => Number(a.id) - Number(b.id))) {
      const v = (e.value(sub) ?? '').trim().toLowerCase();
      if (v === '') continue;
      if (!isUuid(v)) throw refuse(at, `${at.name}[${e.id}][${sub}] must be a ${what} UUID, got ${JSON.stringify(v.slice(0, 100))}`);
      if (out.includes(v)) throw refuse(at, `${at.name}[${e.id}][${sub}]: ${what} ${v} is listed twice`);
      out.push(v);
    }
    if (out.length > max) throw refuse(at, `${at.name} takes at most ${max} entries, got ${out.length}`);
    return out;
  });
}

/** A media reference as sent: trimmed and lower-cased, blank clears it (the service checks it is one of the user's). */
const mediaRef = () => custom<string | null>((v) => (v === undefined ? undefined : v.trim().toLowerCase() || null));

/**
 * What a request asks to change, in the order it is checked. undefined: not sent, left as it
 * is; null: sent blank, cleared (not for the title, the scheme and the theme, which always have a value).
 */
export const BRAND_FIELDS = {
  title: line({ max: MAX_TITLE, blank: 'refuse' }),
  tagline: line({ max: MAX_LINE }),
  /** A media UUID of the user's libraries. */
  logo: mediaRef(),
  favicon: mediaRef(),
  colorScheme: oneOf(COLOR_SCHEMES, { lower: true, blank: 'absent', got: false }),
  accentColor: custom<string | null>((v, at) => {
    if (v === undefined) return undefined;
    const a = v.trim().toLowerCase();
    if (a !== '' && !ACCENT.test(a)) throw refuse(at, `${at.name} must be a colour written #rrggbb`);
    return a === '' ? null : a;
  }),
  theme: oneOf(THEMES, { lower: true, blank: 'absent', got: false }),
  credit: line({ max: MAX_LINE }),
  copyright: line({ max: MAX_LINE }),
  contactEmail: line({ max: 254, check: { test: (v) => EMAIL.test(v), message: (n) => `${n} must be an e-mail address` } }),
  /** [] clears them. */
  socialLinks: custom<string[]>(
    (_v, at, s) => {
      const sent = s.values(at.key);
      if (sent === undefined) return undefined;
      const links = sent.filter((l) => l !== '');
      if (links.length > MAX_SOCIAL_LINKS) throw refuse(at, `parameter ${at.name} takes at most ${MAX_SOCIAL_LINKS} values, got ${links.length}`);
      const trimmed = links.map((l) => l.trim());
      const bad = trimmed.find((l) => !isWebAddress(l));
      if (bad !== undefined) throw refuse(at, `${at.name} must be http or https addresses, got ${JSON.stringify(bad.slice(0, 100))}`);
      return trimmed;
    },
    { kind: 'list', max: MAX_SOCIAL_LINKS },
  ),
  /** Lower-cased; null: none, the website is at `${PUBLIC_URL}/sites/<urlname>`. Unique (the service checks). */
  hostname: line({ max: 260, lower: true, check: { test: isValidHostname, message: (n) => `${n} must be a host name, such as photos.example.com` } }),
  /** false: search engines may index nothing of the website; true: each gallery's `indexing` decides. */
  indexing: custom<boolean>((_v, at, s) => {
    const n = int({ min: 0, max: 1 }).read(s, at);
    return n === undefined ? undefined : n === 1;
  }),
  /** The home page's hero photos in order (`website[hero][<n>][media]`); [] clears the hero. */
  hero: orderedUuids('media', MAX_HERO, 'media'),
  /** fill: a full-bleed crop (at the media's focal point when it has one); fit: the whole photo. */
  heroFit: oneOf(HERO_FITS, { lower: true, blank: 'absent', got: false }),
  heroHeadline: line({ max: MAX_HEADLINE }),
  heroTagline: line({ max: MAX_LINE }),
  /** Galleries featured on the home page in order (`website[featured][<n>][gallery]`); [] goes back to the top-level public ones. */
  featured: orderedUuids('gallery', MAX_FEATURED, 'gallery'),
};
export type BrandInput = InputOf<typeof BRAND_FIELDS>;
/** The API's names: website[title], website[color_scheme]… */
export const BRAND_API = bracketNames('website', BRAND_FIELDS);
export const brandInput: Input<BrandInput> = specInput(BRAND_FIELDS, BRAND_API);

/** A page of the website's navigation (`/p/<slug>`). */
export const PAGE_FIELDS = {
  title: line({ max: MAX_TITLE, blank: 'refuse' }),
  body: text({ max: MAX_PAGE_BODY, tooLong: (n, max) => `${n} must be at most ${max} characters` }),
  position: int({ min: 0, max: MAX_PAGE_POSITION }),
};
export type PageInput = InputOf<typeof PAGE_FIELDS>;
export const PAGE_API = bracketNames('page', PAGE_FIELDS);
export const pageInput: Input<PageInput> = specInput(PAGE_FIELDS, PAGE_API);
