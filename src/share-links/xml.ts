// How share links look in a reply (API extension, docs/api.md "Share links"): the URL appears once, in the reply to the create.
import { storedTimestamp, type XmlObject } from '../http/xml.js';
import type { ShareLink } from './service.js';

export function shareLinkXml(l: ShareLink): XmlObject {
  return {
    uuid: l.uuid,
    // One of the two: a lightbox's link has no gallery, and the other way round.
    ...(l.lightboxUuid === null ? { 'gallery-uuid': l.galleryUuid } : { 'lightbox-uuid': l.lightboxUuid }),
    recipient: l.recipient,
    'expires-at': l.expiresAt === null ? null : storedTimestamp(l.expiresAt),
    'max-views': l.maxViews,
    views: l.views,
    'password-protected': l.passwordProtected,
    download: l.download,
    downloads: l.downloads,
    'created-at': storedTimestamp(l.createdAt),
    'revoked-at': l.revokedAt === null ? null : storedTimestamp(l.revokedAt),
  };
}
