// Which files an upload may be, decided from their bytes (src/uploads/sniff.ts):
// the accepted types, markup refused whatever container its first bytes
// claim, and what the image decoder may be handed for each type. The
// HTTP-level contract (the reply to a refused or renamed file, nothing
// stored, hostile files through the whole upload) stays in
// test/api/uploads-flow.test.ts, decoder-corpus.test.ts and renditions.test.ts.
import { describe, expect, it } from 'vitest';
import { decoderFormatsFor, isMarkup, normalizeDeclaredType, sniffType, UNKNOWN_TYPE } from '../../src/uploads/sniff.js';

const bytes = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
// The first bytes of real files, as long as file-type needs them.
const PNG = bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], [0, 0, 0, 13], 'IHDR', [0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0, 0x90, 0x77, 0x53, 0xde]);
const JPEG = bytes([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10], 'JFIF', [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
const PDF = bytes('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n');
const GIF = bytes('GIF89a', [1, 0, 1, 0, 0, 0, 0]);

describe('sniffing an upload', () => {
  it('names accepted files by their bytes, whatever they were called', async () => {
    expect(await sniffType(PNG)).toEqual({ mimeType: 'image/png', extension: 'png', kind: 'image' });
    expect(await sniffType(JPEG)).toEqual({ mimeType: 'image/jpeg', extension: 'jpg', kind: 'image' });
    expect(await sniffType(GIF)).toMatchObject({ mimeType: 'image/gif', kind: 'image' });
    expect(await sniffType(PDF)).toEqual({ mimeType: 'application/pdf', extension: 'pdf', kind: 'document' });
  });

  it('refuses what it does not accept or cannot recognise', async () => {
    expect(await sniffType(bytes('PK', [3, 4, 20, 0, 0, 0, 8, 0], 'not a photo'))).toBeUndefined();
    expect(await sniffType(bytes('plain text, nothing else'))).toBeUndefined();
    expect(await sniffType(bytes([0, 1, 2, 3, 4, 5, 6, 7]))).toBeUndefined();
    expect(await sniffType(bytes())).toBeUndefined();
  });

  it('refuses markup, also behind a byte-order mark, blanks, or another format\'s magic numbers', async () => {
    expect(isMarkup(bytes('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe(true);
    expect(isMarkup(bytes([0xef, 0xbb, 0xbf], ' \r\n\t<html>'))).toBe(true);
    // An SVG that file-type would take for AVIF, and a DASH manifest it would take for MPEG-TS.
    const avifSvg = bytes('<!--ftypavif-->', '<svg xmlns="http://www.w3.org/2000/svg"/>');
    expect(await sniffType(avifSvg)).toBeUndefined();
    expect(isMarkup(bytes('\0\0\0\x1cftypavif text and then <svg>'))).toBe(false);
    expect(isMarkup(bytes('G'.repeat(30), ' <MPD type="static">'))).toBe(true);
    expect(isMarkup(bytes('text header of 24+ bytes <?xml version="1.0"?>'))).toBe(true);
    expect(isMarkup(bytes('text header of 24+ bytes </x>'))).toBe(true);
    // Text without a tag, a binary header, and a PDF (its `<<` and `</Name` never reach a decoder) are no markup.
    expect(isMarkup(bytes('text header of 24+ bytes, 1 < 2 and 3 <= 4'))).toBe(false);
    expect(isMarkup(PNG)).toBe(false);
    expect(isMarkup(bytes('%PDF-1.7 <</Type /Page>> </Name'))).toBe(false);
  });

  it('hands the image decoder only the format of the accepted type, and never markup, documents or ImageMagick', () => {
    expect([...decoderFormatsFor('image/jpeg')]).toEqual(['jpeg']);
    expect([...decoderFormatsFor('image/avif')]).toEqual(['heif']);
    expect([...decoderFormatsFor('image/x-canon-cr2')]).toEqual(['tiff']);
    for (const type of ['application/pdf', 'video/mp4', 'image/svg+xml', 'image/bmp', 'constructor', '']) expect(decoderFormatsFor(type).size, type).toBe(0);
    for (const never of ['svg', 'pdf', 'magick']) {
      for (const type of ['image/jpeg', 'image/png', 'image/tiff', 'image/heic', 'image/webp', 'image/gif']) expect(decoderFormatsFor(type).has(never)).toBe(false);
    }
  });

  it('reads a client\'s words for the type as no more than a default, and names from its own maps only', () => {
    expect(normalizeDeclaredType('IMAGE/JPG; charset=binary', 'x')).toEqual({ mimeType: 'image/jpeg', refused: false });
    expect(normalizeDeclaredType(undefined, 'IMG_0001.CR2')).toEqual({ mimeType: 'image/x-canon-cr2', refused: false });
    // Object keys every object has are no extension nor alias.
    expect(normalizeDeclaredType('constructor', 'x.constructor')).toEqual({ mimeType: UNKNOWN_TYPE, refused: false });
    expect(normalizeDeclaredType('text/html', 'page.html')).toEqual({ mimeType: 'text/html', refused: true });
    expect(normalizeDeclaredType('image/x-something', 'photo')).toEqual({ mimeType: 'image/x-something', refused: false });
  });
});
