// The pure parts of metadata from the file and of its display: the mapping of
// exifr's output to media fields (sources, order, decoding, bounds), the
// client-wins rule, the JSON written into a page, and the labels of the media page.
import { describe, expect, it } from 'vitest';
import { clientBits, FIELD_BITS, fromFile } from '../../src/media/file-fields.js';
import { captureTimeText, licenseLabel, positionText } from '../../src/site/pages/media-facts.js';
import { cardRendition, jsonForScript, summary } from '../../src/site/pages/share.js';
import { cameraFacts, fileMetadata } from '../../src/uploads/file-metadata.js';

describe('fileMetadata', () => {
  it('takes XMP first, then IPTC, then EXIF, and language alternatives by x-default', () => {
    const out = fileMetadata({
      dc: { title: [{ lang: 'fr', value: 'Aube' }, { lang: 'x-default', value: 'Dawn' }], creator: ['First', 'Second'], subject: 'single' },
      iptc: { ObjectName: 'Iptc title', Caption: 'Iptc caption', Byline: 'Iptc author' },
      ifd0: { ImageDescription: 'Exif caption', Artist: 'Exif author', Copyright: 'Exif rights' },
    });
    expect(out).toEqual({ title: 'Dawn', description: 'Iptc caption', author: 'First', copyright: 'Exif rights', keywords: ['single'] });
  });

  it('reads UTF-8 that exifr took for Latin-1, keeps real Latin-1, undoes XML escapes, drops control characters', () => {
    const latin1Bytes = Buffer.from('Zoë', 'utf8').toString('latin1');
    expect(fileMetadata({ iptc: { Byline: latin1Bytes, City: 'Köln' } })).toEqual({ author: 'Zoë', city: 'Köln' });
    expect(fileMetadata({ dc: { title: 'A &amp; B &lt;i&gt; &#233;&#x1F600; &bogus;' } }).title).toBe('A & B <i> é😀 &bogus;');
    expect(fileMetadata({ dc: { title: 'a\u0000b\u0007c\r\nd  \t e' } }).title).toBe('abc\nd e');
  });

  it('bounds what a client could not send: long texts cut, long keywords left out, 500 at most', () => {
    const out = fileMetadata({ dc: { title: 'x'.repeat(1500), subject: ['k'.repeat(300), ...Array.from({ length: 600 }, (_, i) => `kw${i}`)] } });
    expect(out.title).toHaveLength(1000);
    expect(out.keywords).toHaveLength(500);
    expect(out.keywords![0]).toBe('kw0');
    // A cut never leaves half a surrogate pair.
    expect(fileMetadata({ dc: { title: 'x'.repeat(999) + '😀' } }).title).toBe('x'.repeat(999));
  });

  it('keeps only web addresses as a licence and a plausible GPS fix', () => {
    expect(fileMetadata({ xmpRights: { WebStatement: 'javascript:alert(1)' }, cc: { license: 'https://creativecommons.org/licenses/by/4.0/' } }).license).toBe('https://creativecommons.org/licenses/by/4.0/');
    expect(fileMetadata({ gps: { latitude: 0, longitude: 0 } }).latitude).toBeUndefined();
    expect(fileMetadata({ gps: { latitude: 95, longitude: 10 } }).latitude).toBeUndefined();
    expect(fileMetadata({ gps: { latitude: 12.34567891, longitude: -1.5 } })).toEqual({ latitude: 12.345679, longitude: -1.5 });
    expect(fileMetadata(undefined)).toEqual({});
  });
});

describe('cameraFacts', () => {
  it('names the camera once, with lens and exposure as numbers', () => {
    expect(cameraFacts({ ifd0: { Make: 'Canon', Model: 'Canon EOS R5' }, exif: { LensModel: 'RF50mm F1.2 L USM', FocalLength: 50, FNumber: 1.2, ExposureTime: 0.004, ISO: 400 } })).toEqual({
      camera: 'Canon EOS R5',
      lens: 'RF50mm F1.2 L USM',
      focalLength: 50,
      fNumber: 1.2,
      exposure: 0.004,
      iso: 400,
    });
    expect(cameraFacts({ ifd0: { Make: 'FUJIFILM', Model: 'X-T5' } })).toEqual({ camera: 'FUJIFILM X-T5' });
  });

  it('leaves out implausible or non-numeric exposure values, and says nothing for a file without them', () => {
    expect(cameraFacts({ exif: { FNumber: -2, ExposureTime: 'fast', ISO: Number.NaN, FocalLength: 1e9 } })).toBeUndefined();
    expect(cameraFacts({ exif: { ISO: [800, 0] } })).toEqual({ iso: 800 });
    expect(cameraFacts({ ifd0: { Model: 'x'.repeat(5000) } })?.camera).toHaveLength(255);
    expect(cameraFacts(undefined)).toBeUndefined();
  });
});

