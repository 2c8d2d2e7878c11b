// What a picture says about itself (IPTC, XMP, EXIF), as media fields: read
// once at upload from the tags exifr parsed out of the file's head, and
// bounded like the same fields sent by a client (src/media/metadata.ts). Pure:
// the reading of the bytes is media-facts.ts's. Which of these a media keeps
// (a client's value always wins) is the media feature's rule (docs/media.md).

/** The media fields a file may fill, with the values it gave (absent: the file says nothing). */
export interface FileMetadata {
  title?: string;
  description?: string;
  keywords?: string[];
  author?: string;
  copyright?: string;
  /** A URL (http or https): the licence's page (XMP xmpRights:WebStatement or cc:license). */
  license?: string;
  /** WGS 84 degrees, both or neither. */
  latitude?: number;
  longitude?: number;
  location?: string;
  city?: string;
  state?: string;
  country?: string;
}

// The client's bounds (src/media/metadata.ts): a file is no more trusted than a client.
const MAX_TEXT = 1000;
const MAX_DESCRIPTION = 65_535;
const MAX_KEYWORD = 255;
const MAX_KEYWORDS = 500;

type Tags = Record<string, unknown>;

/**
 * Reads the fields from exifr's output (`mergeOutput: false`: one object per segment, `xmp`
 * namespaces by prefix). For each field the first source that has it wins: XMP (what current
 * software writes, in UTF-8), then IPTC, then EXIF — the order of the Metadata Working Group's
 * guidance when they disagree.
 */
export function fileMetadata(parsed: Tags | undefined): FileMetadata {
  if (!parsed) return {};
  const dc = obj(parsed.dc);
  const iptc = obj(parsed.iptc);
  const ifd0 = obj(parsed.ifd0);
  const photoshop = obj(parsed.photoshop);
  const core = obj(parsed.Iptc4xmpCore);
  const rights = obj(parsed.xmpRights);
  const cc = obj(parsed.cc);
  const gps = obj(parsed.gps);

  const out: FileMetadata = {};
  const set = (field: Exclude<keyof FileMetadata, 'keywords' | 'latitude' | 'longitude'>, max: number, ...candidates: unknown[]) => {
    for (const c of candidates) {
      const v = bounded(text(c), max);
      if (v !== undefined) {
        out[field] = v;
        return;
      }
    }
  };
  set('title', MAX_TEXT, dc.title, iptc.ObjectName);
  set('description', MAX_DESCRIPTION, dc.description, iptc.Caption, ifd0.ImageDescription);
  set('author', MAX_TEXT, dc.creator, iptc.Byline, ifd0.Artist);
  set('copyright', MAX_TEXT, dc.rights, iptc.CopyrightNotice, ifd0.Copyright);
  set('location', MAX_TEXT, core.Location, iptc.Sublocation);
  set('city', MAX_TEXT, photoshop.City, iptc.City);
  set('state', MAX_TEXT, photoshop.State, iptc.State);
  set('country', MAX_TEXT, photoshop.Country, iptc.Country);

  const license = [rights.WebStatement, cc.license].map((v) => webAddress(text(v))).find((v) => v !== undefined);
  if (license) out.license = license;

  const keywords = keywordList(dc.subject) ?? keywordList(iptc.Keywords);
  if (keywords) out.keywords = keywords;

  const lat = gps.latitude;
  const lon = gps.longitude;
  if (typeof lat === 'number' && typeof lon === 'number' && Number.isFinite(lat) && Number.isFinite(lon) && Math.abs(lat) <= 90 && Math.abs(lon) <= 180 && !(lat === 0 && lon === 0)) {
    // About 11 cm: all a camera's fix means.
    out.latitude = Math.round(lat * 1e6) / 1e6;
    out.longitude = Math.round(lon * 1e6) / 1e6;
  }
  return out;
}

/** The camera and the exposure a photo was taken with (EXIF), shown in the studio; never set by a client. */
export interface CameraFacts {
  camera?: string;
  lens?: string;
  /** Millimetres. */
  focalLength?: number;
  fNumber?: number;
  /** Seconds. */
  exposure?: number;
  iso?: number;
}

const MAX_CAMERA_TEXT = 255;

