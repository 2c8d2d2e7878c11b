// What the service reads from an accepted image: pixel size (sharp, the header only), capture time
// and descriptive fields (exifr, one parse of the leading chunk already read to sniff the type;
// file-metadata.ts maps them). A file whose metadata cannot be read is still a valid upload,
// without these facts. Which fields, from where, and the cost: docs/media.md, "Metadata from the
// file".
import exifr from 'exifr';
import sharp from 'sharp';
import { cameraFacts, fileMetadata, type CameraFacts, type FileMetadata } from './file-metadata.js';
import { decoderFormatsFor, type SniffedType } from './sniff.js';

export interface MediaFacts {
  width?: number;
  height?: number;
  /** ISO 8601 UTC capture time. */
  shotAt?: string;
  /** Title, caption, keywords, credits, licence, place and position the file carries. */
  described?: FileMetadata;
  /** Camera, lens and exposure (EXIF). */
  camera?: CameraFacts;
}

// Formats sharp decodes headers of; camera raw files would report their embedded preview.
const SHARP_READABLE = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/tiff', 'image/avif', 'image/heif', 'image/heic']);
const EXIF_READABLE = /^image\/(jpeg|tiff|heic|heif|avif|png|webp|x-)/;

/** `input` is a local path (preferred: random access) or the file's first bytes. */
export async function readMediaFacts(type: SniffedType, input: string | Buffer, head: Buffer): Promise<MediaFacts> {
  const facts: MediaFacts = {};
  if (type.kind !== 'image') return facts;
  if (SHARP_READABLE.has(type.mimeType)) {
    try {
      const meta = await sharp(input, { failOn: 'none' }).metadata();
      // The loader libvips picked from the content must be the accepted type's: no facts from anything else.
      if (!decoderFormatsFor(type.mimeType).has(meta.format)) return facts;
      const oriented = meta.autoOrient ?? meta;
      if (oriented.width && oriented.height) {
        facts.width = oriented.width;
        facts.height = oriented.height;
      }
    } catch {
      // Unreadable header (truncated chunk, codec not built in): no dimensions.
    }
  }
  if (EXIF_READABLE.test(type.mimeType)) {
    const tags = await readTags(head);
    facts.shotAt = captureTime(tags);
    const described = fileMetadata(tags);
    if (Object.keys(described).length > 0) facts.described = described;
    const camera = cameraFacts(tags);
    if (camera) facts.camera = camera;
  }
  return facts;
}

type Tags = Record<string, unknown>;

/**
 * Elements (counted as `<` from the XMP packet's start to the end of the head) beyond which the
 * XMP is not read: real packets have hundreds (a long edit history some thousands), and exifr's
 * reading of XML grows faster than the nesting (0.8 s of one core for 256 KiB of nested tags).
 */
const MAX_XMP_TAGS = 10_000;

function xmpTooLarge(head: Buffer): boolean {
  const start = head.indexOf('<x:xmpmeta');
  if (start < 0) return false;
  let n = 0;
  for (let i = head.indexOf(0x3c, start); i >= 0; i = head.indexOf(0x3c, i + 1)) if (++n > MAX_XMP_TAGS) return true;
  return false;
}

/** Every segment at once (one parse), each its own object; no thumbnail, no maker notes. */
async function readTags(head: Buffer): Promise<Tags | undefined> {
  try {
    return (await exifr.parse(head, {
      tiff: true,
      exif: true,
      gps: true,
      ifd1: false,
      iptc: true,
      xmp: !xmpTooLarge(head),
      icc: false,
      jfif: false,
      ihdr: false,
      makerNote: false,
      userComment: false,
      mergeOutput: false,
      reviveValues: false,
    })) as Tags | undefined;
  } catch {
    return undefined;
  }
}

/** DateTimeOriginal (or CreateDate), with OffsetTimeOriginal when present, else read as UTC. */
function captureTime(tags: Tags | undefined): string | undefined {
  const exif = (tags?.exif ?? {}) as Tags;
  const raw = exif.DateTimeOriginal ?? exif.CreateDate;
  if (typeof raw !== 'string') return undefined;
  const m = /^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(raw.trim());
  if (!m || m[1] === '0000') return undefined;
  const offsetTag = exif.OffsetTimeOriginal ?? exif.OffsetTime;
  const offset = typeof offsetTag === 'string' && /^[+-]\d{2}:\d{2}$/.test(offsetTag.trim()) ? offsetTag.trim() : 'Z';
  const date = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${offset}`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