describe('the client-wins rule', () => {
  it('marks every fillable field a change set names, emptied ones included', () => {
    expect(clientBits({ columns: { title: null, latitude: 1, longitude: 2, model_release: 1 } })).toBe(FIELD_BITS.title | FIELD_BITS.position);
    expect(clientBits({ columns: {}, addKeywords: ['x'] })).toBe(FIELD_BITS.keywords);
    expect(clientBits({ columns: { artist_rating: 3 } })).toBe(0);
  });

  it('lets a file fill only the fields no client set, clearing what the new file lacks', () => {
    const set = FIELD_BITS.title | FIELD_BITS.keywords | FIELD_BITS.position;
    const out = fromFile(set, '2024-01-01T00:00:00.000Z', { title: 'file', author: 'file author', keywords: ['k'], latitude: 1, longitude: 2 });
    expect(out.keywords).toBeUndefined();
    expect(out.columns).toEqual({ description: null, author: 'file author', copyright: null, license: null, location: null, city: null, state: null, country: null, shot_at: '2024-01-01T00:00:00.000Z' });
    expect(fromFile(0, undefined, {}).keywords).toEqual([]);
  });
});

describe('what the pages write', () => {
  it('JSON for a script element: no < > & or line separators, and it reads back the same', () => {
    const value = { name: '</script><script>alert(1)</script> & \u2028' };
    const json = jsonForScript(value);
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual(value);
  });

  it('a card picks the JPEG of at least 1200 px, else the largest', () => {
    const r = (name: string, w: number, mime = 'image/jpeg') => ({ media_id: 1, name, width: w, height: Math.round((w * 2) / 3), mime_type: mime, storage_key: `${name}.${mime}`, watermarked: 0 });
    expect(cardRendition([r('640', 640), r('1280', 1280, 'image/webp'), r('1280', 1280), r('2048', 2048)])!.storage_key).toBe('1280.image/jpeg');
    expect(cardRendition([r('320', 320), r('640', 640)])!.name).toBe('640');
    expect(cardRendition([])).toBeUndefined();
  });

  it('labels: capture time, position, licence, summary', () => {
    expect(captureTimeText('2024-05-06T05:08:09.000Z')).toBe('6 May 2024, 05:08 UTC');
    expect(positionText({ latitude: -33.8568, longitude: 151.2153 })).toBe('33.85680° S, 151.21530° E');
    expect(licenseLabel('https://creativecommons.org/licenses/by-nc-sa/4.0/')).toBe('CC BY-NC-SA 4.0');
    expect(licenseLabel('https://creativecommons.org/publicdomain/zero/1.0/')).toBe('CC0 1.0');
    expect(licenseLabel('https://example.com/terms/')).toBe('example.com/terms');
    expect(summary('word '.repeat(100))!.length).toBeLessThanOrEqual(300);
    expect(summary('  ')).toBeUndefined();
  });
});

describe('reading the head of a file', () => {
  it('leaves out an XMP packet of absurd size, still reading the file', async () => {
    const { default: sharp } = await import('sharp');
    const { readMediaFacts } = await import('../../src/uploads/media-facts.js');
    const packet = (inner: string) => `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">${inner}</rdf:Description></rdf:RDF></x:xmpmeta>`;
    const title = '<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Kept</rdf:li></rdf:Alt></dc:title>';
    const file = (xmp: string) => sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).tiff().withXmp(xmp).toBuffer();
    const type = { kind: 'image', mimeType: 'image/tiff' } as const;
    const normal = await file(packet(title + '<dc:subject><rdf:Bag>' + '<rdf:li>k</rdf:li>'.repeat(400) + '</rdf:Bag></dc:subject>'));
    expect((await readMediaFacts(type as never, normal, normal)).described).toEqual({ title: 'Kept', keywords: ['k'] });
    const nested = await file(packet(title + '<dc:subject><rdf:Bag>'.repeat(6000) + '</rdf:Bag></dc:subject>'.repeat(6000)));
    const head = nested.subarray(0, 256 * 1024);
    const facts = await readMediaFacts(type as never, head, head);
    expect(facts.described).toBeUndefined();
    expect([facts.width, facts.height]).toEqual([8, 8]);
  });
});
