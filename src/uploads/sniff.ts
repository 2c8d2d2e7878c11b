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

/**
 * What sharp's decoder may find in a file accepted as each image type
 * (`metadata().format`, the loader libvips picked from the content). The
 * ladder decodes nothing else: libvips chooses its loader from the bytes,
 * not from our type, so a file whose content another loader claims is
 * refused before any pixel is read. `svg`, `pdf` and `magick` are never
 * listed: markup, documents and ImageMagick's hundreds of coders stay out of
 * the decoder. TIFF-based camera raw files decode as their TIFF preview;
 * formats this sharp cannot read have none and end `failed`.
 */
const DECODER_FORMATS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries({
    'image/jpeg': ['jpeg'], 'image/png': ['png'], 'image/gif': ['gif'], 'image/webp': ['webp'], 'image/tiff': ['tiff'],
    'image/heic': ['heif'], 'image/heic-sequence': ['heif'], 'image/heif': ['heif'], 'image/heif-sequence': ['heif'], 'image/avif': ['heif'],
    'image/jxl': ['jxl'], 'image/x-adobe-dng': ['tiff'], 'image/x-canon-cr2': ['tiff'], 'image/x-nikon-nef': ['tiff'], 'image/x-sony-arw': ['tiff'],
  }),
);

/** The decoder formats (sharp's names) a file accepted as `mimeType` may be decoded as; empty: none. */
export function decoderFormatsFor(mimeType: string): ReadonlySet<string> {
  return new Set(DECODER_FORMATS.get(mimeType) ?? []);
}

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

/** How far libvips looks for `<svg` when it guesses a loader from the bytes (its SVG_HEADER_SIZE). */
const DECODER_TEXT_WINDOW = 1000;
/** The printable ASCII (with tab, LF, CR) libvips requires of an SVG's first 24 bytes. */
const isTextByte = (b: number) => b === 9 || b === 10 || b === 13 || (b >= 0x20 && b < 0x7f);

const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');
const startsWith = (head: Uint8Array, magic: Uint8Array) => head.length >= magic.length && magic.every((b, k) => head[k] === b);

/**
 * Whether the file's bytes are markup (SVG, HTML, XML, a DASH manifest),
 * whatever container its magic numbers claim: `<!--ftypavif-->` followed by
 * `<svg>` passes file-type as AVIF, but sharp picks its loader from the
 * content and would rasterise the SVG; `<!--G…G-->` passes as MPEG-TS, and
 * an ffmpeg left to guess reads a DASH manifest that opens other files.
 * No accepted format begins with text that holds a tag, so such a file is
 * refused outright: either its first non-blank byte is `<`, or its first 24
 * bytes are text (libvips' own test for SVG, and no real image or video
 * header is) and a tag opens in the text that follows (up to the first NUL,
 * where ffmpeg's probes stop, and at least the window libvips searches).
 * A PDF is exempt from the second rule only: it is never decoded.
 */
export function isMarkup(head: Uint8Array): boolean {
  let i = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (i < head.length && (head[i] === 0x20 || head[i] === 9 || head[i] === 10 || head[i] === 13)) i++;
  if (head[i] === 0x3c) return true;
  // PDF is text with `<<` dictionaries and `</Name` keys, and goes to no decoder (documents get a drawn card).
  if (startsWith(head, PDF_MAGIC)) return false;
  const lead = Math.min(24, head.length);
  for (let j = 0; j < lead; j++) if (!isTextByte(head[j])) return false;
  let end = head.indexOf(0);
  if (end < 0) end = head.length;
  end = Math.max(end, Math.min(DECODER_TEXT_WINDOW, head.length));
  for (let j = 0; j + 1 < end; j++) {
    if (head[j] !== 0x3c) continue;
    const next = head[j + 1] | 0x20;
    // A tag, a closing tag, a comment or doctype (<!), a declaration (<?).
    if ((next >= 0x61 && next <= 0x7a) || head[j + 1] === 0x21 || head[j + 1] === 0x3f || head[j + 1] === 0x2f) return true;
  }
  return false;
}

/** The real type of a file from its first bytes; undefined when it is nothing the service accepts (markup never is). */
export async function sniffType(head: Uint8Array): Promise<SniffedType | undefined> {
  if (isMarkup(head)) return undefined;
  const found = await fileTypeFromBuffer(head);
  if (!found) return undefined;
  const kind = ACCEPTED_TYPES.get(found.mime);
  return kind ? { mimeType: found.mime, extension: found.ext, kind } : undefined;
}
