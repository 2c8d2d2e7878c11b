// The writable media attributes (spec 2.6 and client-compat), declared once
// (MEDIA_FIELDS, src/core/fields.ts): every value is checked here; the UUIDs it
// names are resolved to ids by the service (through src/access), into a
// JSON-serialisable change set that applying cannot fail on.
import { input, paramsSource, specDocs, type Input } from '../http/input.js';
import { MAX_LIST_VALUES } from '../http/params.js';
import { invalid } from '../core/errors.js';
import { bracketNames, custom, flag, namesOf, readFields, refuse, type At, type InputOf } from '../core/fields.js';

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
  /** Extension (docs/media.md): the image's text alternative. */
  alt_text?: string | null;
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

/**
 * Comma-separated keywords: trimmed, empty ones dropped, duplicates (ignoring
 * case) dropped keeping the first spelling, order kept.
 */
export function parseKeywords(value: string, attr: string, field?: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of value.split(',')) {
    const k = raw.trim();
    if (k === '') continue;
    if (k.length > MAX_KEYWORD_LENGTH) throw invalid(`${attr}: a keyword is longer than ${MAX_KEYWORD_LENGTH} characters`, field);
    const key = k.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(k);
  }
  if (out.length > MAX_KEYWORDS) throw invalid(`${attr}: more than ${MAX_KEYWORDS} keywords`, field);
  return out;
}

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * An ISO 8601 capture time as stored in shot_at (UTC, toISOString form). A
 * date alone is midnight UTC; a time without offset is taken as UTC.
 */
export function parseCaptureTime(value: string, attr: string, field?: string): string {
  const v = value.trim();
  const m = ISO_8601.exec(v);
  if (!m) throw invalid(`${attr}: not an ISO 8601 date or time: ${JSON.stringify(value)}`, field);
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
    throw invalid(`${attr}: not a valid date or time: ${JSON.stringify(value)}`, field);
  }
  return d.toISOString();
}

export const MAX_KEYWORD_LENGTH = 255;
export const MAX_KEYWORDS = 500;
const MAX_OTHER_TEXT = 1000;

/** A text column: trimmed, blank clears it (null). */
const textColumn = (max: number) =>
  custom<string | null>((v, at) => {
    if (v === undefined) return undefined;
    const t = v.trim();
    if (t === '') return null;
    if (t.length > max) throw refuse(at, `${at.name} is longer than ${max} characters`);
    return t;
  });

/** A 0/1 flag stored as a number. */
const flagColumn = () => custom<number>((_v, at, s) => ((f) => (f === undefined ? undefined : f ? 1 : 0))(flag().read(s, at)));

/** Comma-separated keywords (parseKeywords). */
const keywordList = () => custom<string[]>((v, at) => (v === undefined ? undefined : parseKeywords(v, at.name, at.key)));

/** Array attributes: repeated values, or one comma-separated value; UUIDs the service resolves. */
const uuidRefs = () =>
  custom<string[]>(
    (_v, at, s) => {
      const sent = s.values(at.key);
      if (sent === undefined) return undefined;
      const list = sent.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
      if (list.length > MAX_LIST_VALUES) throw refuse(at, `parameter ${at.name} takes at most ${MAX_LIST_VALUES} values, got ${list.length}`);
      return list;
    },
    { kind: 'list', max: MAX_LIST_VALUES },
  );

function degrees(value: string, max: number, at: At): number {
  const v = value.trim();
  const n = Number(v);
  if (!/^[+-]?\d{1,3}(\.\d{1,12})?$/.test(v) || !Number.isFinite(n) || Math.abs(n) > max) throw refuse(at, `${at.name} must be decimal degrees from -${max} to ${max}, got ${JSON.stringify(value)}`);
  return n;
}

/** Extension (docs/media.md): decimal degrees, latitude and longitude sent together (an empty pair clears the position). */
const coordinate = (max: number, other: 'latitude' | 'longitude') =>
  custom<number | null>((v, at, s) => {
    const w = s.value(other);
    if (v === undefined && w === undefined) return undefined;
    const [lat, lon] = other === 'longitude' ? [v, w] : [w, v];
    const missingOne = lat === undefined ? 'latitude' : lon === undefined ? 'longitude' : undefined;
    if (missingOne) {
      const latAt = { ...at, key: 'latitude', name: at.naming('latitude') };
      throw refuse(latAt, `${at.naming(missingOne)} must be sent with ${at.naming(missingOne === 'latitude' ? 'longitude' : 'latitude')}`);
    }
    if (lat!.trim() === '' && lon!.trim() === '') return null;
    // The latitude is checked first, whichever field is being read.
    if (other === 'latitude') degrees(w!, 90, { ...at, key: 'latitude', name: at.naming('latitude') });
    return degrees(v!, max, at);
  });

/** Extension (docs/media.md): the licence's address, an http(s) address; empty clears it. */
const licenseField = () =>
  custom<string | null>((raw, at) => {
    if (raw === undefined) return undefined;
    const v = raw.trim();
    if (v === '') return null;
    let url: URL | undefined;
    try {
      url = new URL(v);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || v.length > 2048) throw refuse(at, `${at.name} must be an http or https address of at most 2048 characters`);
    return url.href;
  });

