// The one place that decides how a media looks in a reply, per view
// (docs/media.md).
import { xmlArray, type XmlObject } from '../http/xml.js';
import type { RenditionView } from '../renditions/service.js';
import type { MediaRecord, MediaRelations } from './repository.js';

export const MEDIA_VIEWS = ['list', 'base', 'details', 'public_details'] as const;
export type MediaView = (typeof MEDIA_VIEWS)[number];

const date = (v: string | null) => (v === null ? null : new Date(v));
const uuids = (item: string, list: readonly string[]) => xmlArray(item, list.map((uuid) => ({ uuid })));

/** Only known once the file arrived: a pending media has no size element. */
function fileSize(m: MediaRecord): number | undefined {
  return m.status === 'live' && m.file_size !== null ? Number(m.file_size) : undefined;
}

export function mediaLocation(m: { uuid: string }): string {
  return `/medias/${m.uuid}.xml`;
}

/** Where the picture was taken and whose it is: in the details and public views alike. */
function placeAndCredits(m: MediaRecord): XmlObject {
  return {
    location: m.location,
    city: m.city,
    state: m.state,
    country: m.country,
    region: m.region,
    author: m.author,
    copyright: m.copyright,
    // Extensions (docs/media.md): also read from the file at upload. A whole degree is still
    // sent as a decimal, never typed integer.
    license: m.license,
    latitude: m.latitude === null ? null : degrees(m.latitude),
    longitude: m.longitude === null ? null : degrees(m.longitude),
  };
}

function degrees(v: number): string {
  return Number.isInteger(v) ? v.toFixed(1) : String(v);
}

/** Added elements (clients accept them): the renditions job's state and what it made. */
function renditionsXml(m: MediaRecord, renditions: readonly RenditionView[]): XmlObject {
  return {
    // 'processing' while the job is queued or running (issue 9's word for pending).
    'renditions-state': m.renditions_state === 'pending' ? 'processing' : m.renditions_state,
    'renditions-error': m.renditions_state === 'failed' ? m.renditions_error : undefined,
    renditions: xmlArray(
      'rendition',
      renditions.map((r) => ({ name: r.name, width: r.width, height: r.height, type: r.type, url: r.url })),
    ),
  };
}

export function mediaXml(m: MediaRecord, rel: MediaRelations, view: MediaView, renditions: readonly RenditionView[] = []): XmlObject {
  if (view === 'list') return { uuid: m.uuid, 'file-name': m.file_name };
  const keywords = xmlArray('keyword', rel.keywords);
  const galleries = uuids('gallery', rel.galleries);
  if (view === 'public_details') {
    // What a visitor of the website may see: no library, rating, releases, prices or internal state.
    return {
      uuid: m.uuid,
      'file-name': m.file_name,
      'mime-type': m.mime_type,
      'file-size': fileSize(m),
      width: m.width,
      height: m.height,
      title: m.title,
      description: m.description,
      keywords,
      galleries,
      'alt-text': m.alt_text,
      ...placeAndCredits(m),
      'shot-at': date(m.shot_at),
    };
  }
  const base: XmlObject = {
    uuid: m.uuid,
    'file-name': m.file_name,
    'mime-type': m.mime_type,
    'file-size': fileSize(m),
    status: m.status,
    title: m.title,
    description: m.description,
    keywords,
    galleries,
    'artist-uuid': m.artist_uuid,
    'created-at': new Date(m.created_at),
    'updated-at': new Date(m.updated_at),
  };
  if (view === 'base') return base;
  return {
    ...base,
    // Extension (docs/media.md): the picture's text for people who cannot see it.
    'alt-text': m.alt_text,
    ...placeAndCredits(m),
    'model-release': m.model_release === 1,
    'property-release': m.property_release === 1,
    'artist-rating': m.artist_rating,
    'shot-at': date(m.shot_at),
    width: m.width,
    height: m.height,
    'watermark-uuid': m.watermark_uuid,
    'medias-collections': uuids('medias-collection', rel.collections),
    'pricing-profiles': uuids('pricing-profile', rel.pricingProfiles),
    ...renditionsXml(m, renditions),
  };
}
