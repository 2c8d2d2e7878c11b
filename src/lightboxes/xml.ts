// How a lightbox looks in a reply (API extensions, docs/delivery.md): the
// list, the details with their medias and the update all render through
// lightboxXml.
import { storedTimestamp, xmlArray, type XmlObject } from '../http/xml.js';
import { pickListsOf } from './lists.js';
import type { LightboxListRow, PickRow } from './service.js';

export function lightboxXml(l: LightboxListRow): XmlObject {
  return {
    uuid: l.uuid,
    name: l.name,
    'medias-count': l.count,
    // A client's selection (favourites); nil for a lightbox made otherwise.
    'gallery-uuid': l.gallery_uuid,
    'gallery-name': l.gallery_name,
    'client-name': l.client_name,
    'client-email': l.client_email,
    'client-verified': l.client_email === null ? null : l.client_verified === 1,
    state: l.state,
    'sent-at': l.sent_at === null ? null : storedTimestamp(l.sent_at),
    'created-at': storedTimestamp(l.created_at),
    'updated-at': l.updated_at === null ? null : storedTimestamp(l.updated_at),
  };
}

export function pickXml(p: PickRow): XmlObject {
  // lists: the client's named lists the pick is in (docs/delivery.md "Named lists"); empty when none.
  return { uuid: p.media_uuid, position: p.position, note: p.note, 'picked-at': p.picked_at === null ? null : storedTimestamp(p.picked_at), lists: xmlArray('list', pickListsOf(p.lists)) };
}

export function lightboxLocation(uuid: string): string {
  return `/lightboxes/${uuid}.xml`;
}

export function detailsXml(l: LightboxListRow, picks: readonly PickRow[], totalPages: number): XmlObject {
  return { lightbox: { ...lightboxXml(l), medias: xmlArray('media', picks.map(pickXml)) }, 'total-pages': totalPages, location: lightboxLocation(l.uuid) };
}
