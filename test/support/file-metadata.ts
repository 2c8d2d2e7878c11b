// JPEGs that carry metadata as cameras and editors write it: EXIF (with GPS)
// and XMP through sharp, IPTC-IIM as an APP13 Photoshop block written here
// (sharp keeps one but cannot make one).
import sharp from 'sharp';

export interface XmpFields {
  title?: string;
  description?: string;
  creator?: string;
  rights?: string;
  subject?: string[];
  webStatement?: string;
  city?: string;
  country?: string;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function xmpPacket(f: XmpFields): string {
  const alt = (tag: string, v?: string) => (v === undefined ? '' : `<${tag}><rdf:Alt><rdf:li xml:lang="x-default">${esc(v)}</rdf:li></rdf:Alt></${tag}>`);
  return (
    `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
    `<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmpRights="http://ns.adobe.com/xap/1.0/rights/" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/">` +
    alt('dc:title', f.title) +
    alt('dc:description', f.description) +
    (f.creator === undefined ? '' : `<dc:creator><rdf:Seq><rdf:li>${esc(f.creator)}</rdf:li></rdf:Seq></dc:creator>`) +
    alt('dc:rights', f.rights) +
    (f.subject === undefined ? '' : `<dc:subject><rdf:Bag>${f.subject.map((s) => `<rdf:li>${esc(s)}</rdf:li>`).join('')}</rdf:Bag></dc:subject>`) +
    (f.webStatement === undefined ? '' : `<xmpRights:WebStatement>${esc(f.webStatement)}</xmpRights:WebStatement>`) +
    (f.city === undefined ? '' : `<photoshop:City>${esc(f.city)}</photoshop:City>`) +
    (f.country === undefined ? '' : `<photoshop:Country>${esc(f.country)}</photoshop:Country>`) +
    `</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`
  );
}

/** An APP13 segment with IPTC-IIM record 2 datasets (UTF-8, declared in 1:90): `[dataset, value]`. */
export function iptcSegment(entries: Array<[number, string]>): Buffer {
  const parts: Buffer[] = [Buffer.from([0x1c, 1, 90, 0, 3, 0x1b, 0x25, 0x47])];
  for (const [ds, value] of entries) {
    const v = Buffer.from(value, 'utf8');
    parts.push(Buffer.from([0x1c, 2, ds, v.length >> 8, v.length & 0xff]), v);
  }
  let data = Buffer.concat(parts);
  const size = data.length;
  if (data.length % 2) data = Buffer.concat([data, Buffer.alloc(1)]);
  const header = Buffer.concat([Buffer.from('8BIM', 'latin1'), Buffer.from([0x04, 0x04, 0, 0]), Buffer.alloc(4)]);
  header.writeUInt32BE(size, 8);
  const payload = Buffer.concat([Buffer.from('Photoshop 3.0\0', 'latin1'), header, data]);
  const seg = Buffer.alloc(4);
  seg[0] = 0xff;
  seg[1] = 0xed;
  seg.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([seg, payload]);
}

/** EXIF's camera and exposure tags, as a camera writes them (rationals as `n/d`). */
export interface CameraTags {
  make?: string;
  model?: string;
  lens?: string;
  focalLength?: string;
  fNumber?: string;
  exposureTime?: string;
  iso?: string;
}

export interface TaggedJpeg {
  width?: number;
  height?: number;
  seed?: number;
  /** A picture to tag instead of a flat one (its pixels, re-encoded). */
  base?: Buffer;
  xmp?: XmpFields;
  iptc?: Array<[number, string]>;
  exif?: { artist?: string; copyright?: string; description?: string; shot?: string; offset?: string; camera?: CameraTags; gps?: { lat: [number, number, number]; latRef: 'N' | 'S'; lon: [number, number, number]; lonRef: 'E' | 'W' } };
}

/** A JPEG with the metadata asked for (a plain photo-like picture under it). */
export async function taggedJpeg(t: TaggedJpeg): Promise<Buffer> {
  const width = t.width ?? 64;
  const height = t.height ?? 48;
  let img = (t.base ? sharp(t.base) : sharp({ create: { width, height, channels: 3, background: { r: 40 + ((t.seed ?? 0) * 37) % 200, g: 90, b: 140 } } })).jpeg({ quality: 85 });
  if (t.exif) {
    const e = t.exif;
    const ifd0: Record<string, string> = {};
    if (e.artist) ifd0.Artist = e.artist;
    if (e.copyright) ifd0.Copyright = e.copyright;
    if (e.description) ifd0.ImageDescription = e.description;
    if (e.camera?.make) ifd0.Make = e.camera.make;
    if (e.camera?.model) ifd0.Model = e.camera.model;
    const ifd2: Record<string, string> = {};
    if (e.camera?.lens) ifd2.LensModel = e.camera.lens;
    if (e.camera?.focalLength) ifd2.FocalLength = e.camera.focalLength;
    if (e.camera?.fNumber) ifd2.FNumber = e.camera.fNumber;
    if (e.camera?.exposureTime) ifd2.ExposureTime = e.camera.exposureTime;
    if (e.camera?.iso) ifd2.ISOSpeedRatings = e.camera.iso;
    if (e.shot) ifd2.DateTimeOriginal = e.shot;
    if (e.offset) ifd2.OffsetTimeOriginal = e.offset;
    const ifd3: Record<string, string> = {};
    if (e.gps) {
      const dms = (v: [number, number, number]) => v.map((n) => `${n}/1`).join(' ');
      Object.assign(ifd3, { GPSLatitudeRef: e.gps.latRef, GPSLatitude: dms(e.gps.lat), GPSLongitudeRef: e.gps.lonRef, GPSLongitude: dms(e.gps.lon) });
    }
    img = img.withExif({ IFD0: ifd0, IFD2: ifd2, IFD3: ifd3 });
  }
  if (t.xmp) img = img.withXmp(xmpPacket(t.xmp));
  let buf = await img.toBuffer();
  if (t.iptc) buf = Buffer.concat([buf.subarray(0, 2), iptcSegment(t.iptc), buf.subarray(2)]);
  return buf;
}