/** The attributes of a single media (`media[...]`), in the order they are checked. */
export const MEDIA_FIELDS = {
  title: textColumn(1000),
  description: textColumn(65_535),
  /** Extension (docs/media.md): what the picture shows, for the website's alt. */
  altText: textColumn(MAX_OTHER_TEXT),
  location: textColumn(MAX_OTHER_TEXT),
  city: textColumn(MAX_OTHER_TEXT),
  state: textColumn(MAX_OTHER_TEXT),
  country: textColumn(MAX_OTHER_TEXT),
  region: textColumn(MAX_OTHER_TEXT),
  author: textColumn(MAX_OTHER_TEXT),
  copyright: textColumn(MAX_OTHER_TEXT),
  license: licenseField(),
  latitude: coordinate(90, 'longitude'),
  longitude: coordinate(180, 'latitude'),
  modelRelease: flagColumn(),
  propertyRelease: flagColumn(),
  artistRating: custom<number>((v, at) => {
    if (v === undefined || v.trim() === '') return undefined;
    if (!/^\s*[0-5]\s*$/.test(v)) throw refuse(at, `${at.name} must be an integer from 0 to 5, got ${JSON.stringify(v)}`);
    return Number(v.trim());
  }),
  deleteArtistRating: flag(),
  dateCreated: custom<string | null>((v, at) => (v === undefined ? undefined : v.trim() === '' ? null : parseCaptureTime(v, at.name, at.key))),
  /** The library's UUID (resolved by the service). */
  artistId: custom<string>((v) => (v === undefined || v === '' ? undefined : v)),
  /** null: no watermark. */
  watermarkUuid: custom<string | null>((v) => (v === undefined ? undefined : v.trim() === '' ? null : v.trim())),
  keywords: keywordList(),
  addKeywords: keywordList(),
  removeKeywords: keywordList(),
  galleries: uuidRefs(),
  publishToGalleries: uuidRefs(),
  unpublishFromGalleries: uuidRefs(),
  mediasCollections: uuidRefs(),
  addToMediasCollections: uuidRefs(),
  removeFromMediasCollections: uuidRefs(),
  addPricingProfiles: uuidRefs(),
  removePricingProfiles: uuidRefs(),
};

const { author: _a, copyright: _c, license: _l, altText: _t, latitude: _la, longitude: _lo, ...BATCH_COMMON } = MEDIA_FIELDS;
/** The attributes of a batch update (`medias[...]`): no author, copyright or extension, and `delete`. */
export const MEDIAS_BATCH_FIELDS = {
  ...BATCH_COMMON,
  delete: custom<boolean>((raw, at) => {
    if (raw === undefined) return undefined;
    const v = raw.trim();
    if (v !== '1' && v !== '0' && v !== '') throw refuse(at, `${at.name} must be 1 to delete the medias, got ${JSON.stringify(v)}`);
    return v === '1' ? true : undefined;
  }),
};

export type MediaFields = InputOf<typeof MEDIA_FIELDS> & InputOf<typeof MEDIAS_BATCH_FIELDS>;

/** The typed attributes as the service takes them (columns by their names, UUIDs unresolved). */
export function mediaInput(f: MediaFields, prefix: 'media' | 'medias'): MediaInput {
  const columns: MediaInput['columns'] = {};
  for (const key of ['title', 'description', 'location', 'city', 'state', 'country', 'region', 'author', 'copyright', 'license', 'latitude', 'longitude'] as const) {
    if (f[key] !== undefined) (columns as Record<string, unknown>)[key] = f[key];
  }
  if (f.modelRelease !== undefined) columns.model_release = f.modelRelease;
  if (f.propertyRelease !== undefined) columns.property_release = f.propertyRelease;
  if (f.artistRating !== undefined) columns.artist_rating = f.artistRating;
  if (f.altText !== undefined) columns.alt_text = f.altText;
  if (f.deleteArtistRating === true) columns.artist_rating = null;
  if (f.dateCreated !== undefined) columns.shot_at = f.dateCreated;
  const input: MediaInput = { prefix, columns };
  if (f.artistId !== undefined) input.artist = f.artistId;
  if (f.watermarkUuid !== undefined) input.watermark = f.watermarkUuid;
  if (f.keywords !== undefined) input.keywords = f.keywords;
  if (f.addKeywords !== undefined) input.addKeywords = f.addKeywords;
  if (f.removeKeywords !== undefined) input.removeKeywords = f.removeKeywords;
  input.galleries = f.galleries;
  input.publish = f.publishToGalleries;
  input.unpublish = f.unpublishFromGalleries;
  input.collections = f.mediasCollections;
  input.addCollections = f.addToMediasCollections;
  input.removeCollections = f.removeFromMediasCollections;
  input.addPricing = f.addPricingProfiles;
  input.removePricing = f.removePricingProfiles;
  if (f.delete) input.delete = true;
  return input;
}

/** The attributes under `prefix` (`media[title]`, …) as a route's input: the spec's names and reading. */
export function mediaAttributes(prefix: 'media' | 'medias', mode: ChangeMode): Input<MediaInput> {
  const spec = mode === 'single' ? MEDIA_FIELDS : MEDIAS_BATCH_FIELDS;
  const naming = bracketNames(prefix, spec);
  return input(namesOf(spec, naming), (p) => mediaInput(readFields(spec, paramsSource(p, naming), naming), prefix), specDocs(spec, naming, 'update'));
}


