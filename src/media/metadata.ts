// Reads the writable media attributes of a request (spec 2.6 and
// client-compat) into a validated, JSON-serialisable change set: every UUID
// is resolved to an id here, so applying it cannot fail on a bad value.
import type { Params } from '../http/params.js';
import { invalid } from '../http/errors.js';
import type { Db } from '../store/db.js';
import {
  accessibleGalleryIds,
  ownedArtistId,
  ownedCollectionIds,
  ownedPricingProfileIds,
  ownedWatermarkId,
} from './targets.js';

/** Columns of `medias` an update may set. */
export interface MediaColumnChanges {
  title?: string | null;
  description?: string | null;
  location?: string | null;
  city?: string | null;
  state?: string | null;
  country?: string | null;
  region?: string | null;
  author?: string | null;
  copyright?: string | null;
  model_release?: number;
  property_release?: number;
  artist_rating?: number | null;
  shot_at?: string | null;
  watermark_id?: number | null;
  artist_id?: number;
}

export interface MediaChanges {
  columns: MediaColumnChanges;
  keywords?: string[];
  addKeywords?: string[];
  removeKeywords?: string[];
  /** Gallery ids: the media ends up in exactly these (spec 2.6 rule). */
  galleries?: number[];
  publish?: number[];
  unpublish?: number[];
  /** Collection ids: the media ends up in exactly these collections. */
  collections?: number[];
  addCollections?: number[];
  removeCollections?: number[];
  addPricing?: number[];
  removePricing?: number[];
  delete?: boolean;
}

/** single: PUT/POST of one media (`media[...]`); batch: `medias[...]` of a batch update. */
export type ChangeMode = 'single' | 'batch';

const TEXT_ATTRS = ['title', 'description', 'location', 'city', 'state', 'country', 'region'] as const;
const SINGLE_ONLY_TEXT = ['author', 'copyright'] as const;
const FLAG_ATTRS = ['model_release', 'property_release'] as const;
const LIST_ATTRS = [
  'medias_collections',
  'add_to_medias_collections',
  'remove_from_medias_collections',
  'galleries',
  'publish_to_galleries',
  'unpublish_from_galleries',
  'add_pricing_profiles',
  'remove_pricing_profiles',
] as const;
const OTHER_ATTRS = ['keywords', 'add_keywords', 'remove_keywords', 'artist_id', 'artist_rating', 'delete_artist_rating', 'date_created', 'watermark_uuid'] as const;

const MAX_TEXT = { title: 1000, description: 65_535 } as Record<string, number>;
const MAX_OTHER_TEXT = 1000;
export const MAX_KEYWORD_LENGTH = 255;
export const MAX_KEYWORDS = 500;

/** Parameter names (for a route's whitelist) of the attributes under `prefix`. */
export function mediaAttributeParams(prefix: 'media' | 'medias', mode: ChangeMode): string[] {
  const names: string[] = [...TEXT_ATTRS, ...FLAG_ATTRS, ...LIST_ATTRS, ...OTHER_ATTRS];
  if (mode === 'single') names.push(...SINGLE_ONLY_TEXT);
  else names.push('delete');
  return names.map((n) => `${prefix}[${n}]`);
}

/**
 * Comma-separated keywords: trimmed, empty ones dropped, duplicates (ignoring
 * case) dropped keeping the first spelling, order kept.
 */
export function parseKeywords(value: string, attr: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of value.split(',')) {
    const k = raw.trim();
    if (k === '') continue;
    if (k.length > MAX_KEYWORD_LENGTH) throw invalid(`${attr}: a keyword is longer than ${MAX_KEYWORD_LENGTH} characters`);
    const key = k.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(k);
  }
  if (out.length > MAX_KEYWORDS) throw invalid(`${attr}: more than ${MAX_KEYWORDS} keywords`);
  return out;
}

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * An ISO 8601 capture time as stored in shot_at (UTC, toISOString form). A
 * date alone is midnight UTC; a time without offset is taken as UTC.
 */
export function parseCaptureTime(value: string, attr: string): string {
  const v = value.trim();
  const m = ISO_8601.exec(v);
  if (!m) throw invalid(`${attr}: not an ISO 8601 date or time: ${JSON.stringify(value)}`);
  let text = v.replace(' ', 'T').replace(',', '.');
  if (m[4] === undefined) text += 'T00:00:00Z';
  else if (m[7] === undefined) text += 'Z';
  else if (/^[+-]\d{4}$/.test(m[7])) text = text.slice(0, -2) + ':' + text.slice(-2);
  const d = new Date(text);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const daysInMonth = new Date(Date.UTC(Number(m[1]), month, 0)).getUTCDate();
  const [hour, minute, second] = [m[4], m[5], m[6]].map((v) => Number(v ?? 0));
  const timeOk = hour <= 23 && minute <= 59 && second <= 59;
  if (Number.isNaN(d.getTime()) || month < 1 || month > 12 || day < 1 || day > daysInMonth || !timeOk) {
    throw invalid(`${attr}: not a valid date or time: ${JSON.stringify(value)}`);
  }
  return d.toISOString();
}

