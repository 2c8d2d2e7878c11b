// The events a photographer's webhook endpoints may ask for (docs/integrations.md "Webhooks"), and the
// port each feature emits through: in the transaction of the change (the outbox) where there is one.
import type { Unit } from '../database/unit-of-work.js';

export const WEBHOOK_EVENT_TYPES = [
  'media.ready',
  'media.failed',
  'media.deleted',
  'gallery.published',
  'gallery.updated',
  'gallery.deleted',
  'selection.sent',
  'archive.downloaded',
  'order.created',
  'order.paid',
  'upload.completed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** All events: an endpoint's `events` is '*' or a list of types. */
export const ALL_EVENTS = '*';

export function isEventType(v: string): v is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(v);
}

/** What an event is about: medias or a gallery or an order by id (read in the same transaction), or an owner's own data. */
export type EventSubject =
  | { medias: readonly number[]; extra?: Record<string, unknown> }
  | { gallery: number | string; extra?: Record<string, unknown> }
  /** One event per gallery, read in one statement (a batch's or a media's galleries). */
  | { galleries: readonly number[] }
  | { lightbox: number; extra?: Record<string, unknown> }
  | { order: number }
  | { ownerId: number; data: Record<string, unknown> };

/**
 * What features emit through (src/webhooks/service.ts implements it). `emitIn` writes the event and
 * its deliveries in `unit`'s transaction, so a rolled-back change sends nothing and a crash after the
 * commit loses nothing. There is no emit after a commit: every event is written with the change that
 * causes it (an archive's with its activity row, docs/integrations.md "How it is kept"). It does not
 * throw for want of endpoints: an owner with none writes nothing.
 */
export interface WebhookEmitter {
  emitIn(unit: Unit, type: WebhookEventType, subject: EventSubject): Promise<void>;
}
