// A website's brand and its pages as the API extension reads them (the PUT of a website and of one
// of its pages): the whitelist, the typed input and the 422 naming a wrong value, before anything is
// read or written. What the values mean to a visitor is src/site/theme.ts's (docs/website.md, "Brand
// and pages (an API extension)").
import { invalid } from '../core/errors.js';
import { input, type Input } from '../http/input.js';
import type { Params } from '../http/params.js';
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

/**
 * What a request asks to change. undefined: not sent, left as it is; null: sent blank,
 * cleared (not for the title, the scheme and the theme, which always have a value).
 */
export interface BrandInput {
  title?: string;
  tagline?: string | null;
  /** A media UUID of the user's libraries. */
  logo?: string | null;
  favicon?: string | null;
  colorScheme?: ColorScheme;
  accentColor?: string | null;
  theme?: Theme;
  credit?: string | null;
  copyright?: string | null;
  contactEmail?: string | null;
  /** [] clears them. */
  socialLinks?: string[];
  /** Lower-cased; null: none, the website is at `${PUBLIC_URL}/sites/<urlname>`. Unique (the service checks). */
  hostname?: string | null;
  /** false: search engines may index nothing of the website; true: each gallery's `indexing` decides. */
  indexing?: boolean;
}

const P = (name: string) => `website[${name}]`;
const BRAND_PARAMS = ['title', 'tagline', 'logo', 'favicon', 'color_scheme', 'accent_color', 'theme', 'credit', 'copyright', 'contact_email', 'social_links', 'hostname', 'indexing'].map(P);

/** One line of text: trimmed, no control characters, at most `max`; blank is null. */
function line(p: Params, name: string, max: number): string | null | undefined {
  const v = p.str(name);
  if (v === undefined) return undefined;
  const t = v.trim();
  if (t === '') return null;
  if (/[\x00-\x1f\x7f]/.test(t)) throw invalid(`${name} must be one line of text`);
  if ([...t].length > max) throw invalid(`${name} must be at most ${max} characters`);
  return t;
}

function oneOf<T extends string>(p: Params, name: string, allowed: readonly T[]): T | undefined {
  const v = p.str(name)?.trim().toLowerCase();
  if (v === undefined || v === '') return undefined;
  if (!(allowed as readonly string[]).includes(v)) throw invalid(`${name} must be one of ${allowed.join(', ')}`);
  return v as T;
}

function mediaRef(p: Params, name: string): string | null | undefined {
  const v = p.str(name);
  if (v === undefined) return undefined;
  const t = v.trim().toLowerCase();
  return t === '' ? null : t;
}

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

export const brandInput: Input<BrandInput> = input(BRAND_PARAMS, (p) => {
  const out: BrandInput = {};
  const title = line(p, P('title'), MAX_TITLE);
  if (title === null) throw invalid(`${P('title')} may not be blank`);
  if (title !== undefined) out.title = title;
  const tagline = line(p, P('tagline'), MAX_LINE);
  if (tagline !== undefined) out.tagline = tagline;
  const logo = mediaRef(p, P('logo'));
  if (logo !== undefined) out.logo = logo;
  const favicon = mediaRef(p, P('favicon'));
  if (favicon !== undefined) out.favicon = favicon;
  const scheme = oneOf(p, P('color_scheme'), COLOR_SCHEMES);
  if (scheme !== undefined) out.colorScheme = scheme;
  const accent = p.str(P('accent_color'));
  if (accent !== undefined) {
    const a = accent.trim().toLowerCase();
    if (a !== '' && !ACCENT.test(a)) throw invalid(`${P('accent_color')} must be a colour written #rrggbb`);
    out.accentColor = a === '' ? null : a;
  }
  const theme = oneOf(p, P('theme'), THEMES);
  if (theme !== undefined) out.theme = theme;
  const credit = line(p, P('credit'), MAX_LINE);
  if (credit !== undefined) out.credit = credit;
  const copyright = line(p, P('copyright'), MAX_LINE);
  if (copyright !== undefined) out.copyright = copyright;
  const email = line(p, P('contact_email'), 254);
  if (email !== undefined) {
    if (email !== null && !EMAIL.test(email)) throw invalid(`${P('contact_email')} must be an e-mail address`);
    out.contactEmail = email;
  }
  if (p.has(P('social_links'))) {
    const links = (p.list(P('social_links'), MAX_SOCIAL_LINKS) ?? []).map((l) => l.trim());
    const bad = links.find((l) => !isWebAddress(l));
    if (bad !== undefined) throw invalid(`${P('social_links')} must be http or https addresses, got ${JSON.stringify(bad.slice(0, 100))}`);
    out.socialLinks = links;
  }
  const hostname = line(p, P('hostname'), 260);
  if (hostname !== undefined) {
    if (hostname !== null && !isValidHostname(hostname)) throw invalid(`${P('hostname')} must be a host name, such as photos.example.com`);
    out.hostname = hostname === null ? null : hostname.toLowerCase();
  }
  const indexing = p.int(P('indexing'), { min: 0, max: 1 });
  if (indexing !== undefined) out.indexing = indexing === 1;
  return out;
});

export interface PageInput {
  title?: string;
  body?: string;
  position?: number;
}

export const pageInput: Input<PageInput> = input(['page[title]', 'page[body]', 'page[position]'], (p) => {
  const out: PageInput = {};
  const title = line(p, 'page[title]', MAX_TITLE);
  if (title === null) throw invalid('page[title] may not be blank');
  if (title !== undefined) out.title = title;
  const body = p.str('page[body]');
  if (body !== undefined) {
    if (body.length > MAX_PAGE_BODY) throw invalid(`page[body] must be at most ${MAX_PAGE_BODY} characters`);
    out.body = body;
  }
  const position = p.int('page[position]', { min: 0, max: MAX_PAGE_POSITION });
  if (position !== undefined) out.position = position;
  return out;
});
