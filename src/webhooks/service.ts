// Signed webhooks (docs/integrations.md "Webhooks"): a photographer's endpoints (the secret shown
// once, at creation; kept sealed with PAYMENT_SECRETS_KEY when set), their delivery log and replays,
// and the emitter every feature writes its events through (the outbox, src/webhooks/events.ts).
import { randomBytes, randomUUID } from 'node:crypto';
import { ApiError, conflict, notFound } from '../core/errors.js';
import type { Db } from '../database/db.js';
import type { UserRow, WebhookAttemptRow, WebhookEndpointRow } from '../database/schema.js';
import type { Unit } from '../database/unit-of-work.js';
import type { SecretBox } from '../payments/secrets.js';
import type { EventSubject, WebhookEmitter, WebhookEventType } from './events.js';
import type { WebhookInput } from './fields.js';
import { eventsOf, type DeliveryRow, type WebhooksRepository } from './repository.js';

type User = Pick<UserRow, 'id'>;

/** Endpoints one photographer may have. */
export const MAX_ENDPOINTS = 20;
export const WEBHOOKS_MAX_PER_PAGE = 100;

export interface Endpoint {
  uuid: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  failingSince: string | null;
  disabledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Delivery {
  uuid: string;
  eventId: string;
  eventType: string;
  state: string;
  attempts: Array<Pick<WebhookAttemptRow, 'attempted_at' | 'status_code' | 'latency_ms' | 'response_excerpt' | 'error'>>;
  nextAttemptAt: string | null;
  createdAt: string;
  finishedAt: string | null;
}

function endpointOf(r: WebhookEndpointRow): Endpoint {
  return {
    uuid: r.uuid,
    url: r.url,
    events: eventsOf(r.events),
    description: r.description,
    enabled: r.enabled === 1,
    failingSince: r.failing_since,
    disabledAt: r.disabled_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** A new signing secret: `whsec_` and 24 random bytes in base64 (the Standard Webhooks form). */
function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

const PLAIN = 'plain:';

export class WebhooksService implements WebhookEmitter {
  private wake: () => void = () => {};

  constructor(
    private readonly repo: WebhooksRepository,
    /** PAYMENT_SECRETS_KEY's box (src/payments/secrets.ts); without it secrets are stored as they are. */
    private readonly box: SecretBox | undefined,
  ) {}

  /** This process's dispatcher looks at once after an event's commit (wired by the composition root). */
  onEmitted(wake: () => void): void {
    this.wake = wake;
  }

  private context(r: Pick<WebhookEndpointRow, 'owner_id' | 'uuid'>): string {
    return `webhook:${r.owner_id}:${r.uuid}`;
  }

  /** The endpoint's signing secret, for the dispatcher. */
  secretOf(r: Pick<WebhookEndpointRow, 'owner_id' | 'uuid' | 'secret'>): string {
    if (r.secret.startsWith(PLAIN)) return r.secret.slice(PLAIN.length);
    if (!this.box) throw new Error('this webhook secret is sealed: PAYMENT_SECRETS_KEY is needed to read it');
    return this.box.open(r.secret, this.context(r));
  }

  async create(user: User, input: WebhookInput): Promise<{ endpoint: Endpoint; secret: string }> {
    if ((await this.repo.countEndpoints(user.id)) >= MAX_ENDPOINTS) throw new ApiError('unprocessable', `at most ${MAX_ENDPOINTS} webhook endpoints per account: delete one first`);
    const uuid = randomUUID();
    const secret = newSecret();
    const stored = this.box ? this.box.seal(secret, this.context({ owner_id: user.id, uuid })) : PLAIN + secret;
    const row = await this.repo.createEndpoint({ uuid, ownerId: user.id, url: input.url!, events: input.events!, description: input.description ?? null, secret: stored });
    if (input.enabled === false) await this.repo.updateEndpoint(row.id, { enabled: false });
    return { endpoint: endpointOf((await this.repo.endpoint(user.id, uuid))!), secret };
  }

  async list(user: User, limit: number, offset: number): Promise<{ total: number; endpoints: Endpoint[] }> {
    const [total, rows] = await Promise.all([this.repo.countEndpoints(user.id), this.repo.listEndpoints(user.id, limit, offset)]);
    return { total, endpoints: rows.map(endpointOf) };
  }

  private async row(user: User, uuid: string): Promise<WebhookEndpointRow> {
    const r = await this.repo.endpoint(user.id, uuid.trim().toLowerCase());
    if (!r) throw notFound(`webhook ${uuid}`);
    return r;
  }

  async get(user: User, uuid: string): Promise<Endpoint> {
    return endpointOf(await this.row(user, uuid));
  }

  async update(user: User, uuid: string, input: WebhookInput): Promise<Endpoint> {
    const r = await this.row(user, uuid);
    await this.repo.updateEndpoint(r.id, input);
    return endpointOf((await this.repo.endpoint(user.id, r.uuid))!);
  }

  async delete(user: User, uuid: string): Promise<Endpoint> {
    const r = await this.row(user, uuid);
    await this.repo.deleteEndpoint(r.id);
    return endpointOf(r);
  }

  /** The endpoint's delivery log, newest first, each delivery with its attempts. */
  async deliveries(user: User, uuid: string, limit: number, offset: number): Promise<{ total: number; deliveries: Delivery[] }> {
    const r = await this.row(user, uuid);
    const [total, rows] = await Promise.all([this.repo.countDeliveries(r.id), this.repo.deliveries(r.id, limit, offset)]);
    const attempts = await this.repo.attempts(rows.map((d) => d.id));
    return { total, deliveries: rows.map((d) => deliveryOf(d, attempts.filter((a) => a.delivery_id === d.id))) };
  }

  /** Sends a delivery's event again (a new delivery, due now); the endpoint must be enabled. */
  async replay(user: User, uuid: string, deliveryUuid: string): Promise<Delivery> {
    const r = await this.row(user, uuid);
    const d = await this.repo.delivery(r.id, deliveryUuid.trim().toLowerCase());
    if (!d) throw notFound(`delivery ${deliveryUuid}`);
    if (r.enabled !== 1) throw conflict('the endpoint is disabled: enable it before replaying');
    const again = await this.repo.replay(r.id, d.event_id);
    this.wake();
    const [row] = (await this.repo.deliveries(r.id, 1, 0)).filter((x) => x.id === again.id);
    return deliveryOf(row ?? { ...again, event_uuid: '', event_type: '' }, []);
  }

  /** Deletes the log's events (their deliveries and attempts) older than `before`; how many went. */
  purge(before: Date): Promise<number> {
    return this.repo.purge(before.toISOString());
  }

  // ---- emission (WebhookEmitter)

  async emitIn(unit: Unit, type: WebhookEventType, subject: EventSubject): Promise<void> {
    const timestamp = new Date().toISOString();
    // The endpoints are read once per owner, however many medias or galleries the event names.
    const wanting = new Map<number, readonly number[]>();
    for (const { ownerId, data } of await this.subjects(unit.db, subject)) {
      let endpoints = wanting.get(ownerId);
      if (endpoints === undefined) wanting.set(ownerId, (endpoints = await this.repo.wanting(unit.db, ownerId, type)));
      if (endpoints.length === 0) continue;
      await this.repo.insertEvent(unit.db, ownerId, type, JSON.stringify({ type, timestamp, data }), endpoints);
      unit.afterCommit(() => this.wake());
    }
  }

  /** Each owner's data of the event: one entry per media, gallery or order (read in the same transaction). */
  private async subjects(tx: Db, s: EventSubject): Promise<Array<{ ownerId: number; data: Record<string, unknown> }>> {
    if ('ownerId' in s) return [{ ownerId: s.ownerId, data: s.data }];
    if ('medias' in s) {
      const rows = await this.repo.medias(tx, s.medias);
      return rows.map((m) => ({ ownerId: m.owner_id, data: { media: { uuid: m.uuid, file_name: m.file_name }, ...s.extra } }));
    }
    const galleryData = (g: { uuid: string; name: string; urlname: string }) => ({ uuid: g.uuid, name: g.name, website: g.urlname });
    if ('gallery' in s) {
      const g = await this.repo.gallery(tx, s.gallery);
      return g ? [{ ownerId: g.owner_id, data: { gallery: galleryData(g), ...s.extra } }] : [];
    }
    if ('galleries' in s) return (await this.repo.galleries(tx, s.galleries)).map((g) => ({ ownerId: g.owner_id, data: { gallery: galleryData(g) } }));
    if ('lightbox' in s) {
      const l = await this.repo.lightbox(tx, s.lightbox);
      return l ? [{ ownerId: l.owner_id, data: { lightbox: { uuid: l.uuid, name: l.name }, gallery: l.gallery_uuid ? { uuid: l.gallery_uuid } : null, client: l.client_email, ...s.extra } }] : [];
    }
    const o = await this.repo.order(tx, s.order);
    return o ? [{ ownerId: o.owner_id, data: { order: { uuid: o.uuid, status: o.status, currency: o.currency, total: Number(o.total), email: o.email } } }] : [];
  }
}

function deliveryOf(d: DeliveryRow, attempts: WebhookAttemptRow[]): Delivery {
  return {
    uuid: d.uuid,
    eventId: d.event_uuid,
    eventType: d.event_type,
    state: d.state,
    attempts: attempts.map((a) => ({ attempted_at: a.attempted_at, status_code: a.status_code, latency_ms: a.latency_ms, response_excerpt: a.response_excerpt, error: a.error })),
    nextAttemptAt: d.state === 'pending' ? d.next_attempt_at : null,
    createdAt: d.created_at,
    finishedAt: d.finished_at,
  };
}
