// How a page is shared and found: its canonical address, its Open Graph / Twitter card and its
// schema.org JSON-LD, as data (the tags are pages/head-meta.tsx's). Cards and JSON-LD only on
// pages anyone may open: they name a public image, and a protected page must not preview its
// photos to whoever a link is forwarded to. Details: docs/website.md, "Shared and found".
import type { SiteMedia, SiteRendition } from '../repository.js';

/** A picture as a card shows it: an absolute address of one rendition, with that rendition's size. */
export interface ShareImage {
  url: string;
  type: string;
  width: number;
  height: number;
  alt: string;
}

/** Who made a picture and on what terms: shown with it (media page, viewer captions) and in its JSON-LD. */
export interface Credit {
  author: string | null;
  copyright: string | null;
  /** The licence's address, when set. */
  license: string | null;
}

export interface ShareCard {
  title: string;
  description?: string;
  siteName: string;
  image?: ShareImage;
}

/** What the head of a page says about it beyond its title. */
export interface PageMeta {
  /** Absolute: the website's own host name when it has one, else `PUBLIC_URL/sites/<urlname>`. */
  canonical: string;
  /** Absent on pages behind a password or an access list. */
  card?: ShareCard;
  /** A schema.org object (ImageGallery, ImageObject); absent with the card. */
  structured?: Record<string, unknown>;
}

/** The long edge a card's image aims at: the ladder's 1280 (docs/renditions.md), Open Graph's recommended 1200 wide. */
const CARD_EDGE = 1200;
const MAX_DESCRIPTION = 300;

/**
 * The rendition a card shows: a JPEG (every preview fetcher reads it; WebP not all) whose long
 * edge is the first at least 1200 px, else the largest there is. Posters for videos.
 */
export function cardRendition(rs: readonly SiteRendition[]): SiteRendition | undefined {
  const images = rs.filter((r) => r.name !== 'poster');
  const jpeg = images.filter((r) => r.mime_type === 'image/jpeg');
  const pool = (jpeg.length > 0 ? jpeg : images.length > 0 ? images : rs.filter((r) => r.name === 'poster')).slice().sort((a, b) => Math.max(a.width, a.height) - Math.max(b.width, b.height));
  return pool.find((r) => Math.max(r.width, r.height) >= CARD_EDGE) ?? pool[pool.length - 1];
}

export function shareImage(rs: readonly SiteRendition[], alt: string, publicUrl: (key: string) => string): ShareImage | undefined {
  const r = cardRendition(rs);
  return r && { url: publicUrl(r.storage_key), type: r.mime_type, width: r.width, height: r.height, alt };
}

export function creditOf(m: Pick<SiteMedia, 'author' | 'copyright' | 'license'>): Credit | undefined {
  const author = present(m.author);
  const copyright = present(m.copyright);
  const license = present(m.license);
  return author || copyright || license ? { author, copyright, license } : undefined;
}

/** A description fit for a preview: one paragraph, cut on a word. */
export function summary(text: string | null | undefined): string | undefined {
  const t = present(text)?.replace(/\s+/g, ' ');
  if (!t) return undefined;
  if (t.length <= MAX_DESCRIPTION) return t;
  const cut = t.slice(0, MAX_DESCRIPTION - 1);
  const space = cut.lastIndexOf(' ');
  return (space > MAX_DESCRIPTION / 2 ? cut.slice(0, space) : cut) + '…';
}

/** What the JSON-LD of one picture says; only what is known goes in. */
export interface ImageFacts {
  title: string;
  description: string | null;
  keywords: readonly string[];
  credit?: Credit;
  shotAt: string | null;
  place: string | null;
  position: { latitude: number; longitude: number } | null;
  /** Its page's canonical address. */
  page: string;
  image?: ShareImage;
}

/**
 * schema.org ImageObject (with the properties Google reads for image licences). `brief`: as an
 * item of a gallery's 60 — its name, page, image and terms; the rest is on its own page, so the
 * gallery's HTML stays light.
 */
export function imageObject(f: ImageFacts, context = false, brief = false): Record<string, unknown> {
  const o: Record<string, unknown> = context ? { '@context': 'https://schema.org' } : {};
  o['@type'] = 'ImageObject';
  // An untitled photo has no name (its file name is not one).
  if (f.title) o.name = f.title;
  o.url = f.page;
  if (f.image) {
    o.contentUrl = f.image.url;
    if (!brief) o.encodingFormat = f.image.type;
    o.width = f.image.width;
    o.height = f.image.height;
  }
  if (!brief && f.description) o.description = f.description;
  if (!brief && f.keywords.length > 0) o.keywords = f.keywords.join(', ');
  if (f.credit?.author) {
    o.creator = { '@type': 'Person', name: f.credit.author };
    o.creditText = f.credit.author;
  }
  if (f.credit?.copyright) o.copyrightNotice = f.credit.copyright;
  if (f.credit?.license) o.license = f.credit.license;
  if (brief) return o;
  if (f.shotAt) o.dateCreated = f.shotAt;
  if (f.place || f.position) {
    const place: Record<string, unknown> = { '@type': 'Place' };
    if (f.place) place.name = f.place;
    if (f.position) place.geo = { '@type': 'GeoCoordinates', latitude: f.position.latitude, longitude: f.position.longitude };
    o.contentLocation = place;
  }
  return o;
}

/** schema.org ImageGallery with the pictures of the page. */
export function imageGallery(g: { title: string; description: string | null; page: string; images: Array<Record<string, unknown>> }): Record<string, unknown> {
  const o: Record<string, unknown> = { '@context': 'https://schema.org', '@type': 'ImageGallery', name: g.title, url: g.page };
  if (g.description) o.description = g.description;
  if (g.images.length > 0) o.image = g.images;
  return o;
}

/**
 * JSON for a `<script type="application/ld+json">` element: data the browser never runs (the
 * CSP's script-src does not concern it), but its text ends at the first `</script`, so every
 * `<` (and `>`, `&`, and the two line separators JavaScript parsers once choked on) is written
 * as a JSON escape, which any JSON reader turns back.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function present(s: string | null | undefined): string | null {
  return s && s.trim() !== '' ? s.trim() : null;
}