/** EXIF's Make and Model (the model alone when it names the make already), lens and exposure; undefined when none. */
export function cameraFacts(parsed: Tags | undefined): CameraFacts | undefined {
  if (!parsed) return undefined;
  const ifd0 = obj(parsed.ifd0);
  const exif = obj(parsed.exif);
  const out: CameraFacts = {};
  const make = bounded(text(ifd0.Make), MAX_CAMERA_TEXT);
  const model = bounded(text(ifd0.Model), MAX_CAMERA_TEXT);
  const camera = make && model && !model.toLowerCase().startsWith(make.toLowerCase()) ? `${make} ${model}` : (model ?? make);
  if (camera) out.camera = bounded(camera, MAX_CAMERA_TEXT);
  const lens = bounded(text(exif.LensModel), MAX_CAMERA_TEXT);
  if (lens) out.lens = lens;
  const within = (v: unknown, max: number) => (typeof v === 'number' && Number.isFinite(v) && v > 0 && v < max ? v : undefined);
  const focal = within(exif.FocalLength, 100_000);
  if (focal !== undefined) out.focalLength = Math.round(focal * 10) / 10;
  const f = within(exif.FNumber, 1000);
  if (f !== undefined) out.fNumber = Math.round(f * 10) / 10;
  const exposure = within(exif.ExposureTime, 1_000_000);
  if (exposure !== undefined) out.exposure = exposure;
  const iso = within(Array.isArray(exif.ISO) ? exif.ISO[0] : exif.ISO, 10_000_000);
  if (iso !== undefined) out.iso = Math.round(iso);
  return Object.keys(out).length > 0 ? out : undefined;
}

function obj(v: unknown): Tags {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Tags) : {};
}

/**
 * One text from a tag as exifr gives it: a string, a number, a language alternative
 * (`{ lang, value }`, or a list of them: `x-default` first) or a sequence (its first item:
 * dc:creator's first author).
 */
function text(v: unknown): string | undefined {
  if (typeof v === 'string') return clean(v);
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (Array.isArray(v)) {
    const alt = v.find((x) => obj(x).lang === 'x-default') ?? v[0];
    return text(alt);
  }
  if (v !== null && typeof v === 'object' && 'value' in v) return text((v as { value: unknown }).value);
  return undefined;
}

function bounded(v: string | undefined, max: number): string | undefined {
  if (v === undefined || v === '') return undefined;
  // Cut on a character, not inside a surrogate pair.
  return v.length <= max ? v : v.slice(0, max).replace(/[\uD800-\uDBFF]$/, '').trim();
}

function keywordList(v: unknown): string[] | undefined {
  const items = (Array.isArray(v) ? v : [v]).map(text).filter((k): k is string => k !== undefined);
  const seen = new Set<string>();
  const out: string[] = [];
  // The client's rule (parseKeywords): trimmed, no empty ones, duplicates ignoring case dropped.
  // A keyword a client could not send (too long) is left out rather than refusing the file.
  for (const item of items) {
    for (const raw of item.split(/[,;]/)) {
      const k = raw.trim();
      if (k === '' || k.length > MAX_KEYWORD || seen.has(k.toLowerCase())) continue;
      seen.add(k.toLowerCase());
      out.push(k);
      if (out.length === MAX_KEYWORDS) return out;
    }
  }
  return out.length > 0 ? out : undefined;
}

function webAddress(v: string | undefined): string | undefined {
  if (!v || v.length > 2048) return undefined;
  try {
    const url = new URL(v);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * A tag's string made fit to keep: exifr leaves XMP's XML escapes as written and reads IPTC
 * and EXIF strings as Latin-1, while current software writes them in UTF-8 (decoded again when
 * they are valid UTF-8); NUL and other control characters (PostgreSQL refuses NUL) go, runs of
 * spaces and tabs become one space (line breaks stay: a caption may have paragraphs).
 */
function clean(raw: string): string {
  let s = raw;
  if (/[\u0080-\u00ff]/.test(s) && !/[^\u0000-\u00ff]/.test(s)) {
    try {
      s = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(s, 'latin1'));
    } catch {
      // Not UTF-8: Latin-1 it was.
    }
  }
  s = s.replace(/&(amp|lt|gt|quot|apos|#\d{1,7}|#x[0-9a-f]{1,6});/gi, (m, name: string) => {
    if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? m;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '';
  });
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufeff]/g, '').replace(/\r\n?/g, '\n').replace(/[^\S\n]+/g, ' ').trim();
}
