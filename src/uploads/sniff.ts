// Which files the service accepts, decided from their bytes (file-type), and
// the declared type normalised for the step-1 reply. A media is an image, a
// video or a document (spec 2.6); anything else is refused.
import { fileTypeFromBuffer } from 'file-type';

export type MediaKind = 'image' | 'video' | 'document';

/** Accepted MIME types, as file-type names them. */
export const ACCEPTED_TYPES: ReadonlyMap<string, MediaKind> = new Map<string, MediaKind>([
  ['image/jpeg', 'image'],
  ['image/png', 'image'],
  ['image/gif', 'image'],
  ['image/webp', 'image'],
  ['image/tiff', 'image'],
  ['image/heic', 'image'],
  ['image/heic-sequence', 'image'],
  ['image/heif', 'image'],
  ['image/heif-sequence', 'image'],
  ['image/avif', 'image'],
  ['image/bmp', 'image'],
  ['image/jxl', 'image'],
  ['image/vnd.adobe.photoshop', 'image'],
  // Camera raw formats file-type recognises.
  ['image/x-adobe-dng', 'image'],
  ['image/x-canon-cr2', 'image'],
  ['image/x-canon-cr3', 'image'],
  ['image/x-nikon-nef', 'image'],
  ['image/x-sony-arw', 'image'],
  ['image/x-olympus-orf', 'image'],
  ['image/x-panasonic-rw2', 'image'],
  ['image/x-fujifilm-raf', 'image'],
  ['video/mp4', 'video'],
  ['video/quicktime', 'video'],
  ['video/x-m4v', 'video'],
  ['video/vnd.avi', 'video'],
  ['video/matroska', 'video'],
  ['video/webm', 'video'],
  ['video/mpeg', 'video'],
  ['video/3gpp', 'video'],
  // AVCHD camcorder files (.mts, .m2ts).
  ['video/mp2t', 'video'],
  ['application/pdf', 'document'],
]);

// Maps, not object literals: the keys come from clients, and `constructor` is a key of every object.
const BY_EXTENSION: ReadonlyMap<string, string> = new Map(
  Object.entries({
    jpg: 'image/jpeg', jpeg: 'image/jpeg', jpe: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp',
    tif: 'image/tiff', tiff: 'image/tiff', heic: 'image/heic', heif: 'image/heif', avif: 'image/avif', bmp: 'image/bmp',
    jxl: 'image/jxl', psd: 'image/vnd.adobe.photoshop', dng: 'image/x-adobe-dng', cr2: 'image/x-canon-cr2',
    cr3: 'image/x-canon-cr3', nef: 'image/x-nikon-nef', arw: 'image/x-sony-arw', orf: 'image/x-olympus-orf',
    rw2: 'image/x-panasonic-rw2', raf: 'image/x-fujifilm-raf', mp4: 'video/mp4', mov: 'video/quicktime',
    qt: 'video/quicktime', m4v: 'video/x-m4v', avi: 'video/vnd.avi', mkv: 'video/matroska', webm: 'video/webm',
    mpg: 'video/mpeg', mpeg: 'video/mpeg', '3gp': 'video/3gpp', mts: 'video/mp2t', m2ts: 'video/mp2t', pdf: 'application/pdf',
  }),
);

/** Other names clients use for accepted types. */
const ALIASES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg', 'image/x-png': 'image/png', 'image/x-tiff': 'image/tiff',
    'image/x-ms-bmp': 'image/bmp', 'image/x-dng': 'image/x-adobe-dng', 'image/x-adobe-photoshop': 'image/vnd.adobe.photoshop',
    'video/avi': 'video/vnd.avi', 'video/x-msvideo': 'video/vnd.avi', 'video/msvideo': 'video/vnd.avi',
    'video/x-matroska': 'video/matroska', 'application/x-pdf': 'application/pdf',
  }),
);

export const UNKNOWN_TYPE = 'application/octet-stream';

/** How many leading bytes sniffing (and EXIF) needs; TIFF-based raw files keep their tags early. */
export const SNIFF_BYTES = 256 * 1024;

function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot < 0 ? '' : fileName.slice(dot + 1).toLowerCase();
}

export interface DeclaredType {
  /** The type the service will use until the bytes say otherwise (step-1 `mime-type`). */
  mimeType: string;
  /** The declaration names something the service never accepts (text, audio, archives…). */
  refused: boolean;
}

/**
 * The declared MIME type normalised (aliases, parameters, case), or the type
 * of the file-name extension when the declaration says nothing useful.
 */
export function normalizeDeclaredType(declared: string | undefined, fileName: string): DeclaredType {
  const raw = (declared ?? '').split(';')[0].trim().toLowerCase();
  const aliased = ALIASES.get(raw) ?? raw;
  if (ACCEPTED_TYPES.has(aliased)) return { mimeType: aliased, refused: false };
  const byExtension = BY_EXTENSION.get(extensionOf(fileName));
  if (byExtension) return { mimeType: byExtension, refused: false };
  const vague = aliased === '' || aliased === UNKNOWN_TYPE || aliased === 'binary/octet-stream' || !/^[a-z0-9.+-]+\/[a-z0-9.+-]+$/.test(aliased);
  if (vague) return { mimeType: UNKNOWN_TYPE, refused: false };
  // image/* and video/* we do not know may still be something the bytes reveal.
  const maybeMedia = aliased.startsWith('image/') || aliased.startsWith('video/') || aliased.startsWith('application/x-');
  return { mimeType: aliased, refused: !maybeMedia };
}

export interface SniffedType {
  mimeType: string;
  extension: string;
  kind: MediaKind;
}

/** The real type of a file from its first bytes; undefined when it is nothing the service accepts. */
export async function sniffType(head: Uint8Array): Promise<SniffedType | undefined> {
  const found = await fileTypeFromBuffer(head);
  if (!found) return undefined;
  const kind = ACCEPTED_TYPES.get(found.mime);
  return kind ? { mimeType: found.mime, extension: found.ext, kind } : undefined;
}
