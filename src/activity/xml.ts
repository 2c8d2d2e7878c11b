// The activity replies (docs/delivery.md, "Activity"): events, a gallery's
// per-client summary and its anonymous counters.
import { totalPages } from '../http/params.js';
import { xmlArray, type XmlObject } from '../http/xml.js';
import type { ClientSummaryRow, DailyRow, EventRow } from './repository.js';
import type { EventPage, GalleryActivity } from './service.js';

function eventXml(e: EventRow): XmlObject {
  return {
    kind: e.kind,
    'gallery-uuid': e.gallery_uuid,
    client: e.client_email,
    'client-verified': e.client_verified,
    'media-uuid': e.media_uuid,
    bytes: e.bytes,
    at: new Date(e.at),
  };
}

/** One `<client>` per address, with a count (and bytes) per kind. */
function clientsXml(rows: readonly ClientSummaryRow[]): XmlObject[] {
  const byClient = new Map<string, ClientSummaryRow[]>();
  for (const r of rows) byClient.set(r.client_email, [...(byClient.get(r.client_email) ?? []), r]);
  return [...byClient].map(([email, kinds]) => ({
    email,
    verified: kinds.some((k) => k.client_verified),
    'first-at': new Date(kinds.reduce((a, k) => (k.first_at < a ? k.first_at : a), kinds[0].first_at)),
    'last-at': new Date(kinds.reduce((a, k) => (k.last_at > a ? k.last_at : a), kinds[0].last_at)),
    kinds: xmlArray('kind', kinds.map((k) => ({ name: k.kind, count: k.count, bytes: k.bytes }))),
  }));
}

function dailyXml(d: DailyRow): XmlObject {
  return { day: d.day, kind: d.kind, count: d.count, bytes: d.bytes };
}

function pageXml(p: EventPage): XmlObject {
  return {
    events: xmlArray('event', p.events.map(eventXml)),
    page: p.page,
    'total-pages': totalPages(p.total, p.perPage),
    'total-entries': p.total,
  };
}

export function galleryActivityXml(a: GalleryActivity): XmlObject {
  return {
    'gallery-uuid': a.galleryUuid,
    ...pageXml(a),
    clients: xmlArray('client', clientsXml(a.clients)),
    anonymous: xmlArray('day', a.anonymous.map(dailyXml)),
  };
}

export function clientActivityXml(a: EventPage & { client: string }): XmlObject {
  return { client: a.client, ...pageXml(a) };
}

export function forgottenXml(r: { client: string; deleted: Record<string, number> }): XmlObject {
  const out: XmlObject = { client: r.client };
  for (const [name, n] of Object.entries(r.deleted)) out[`deleted-${name.replace(/_/g, '-')}`] = n;
  out.message = `What your websites kept about ${r.client} was deleted.`;
  return out;
}
