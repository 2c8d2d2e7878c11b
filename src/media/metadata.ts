// Reads the writable media attributes of a request (spec 2.6 and
// client-compat) into typed input: every value is checked here; the UUIDs it
// names are resolved to ids by the service (through src/access), into a
// JSON-serialisable change set that applying cannot fail on.
import { input, type Input } from '../http/input.js';
import type { Params } from '../http/params.js';
import { invalid } from '../core/errors.js';

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
  /** Extension (docs/media.md): the licence's address. */
  license?: string | null;
  /** Extension (docs/media.md): WGS 84 degrees, both or neither. */
  latitude?: number | null;
  longitude?: number | null;
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

/** The attributes as a request gives them: UUIDs not resolved yet. */
export interface MediaInput {
  /** The parameter names are `${prefix}[attribute]`. */
  prefix: 'media' | 'medias';
  /** Every column but the library and the watermark, which are named by UUID. */
  columns: Omit<MediaColumnChanges, 'artist_id' | 'watermark_id'>;
  artist?: string;
  /** null: no watermark. */
  watermark?: string | null;
  keywords?: string[];
  addKeywords?: string[];
  removeKeywords?: string[];
  /** An empty list (galleries[] sent with no value) unpublishes from every gallery. */
  galleries?: string[];
  publish?: string[];
  unpublish?: string[];
  collections?: string[];
  addCollections?: string[];
  removeCollections?: string[];
  addPricing?: string[];
  removePricing?: string[];
  delete?: boolean;
}

/** single: PUT/POST of one media (`media[...]`); batch: `medias[...]` of a batch update. */
export type ChangeMode = 'single' | 'batch';

const TEXT_ATTRS = ['title', 'description', 'location', 'city', 'state', 'country', 'region'] as const;
const SINGLE_ONLY_TEXT = ['author', 'copyright'] as const;
/** Extensions of spec 2.6 (docs/media.md), on single updates: what a file may also give. */
const SINGLE_ONLY_EXTENSIONS = ['license', 'latitude', 'longitude'] as const;
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

/** The attributes under `prefix` (`media[title]`, …) as a route's input: their names and their reader. */
export function mediaAttributes(prefix: 'media' | 'medias', mode: ChangeMode): Input<MediaInput> {
  return input(attributeNames(prefix, mode), (params) => readMediaInput(params, prefix, mode));
}

function attributeNames(prefix: 'media' | 'medias', mode: ChangeMode): string[] {
  const names: string[] = [...TEXT_ATTRS, ...FLAG_ATTRS, ...LIST_ATTRS, ...OTHER_ATTRS];
  if (mode === 'single') names.push(...SINGLE_ONLY_TEXT, ...SINGLE_ONLY_EXTENSIONS);
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

/** Reads and checks every attribute under `prefix`; a bad value is a 422 naming it. */
function readMediaInput(params: Params, prefix: 'media' | 'medias', mode: ChangeMode): MediaInput {
  const name = (attr: string) => `${prefix}[${attr}]`;
  const columns: MediaInput['columns'] = {};
  const input: MediaInput = { prefix, columns };

  const textAttrs: readonly string[] = mode === 'single' ? [...TEXT_ATTRS, ...SINGLE_ONLY_TEXT] : TEXT_ATTRS;
  for (const attr of textAttrs) {
    const v = textValue(params, name(attr), attr);
    if (v !== undefined) (columns as Record<string, unknown>)[attr] = v;
  }
  if (mode === 'single') readExtensions(params, name, columns);
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
  if (artist !== undefined && artist !== '') input.artist = artist;
  const watermark = params.str(name('watermark_uuid'));
  if (watermark !== undefined) input.watermark = watermark.trim() === '' ? null : watermark.trim();

  const keywords = params.str(name('keywords'));
  if (keywords !== undefined) input.keywords = parseKeywords(keywords, name('keywords'));
  const addKeywords = params.str(name('add_keywords'));
  if (addKeywords !== undefined) input.addKeywords = parseKeywords(addKeywords, name('add_keywords'));
  const removeKeywords = params.str(name('remove_keywords'));
  if (removeKeywords !== undefined) input.removeKeywords = parseKeywords(removeKeywords, name('remove_keywords'));

  // Array attributes: repeated values, or one comma-separated value.
  const list = (attr: string) => params.csvList(name(attr));
  input.galleries = list('galleries');
  input.publish = list('publish_to_galleries');
  input.unpublish = list('unpublish_from_galleries');
  input.collections = list('medias_collections');
  input.addCollections = list('add_to_medias_collections');
  input.removeCollections = list('remove_from_medias_collections');
  input.addPricing = list('add_pricing_profiles');
  input.removePricing = list('remove_pricing_profiles');

  if (mode === 'batch' && params.str(name('delete')) !== undefined) {
    const v = params.str(name('delete'))!.trim();
    if (v !== '1' && v !== '0' && v !== '') throw invalid(`${name('delete')} must be 1 to delete the medias, got ${JSON.stringify(v)}`);
    if (v === '1') input.delete = true;
  }
  return input;
}

/**
 * `license`: an http(s) address, empty clears it. `latitude` and `longitude`: decimal degrees,
 * sent together (an empty pair clears the position).
 */
function readExtensions(params: Params, name: (attr: string) => string, columns: MediaInput['columns']): void {
  const license = params.str(name('license'));
  if (license !== undefined) {
    const v = license.trim();
    if (v === '') columns.license = null;
    else {
      let url: URL | undefined;
      try {
        url = new URL(v);
      } catch {
        url = undefined;
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || v.length > 2048) {
        throw invalid(`${name('license')} must be an http or https address of at most 2048 characters`);
      }
      columns.license = url.href;
    }
  }
  const lat = params.str(name('latitude'));
  const lon = params.str(name('longitude'));
  if (lat === undefined && lon === undefined) return;
  if (lat === undefined || lon === undefined) throw invalid(`${name(lat === undefined ? 'latitude' : 'longitude')} must be sent with ${name(lat === undefined ? 'longitude' : 'latitude')}`);
  if (lat.trim() === '' && lon.trim() === '') {
    columns.latitude = null;
    columns.longitude = null;
    return;
  }
  columns.latitude = degrees(lat, 90, name('latitude'));
  columns.longitude = degrees(lon, 180, name('longitude'));
}

function degrees(value: string, max: number, attr: string): number {
  const v = value.trim();
  const n = Number(v);
  if (!/^[+-]?\d{1,3}(\.\d{1,12})?$/.test(v) || !Number.isFinite(n) || Math.abs(n) > max) throw invalid(`${attr} must be decimal degrees from -${max} to ${max}, got ${JSON.stringify(value)}`);
  return n;
}

/** True when the change set would change nothing (only updated_at). */
export function isEmptyChange(c: MediaChanges): boolean {
  return Object.keys(c.columns).length === 0 && Object.keys(c).length === 1;
}
