// Reply shapes of websites and their display styles (spec 4.2, 4.4).
import { xmlArray, type XmlObject } from '../http/xml.js';
import { homeUrl } from './home-url.js';
import type { DisplayStyleListRow, WebsiteListRow } from './repository.js';

export type View = 'list' | 'details';

export function websitesXml(websites: readonly WebsiteListRow[], view: View, publicUrl: string, pages: number): XmlObject {
  const items = websites.map((w): XmlObject =>
    view === 'list'
      ? { uuid: w.uuid, urlname: w.urlname, title: w.title }
      : {
          uuid: w.uuid,
          urlname: w.urlname,
          title: w.title,
          hostname: w.hostname,
          'home-url': homeUrl(publicUrl, w),
          'root-gallery-uuid': w.root_uuid,
          'created-at': new Date(w.created_at),
          'updated-at': new Date(w.updated_at),
        },
  );
  return { websites: xmlArray('website', items), 'total-pages': pages };
}

export function displayStylesXml(styles: readonly DisplayStyleListRow[], view: View, pages: number): XmlObject {
  const items = styles.map(
    (s): XmlObject =>
      view === 'list'
        ? { uuid: s.uuid, name: s.name }
        : { uuid: s.uuid, name: s.name, layout: s.layout, default: s.is_default === 1, 'created-at': new Date(s.created_at) },
  );
  return { 'gallery-display-styles': xmlArray('gallery-display-style', items), 'total-pages': pages };
}
