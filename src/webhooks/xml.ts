// How webhook endpoints and their delivery log look in a reply (API extension, docs/api.md
// "Webhooks"): the secret appears once, in the reply to the create.
import { storedTimestamp, xmlArray, type XmlObject } from '../http/xml.js';
import { EXCERPT_BYTES } from './sender.js';
import type { Delivery, Endpoint } from './service.js';

export function endpointXml(e: Endpoint): XmlObject {
  return {
    uuid: e.uuid,
    url: e.url,
    events: xmlArray('event', e.events),
    description: e.description,
    enabled: e.enabled,
    'failing-since': e.failingSince === null ? null : storedTimestamp(e.failingSince),
    'disabled-at': e.disabledAt === null ? null : storedTimestamp(e.disabledAt),
    'created-at': storedTimestamp(e.createdAt),
    'updated-at': storedTimestamp(e.updatedAt),
  };
}

export function deliveryXml(d: Delivery): XmlObject {
  return {
    uuid: d.uuid,
    'event-id': d.eventId,
    'event-type': d.eventType,
    state: d.state,
    'created-at': storedTimestamp(d.createdAt),
    'next-attempt-at': d.nextAttemptAt === null ? null : storedTimestamp(d.nextAttemptAt),
    'finished-at': d.finishedAt === null ? null : storedTimestamp(d.finishedAt),
    attempts: xmlArray(
      'attempt',
      d.attempts.map((a) => ({
        'attempted-at': storedTimestamp(a.attempted_at),
        'status-code': a.status_code,
        'latency-ms': a.latency_ms,
        // Bounded when read (EXCERPT_BYTES); said again here so the reply's size is plain.
        'response-excerpt': a.response_excerpt === null ? null : a.response_excerpt.slice(0, EXCERPT_BYTES),
        error: a.error,
      })),
    ),
  };
}

export function webhookLocation(uuid: string): string {
  return `/webhooks/${uuid}.xml`;
}
