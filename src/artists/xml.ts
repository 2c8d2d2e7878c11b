// Reply shapes of media libraries and watermarks (spec 4.5; client-compat:
// uuid, text, file-name, width, height, strength, position, tile, default).
import { xmlArray, type XmlObject } from '../http/xml.js';
import type { WatermarkRow } from '../database/schema.js';
import type { ArtistListRow } from './repository.js';

export type View = 'list' | 'details';

export function artistsXml(artists: readonly ArtistListRow[], view: View, pages: number): XmlObject {
  const items = artists.map(
    (a): XmlObject =>
      view === 'list' ? { uuid: a.uuid, name: a.name } : { uuid: a.uuid, name: a.name, default: a.is_default === 1, 'created-at': new Date(a.created_at) },
  );
  return { artists: xmlArray('artist', items), 'total-pages': pages };
}

export function watermarksXml(watermarks: readonly WatermarkRow[], view: View, pages: number): XmlObject {
  const items = watermarks.map(
    (w): XmlObject =>
      view === 'list'
        ? { uuid: w.uuid, text: w.text, 'file-name': w.file_name, default: w.is_default === 1 }
        : {
            uuid: w.uuid,
            text: w.text,
            'file-name': w.file_name,
            width: w.width,
            height: w.height,
            strength: w.strength,
            position: w.position,
            tile: w.tile === 1,
            default: w.is_default === 1,
            'created-at': new Date(w.created_at),
          },
  );
  return { watermarks: xmlArray('watermark', items), 'total-pages': pages };
}
