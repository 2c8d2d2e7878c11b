// Metadata from the file (docs/media.md): title, caption, keywords, creator,
// copyright, licence, capture time, place and GPS position read from XMP, IPTC
// and EXIF when a file arrives, for the fields no API client has set; a
// client's value wins, also when a later file replaces the first.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, find, text, type XmlNode } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { failure, getMedia, updateMedia } from '../support/media.js';
import { startWorld, type World } from '../support/world.js';
import { taggedJpeg, type TaggedJpeg } from '../support/file-metadata.js';
import { postUpload, uploadParamsOf } from './uploads-support.js';

const LICENSE = 'https://creativecommons.org/licenses/by-nc/4.0/';

/** A file as Lightroom writes one: XMP with everything, EXIF with the camera's time, author and position. */
const FULL: TaggedJpeg = {
  xmp: {
    title: 'Harbour & boats',
    description: 'Morning fog over <the> harbour',
    creator: 'Ann Lee',
    rights: '© 2026 Ann Lee',
    subject: ['fog', 'Harbour', 'FOG', 'boats'],
    webStatement: LICENSE,
    city: 'Brest',
    country: 'France',
  },
  exif: {
    artist: 'Camera Owner',
    description: 'EXIF description',
    shot: '2024:05:06 07:08:09',
    offset: '+02:00',
    gps: { lat: [48, 23, 30], latRef: 'N', lon: [4, 29, 0], lonRef: 'W' },
  },
};

