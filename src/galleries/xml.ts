// The one place that decides how a gallery looks in a reply (spec 2.3,
// client-compat). Create, update, details, lists and sub-gallery listings
// all render through galleryXml.
import { listNamesOf } from '../lightboxes/lists.js';
import { storedTimestamp, xmlArray, type XmlObject, type XmlValue } from '../http/xml.js';
import type { AclEntry, CountedGallery, GalleryDetails, GalleryShown, MediaCounts } from './service.js';

/** list: identity and place in the tree; details: every field. */
export type GalleryView = 'list' | 'details';

export interface GalleryExtras {
  counts?: MediaCounts;
  acl?: readonly AclEntry[];
  /** Media UUIDs in gallery order (view=details_with_medias / details_with_contents). */
  medias?: readonly string[];
  /** Direct sub-galleries (view=details_with_contents), already rendered. */
  subgalleries?: readonly XmlObject[];
  /** Pagination of a sub-gallery listing, on the gallery whose children are listed. */
  page?: number;
  totalPages?: number;
}

export function galleryXml(g: GalleryShown, view: GalleryView, extras: GalleryExtras = {}): XmlObject {
  if (view === 'list') {
    return {
      uuid: g.uuid,
      name: g.name,
      'parent-uuid': g.parent_uuid,
      'url-path': g.url_path,
      'full-url-path': g.full_url_path,
      'subgalleries-count': g.subgalleries_count,
    };
  }
  const out: XmlObject = {
    uuid: g.uuid,
    name: g.name,
    'url-path': g.url_path,
    'full-url-path': g.full_url_path,
    description: g.description,
    'medias-count': extras.counts?.medias ?? 0,
    'full-medias-count': extras.counts?.full ?? 0,
    'published-at': storedTimestamp(g.published_at),
    'comments-count': 0,
    'parent-uuid': g.parent_uuid,
    'gallery-display-style-uuid': g.display_style_uuid,
    'cover-media-uuid': g.cover_media_uuid,
    'subgalleries-count': g.subgalleries_count,
    hidden: g.hidden === 1,
    indexing: g.indexing,
    // Extension (docs/delivery.md): favourites a client may choose; nil: no limit.
    'pick-limit': g.pick_limit,
    // Extensions (docs/delivery.md): favourites on, off or default; the named lists offered to clients.
    favourites: g.favourites ?? 'default',
    'favourite-lists': xmlArray('list', listNamesOf(g.favourite_lists)),
    // Extension (docs/galleries.md): when the gallery closes to visitors; nil: never.
    'expires-at': g.expires_at === null ? null : storedTimestamp(g.expires_at),
    // Extensions (docs/delivery.md "Download controls"): shown to the photographer, who tells clients the PIN.
    'download-pin': g.download_pin,
    'download-limit': g.download_limit,
    'download-size': g.download_size ?? 'original',
    'content-order': g.content_order,
    'content-order-direction': g.content_order_direction,
    'order-subgalleries': g.order_subgalleries === 1,
    'password-protected': g.password_hash !== null,
    'created-at': storedTimestamp(g.created_at),
    'updated-at': storedTimestamp(g.updated_at),
  };
  if (extras.acl) out.acl = xmlArray('entry', extras.acl.map(aclEntryXml));
  if (extras.medias) out.medias = xmlArray('media', extras.medias.map((uuid): XmlValue => ({ uuid })));
  if (extras.subgalleries) out.subgalleries = xmlArray('gallery', extras.subgalleries);
  if (extras.page !== undefined) out.page = extras.page;
  if (extras.totalPages !== undefined) out['total-pages'] = extras.totalPages;
  return out;
}

function aclEntryXml(e: AclEntry): XmlObject {
  return { id: e.position, email: e.email, read: e.read, 'comp-download': e.compDownload, 'hires-download': e.hiresDownload };
}

export function galleryLocation(urlname: string, uuid: string): string {
  return `/websites/${urlname}/galleries/${uuid}.xml`;
}

/** A gallery with its counts, as lists and sub-gallery listings show it. */
export function countedXml(g: CountedGallery, view: GalleryView): XmlObject {
  return galleryXml(g.record, view, { counts: g.counts });
}

/** The gallery as create, update and details show it: every field and its access list. */
export function detailsXml(d: GalleryDetails): XmlObject {
  return galleryXml(d.record, 'details', {
    counts: d.counts,
    acl: d.acl,
    medias: d.medias,
    subgalleries: d.subgalleries?.map((s) => countedXml(s, 'details')),
  });
}