function textValue(params: Params, name: string, attr: string): string | null | undefined {
  const v = params.str(name);
  if (v === undefined) return undefined;
  const t = v.trim();
  if (t === '') return null;
  const max = MAX_TEXT[attr] ?? MAX_OTHER_TEXT;
  if (t.length > max) throw invalid(`${name} is longer than ${max} characters`);
  return t;
}

/** Validates and resolves every attribute under `prefix`; a bad value is a 422 naming it. */
export async function readMediaChanges(db: Db, userId: number, params: Params, prefix: 'media' | 'medias', mode: ChangeMode): Promise<MediaChanges> {
  const name = (attr: string) => `${prefix}[${attr}]`;
  const columns: MediaColumnChanges = {};
  const changes: MediaChanges = { columns };

  const textAttrs: readonly string[] = mode === 'single' ? [...TEXT_ATTRS, ...SINGLE_ONLY_TEXT] : TEXT_ATTRS;
  for (const attr of textAttrs) {
    const v = textValue(params, name(attr), attr);
    if (v !== undefined) (columns as Record<string, unknown>)[attr] = v;
  }
  for (const attr of FLAG_ATTRS) {
    const v = params.flag(name(attr));
    if (v !== undefined) columns[attr] = v ? 1 : 0;
  }

  const rating = params.str(name('artist_rating'));
  if (rating !== undefined && rating.trim() !== '') {
    if (!/^\s*[0-5]\s*$/.test(rating)) throw invalid(`${name('artist_rating')} must be an integer from 0 to 5, got ${JSON.stringify(rating)}`);
    columns.artist_rating = Number(rating.trim());
  }
  if (params.flag(name('delete_artist_rating')) === true) columns.artist_rating = null;

  const created = params.str(name('date_created'));
  if (created !== undefined) columns.shot_at = created.trim() === '' ? null : parseCaptureTime(created, name('date_created'));

  const artist = params.str(name('artist_id'));
  if (artist !== undefined && artist !== '') columns.artist_id = await ownedArtistId(db, userId, artist, name('artist_id'));

  const watermark = params.str(name('watermark_uuid'));
  if (watermark !== undefined) columns.watermark_id = watermark.trim() === '' ? null : await ownedWatermarkId(db, userId, watermark.trim(), name('watermark_uuid'));

  const keywords = params.str(name('keywords'));
  if (keywords !== undefined) changes.keywords = parseKeywords(keywords, name('keywords'));
  const addKeywords = params.str(name('add_keywords'));
  if (addKeywords !== undefined) changes.addKeywords = parseKeywords(addKeywords, name('add_keywords'));
  const removeKeywords = params.str(name('remove_keywords'));
  if (removeKeywords !== undefined) changes.removeKeywords = parseKeywords(removeKeywords, name('remove_keywords'));

  // Array attributes: repeated values, or one comma-separated value.
  const list = (attr: string) => params.csvList(name(attr));
  const galleries = list('galleries');
  // An empty galleries[] (sent with no value) unpublishes from every gallery.
  if (galleries !== undefined) changes.galleries = await accessibleGalleryIds(db, userId, galleries, name('galleries'));
  const publish = list('publish_to_galleries');
  if (publish?.length) changes.publish = await accessibleGalleryIds(db, userId, publish, name('publish_to_galleries'));
  const unpublish = list('unpublish_from_galleries');
  if (unpublish?.length) changes.unpublish = await accessibleGalleryIds(db, userId, unpublish, name('unpublish_from_galleries'));

  const collections = list('medias_collections');
  if (collections !== undefined) changes.collections = await ownedCollectionIds(db, userId, collections, name('medias_collections'));
  const addCollections = list('add_to_medias_collections');
  if (addCollections?.length) changes.addCollections = await ownedCollectionIds(db, userId, addCollections, name('add_to_medias_collections'));
  const removeCollections = list('remove_from_medias_collections');
  if (removeCollections?.length) changes.removeCollections = await ownedCollectionIds(db, userId, removeCollections, name('remove_from_medias_collections'));

  const addPricing = list('add_pricing_profiles');
  if (addPricing?.length) changes.addPricing = await ownedPricingProfileIds(db, userId, addPricing, name('add_pricing_profiles'));
  const removePricing = list('remove_pricing_profiles');
  if (removePricing?.length) changes.removePricing = await ownedPricingProfileIds(db, userId, removePricing, name('remove_pricing_profiles'));

  if (mode === 'batch' && params.str(name('delete')) !== undefined) {
    const v = params.str(name('delete'))!.trim();
    if (v !== '1' && v !== '0' && v !== '') throw invalid(`${name('delete')} must be 1 to delete the medias, got ${JSON.stringify(v)}`);
    if (v === '1') changes.delete = true;
  }
  return changes;
}

/** True when the change set would change nothing (only updated_at). */
export function isEmptyChange(c: MediaChanges): boolean {
  return Object.keys(c.columns).length === 0 && Object.keys(c).length === 1;
}