eachDatabase((kind) => {
  let w: World;
  beforeAll(async () => {
    w = await startWorld(kind);
  });
  afterAll(() => w?.svc.close());

  const direct = async (data: Buffer, fields: Record<string, string> = {}) => {
    const r = await w.client.request('POST', '/medias.xml', fields, { file: { field: 'media[content]', fileName: 'photo.jpg', contentType: 'image/jpeg', data } });
    return text(r.doc, 'media/uuid')!;
  };
  const replace = (uuid: string, data: Buffer, fields: Record<string, string> = {}) =>
    w.client.request('PUT', `/medias/${uuid}.xml`, fields, { methodOverride: true, file: { field: 'media[content]', fileName: 'photo.jpg', contentType: 'image/jpeg', data } });
  const details = async (uuid: string, view?: string) => find((await getMedia(w.client, uuid, view)).doc, 'media')!;
  const keywords = (m: XmlNode) => all(m, 'keywords/keyword').map((k) => k.text);
  const isNil = (m: XmlNode, name: string) => m.children.find((c) => c.name === name)?.attrs.nil === 'true';

  it('fills title, caption, keywords, credits, licence, capture time, place and position from XMP and EXIF', async () => {
    const uuid = await direct(await taggedJpeg(FULL));
    const m = await details(uuid);
    // XMP first: it wins over EXIF's description and artist; its XML escapes are undone.
    expect(text(m, 'title')).toBe('Harbour & boats');
    expect(text(m, 'description')).toBe('Morning fog over <the> harbour');
    expect(text(m, 'author')).toBe('Ann Lee');
    expect(text(m, 'copyright')).toBe('© 2026 Ann Lee');
    // The client's keyword rule: duplicates (any case) dropped, first spelling and order kept.
    expect(keywords(m)).toEqual(['fog', 'Harbour', 'boats']);
    expect(text(m, 'license')).toBe(LICENSE);
    expect(text(m, 'city')).toBe('Brest');
    expect(text(m, 'country')).toBe('France');
    expect(text(m, 'shot-at')).toBe('2024-05-06T05:08:09+00:00');
    expect(Number(text(m, 'latitude'))).toBeCloseTo(48.391667, 6);
    expect(Number(text(m, 'longitude'))).toBeCloseTo(-4.483333, 6);
    // Decimal degrees are not typed integer.
    expect(m.children.find((c) => c.name === 'latitude')!.attrs.type).toBeUndefined();
    // What a visitor may see of it includes them.
    const pub = await details(uuid, 'public_details');
    expect([text(pub, 'author'), text(pub, 'license'), text(pub, 'latitude') !== undefined]).toEqual(['Ann Lee', LICENSE, true]);
  });

  it('reads IPTC-IIM (UTF-8) through the three upload steps, and EXIF when nothing better is there', async () => {
    const data = await taggedJpeg({
      iptc: [
        [5, 'Rhône at night'],
        [120, 'Lights on the river'],
        [25, 'river'],
        [25, 'night'],
        [80, 'Zoë Martin'],
        [116, '© Zoë Martin'],
        [90, 'Lyon'],
        [95, 'Auvergne-Rhône-Alpes'],
        [101, 'France'],
        [92, 'Quai Saint-Antoine'],
      ],
      exif: { copyright: 'ignored: IPTC has one', description: 'ignored too' },
    });
    const r1 = await w.client.request('POST', '/medias.xml', {
      'media[content][upload_location]': 'REQUEST',
      'media[content][file_name]': 'night.jpg',
      'media[content][file_size]': data.length,
      'media[content][mime_type]': 'image/jpeg',
    });
    const media = find(r1.doc, 'media')!;
    const r2 = await postUpload(text(media, 'upload-url')!, uploadParamsOf(media), { field: text(media, 'upload-file-param')!, data, name: 'night.jpg', type: 'image/jpeg' });
    expect(r2.status).toBe(200);
    await w.client.completeUpload(media, data.length);
    const m = await details(text(media, 'uuid')!);
    expect([text(m, 'title'), text(m, 'description'), text(m, 'author'), text(m, 'copyright')]).toEqual(['Rhône at night', 'Lights on the river', 'Zoë Martin', '© Zoë Martin']);
    expect(keywords(m)).toEqual(['river', 'night']);
    expect([text(m, 'location'), text(m, 'city'), text(m, 'state'), text(m, 'country')]).toEqual(['Quai Saint-Antoine', 'Lyon', 'Auvergne-Rhône-Alpes', 'France']);
    expect(isNil(m, 'latitude') && isNil(m, 'license') && isNil(m, 'shot-at')).toBe(true);

    const exifOnly = await details(await direct(await taggedJpeg({ exif: { artist: 'Only Exif', description: 'From EXIF', copyright: 'Exif rights' } })));
    expect([text(exifOnly, 'author'), text(exifOnly, 'description')]).toEqual(['Only Exif', 'From EXIF']);
    expect(isNil(exifOnly, 'title')).toBe(true);
  });

  it('keeps what the client sent with the upload, an emptied field included', async () => {
    const uuid = await direct(await taggedJpeg(FULL), { 'media[title]': 'My own title', 'media[keywords]': '', 'media[date_created]': '2020-01-02T03:04:05Z', 'media[city]': '' });
    const m = await details(uuid);
    expect(text(m, 'title')).toBe('My own title');
    // Sent empty: the client chose none; the file does not fill them.
    expect(keywords(m)).toEqual([]);
    expect(isNil(m, 'city')).toBe(true);
    expect(text(m, 'shot-at')).toBe('2020-01-02T03:04:05+00:00');
    // The fields it did not send come from the file.
    expect(text(m, 'author')).toBe('Ann Lee');
    expect(text(m, 'country')).toBe('France');
  });

  it('keeps a later PUT of the client over a replacement file, whose own values replace the first file’s', async () => {
    const uuid = await direct(await taggedJpeg(FULL));
    // The photographer corrects the author and takes the position off (privacy).
    await updateMedia(w.client, uuid, { 'media[author]': 'Ann Lee Studio', 'media[latitude]': '', 'media[longitude]': '' });
    const second = await taggedJpeg({
      seed: 2,
      xmp: { title: 'Second take', creator: 'Someone Else', subject: ['dusk'] },
      exif: { shot: '2025:01:01 10:00:00', gps: { lat: [10, 0, 0], latRef: 'S', lon: [20, 0, 0], lonRef: 'E' } },
    });
    await replace(uuid, second);
    const m = await details(uuid);
    expect(text(m, 'author')).toBe('Ann Lee Studio');
    expect(isNil(m, 'latitude') && isNil(m, 'longitude')).toBe(true);
    // Not set by the client: the new file's, or nothing when the new file has none.
    expect(text(m, 'title')).toBe('Second take');
    expect(keywords(m)).toEqual(['dusk']);
    expect(text(m, 'shot-at')).toBe('2025-01-01T10:00:00+00:00');
    expect(isNil(m, 'copyright') && isNil(m, 'license') && isNil(m, 'description') && isNil(m, 'city')).toBe(true);

    // A replacement sent with attributes: those win over the new file at once.
    await replace(uuid, await taggedJpeg(FULL), { 'media[description]': 'Client caption' });
    const again = await details(uuid);
    expect([text(again, 'description'), text(again, 'title'), text(again, 'author')]).toEqual(['Client caption', 'Harbour & boats', 'Ann Lee Studio']);
  });

  it('sets and checks the position and licence extensions', async () => {
    const uuid = await direct(await taggedJpeg({}));
    await updateMedia(w.client, uuid, { 'media[latitude]': '-33.8568', 'media[longitude]': '151.2153', 'media[license]': 'https://example.com/terms' });
    const m = await details(uuid);
    expect([text(m, 'latitude'), text(m, 'longitude'), text(m, 'license')]).toEqual(['-33.8568', '151.2153', 'https://example.com/terms']);
    for (const bad of [
      { 'media[latitude]': '10' },
      { 'media[latitude]': '91', 'media[longitude]': '0' },
      { 'media[latitude]': '1e2', 'media[longitude]': '0' },
      { 'media[latitude]': 'north', 'media[longitude]': '0' },
      { 'media[license]': 'javascript:alert(1)' },
      { 'media[license]': 'not a url' },
    ]) {
      const r = await failure(updateMedia(w.client, uuid, bad));
      expect(r.status, JSON.stringify(bad)).toBe(422);
    }
    // Whole degrees are still decimals on the wire.
    await updateMedia(w.client, uuid, { 'media[latitude]': '45', 'media[longitude]': '-0' });
    expect(text(await details(uuid), 'latitude')).toBe('45.0');
    // Single updates only: a batch names medias by the thousand, a position is one photo's.
    const batch = await failure(w.client.request('PUT', '/medias/batch_update.xml', { select: uuid, 'medias[license]': 'https://example.com/x' }));
    expect(batch.status).toBe(400);
  });
});
