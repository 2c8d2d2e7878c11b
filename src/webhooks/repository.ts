// SQL of signed webhooks (docs/integrations.md "Webhooks"): endpoints, the outbox (an event and its
// deliveries written in the caller's transaction), the claim of a due delivery under a lease
// (`FOR UPDATE SKIP LOCKED` on PostgreSQL, the single writer on SQLite), attempts and their outcome.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { nowIso, type Db, type Store } from '../database/db.js';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from '../database/schema.js';
import { ALL_EVENTS } from './events.js';

export interface NewEndpoint {
  ownerId: number;
  url: string;
  events: readonly string[];
  description: string | null;
  secret: string;
}

/** A delivery as the log shows it: its event's id and type. */
export interface DeliveryRow extends WebhookDeliveryRow {
  event_uuid: string;
  event_type: string;
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  delivery: WebhookDeliveryRow;
  endpoint: WebhookEndpointRow;
  event: { uuid: string; type: string; payload: string; created_at: string };
}

export interface AttemptRecord {
  statusCode: number | null;
  latencyMs: number;
  excerpt: string | null;
  error: string | null;
}

/** ',a,b,' or '*': the column's form, matched with LIKE. */
export function eventsColumn(events: readonly string[]): string {
  return events.includes(ALL_EVENTS) ? ALL_EVENTS : `,${events.join(',')},`;
}

export function eventsOf(column: string): string[] {
  return column === ALL_EVENTS ? [ALL_EVENTS] : column.split(',').filter((s) => s !== '');
}

export class WebhooksRepository {
  private readonly db: Db;

  constructor(private readonly store: Store) {
    this.db = store.db;
  }

  // ---- endpoints

  createEndpoint(e: NewEndpoint & { uuid: string }): Promise<WebhookEndpointRow> {
    const now = nowIso();
    return this.db
      .insertInto('webhook_endpoints')
      .values({ uuid: e.uuid, owner_id: e.ownerId, url: e.url, events: eventsColumn(e.events), description: e.description, secret: e.secret, enabled: 1, created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  listEndpoints(ownerId: number, limit: number, offset: number): Promise<WebhookEndpointRow[]> {
    return this.db.selectFrom('webhook_endpoints').selectAll().where('owner_id', '=', ownerId).orderBy('id').limit(limit).offset(offset).execute();
  }

  async countEndpoints(ownerId: number): Promise<number> {
    const r = await this.db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('n')).where('owner_id', '=', ownerId).executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  endpoint(ownerId: number, uuid: string): Promise<WebhookEndpointRow | undefined> {
    return this.db.selectFrom('webhook_endpoints').selectAll().where('owner_id', '=', ownerId).where('uuid', '=', uuid).executeTakeFirst();
  }

  async updateEndpoint(id: number, set: { url?: string; events?: readonly string[]; description?: string | null; enabled?: boolean }): Promise<void> {
    await this.db
      .updateTable('webhook_endpoints')
      .set({
        ...(set.url !== undefined ? { url: set.url } : {}),
        ...(set.events !== undefined ? { events: eventsColumn(set.events) } : {}),
        ...(set.description !== undefined ? { description: set.description } : {}),
        // Enabled again: its failures so far no longer count towards disabling it.
        ...(set.enabled === true ? { enabled: 1, disabled_at: null, failing_since: null } : set.enabled === false ? { enabled: 0, disabled_at: nowIso() } : {}),
        updated_at: nowIso(),
      })
      .where('id', '=', id)
      .execute();
  }

  async deleteEndpoint(id: number): Promise<void> {
    await this.db.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
  }

  // ---- the outbox

  /** Enabled endpoints of the owner that want `type` (an index read; most owners have none). */
  async wanting(tx: Db, ownerId: number, type: string): Promise<number[]> {
    const rows = await tx
      .selectFrom('webhook_endpoints')
      .select('id')
      .where('owner_id', '=', ownerId)
      .where('enabled', '=', 1)
      .where((eb) => eb.or([eb('events', '=', ALL_EVENTS), eb('events', 'like', `%,${type},%`)]))
      .execute();
    return rows.map((r) => r.id);
  }

  /** The event and one delivery per endpoint, due now, in `tx`. */
  async insertEvent(tx: Db, ownerId: number, type: string, payload: string, endpointIds: readonly number[]): Promise<void> {
    const now = nowIso();
    const event = await tx.insertInto('webhook_events').values({ uuid: `msg_${randomUUID()}`, owner_id: ownerId, type, payload, created_at: now }).returning('id').executeTakeFirstOrThrow();
    await tx
      .insertInto('webhook_deliveries')
      .values(endpointIds.map((endpoint_id) => ({ uuid: randomUUID(), endpoint_id, event_id: event.id, state: 'pending', attempts: 0, next_attempt_at: now, created_at: now })))
      .execute();
  }

  /** Medias by id, in `tx` (before a deletion takes them): owner and uuid. */
  medias(tx: Db, ids: readonly number[]): Promise<Array<{ id: number; uuid: string; owner_id: number; file_name: string | null }>> {
    if (ids.length === 0) return Promise.resolve([]);
    return tx.selectFrom('medias').select(['id', 'uuid', 'owner_id', 'file_name']).where('id', 'in', [...ids]).execute();
  }

  /** A gallery by id or UUID, with its website's owner. */
  gallery(tx: Db, ref: number | string): Promise<{ uuid: string; name: string; owner_id: number; urlname: string } | undefined> {
    return tx
      .selectFrom('galleries')
      .innerJoin('websites', 'websites.id', 'galleries.website_id')
      .select(['galleries.uuid', 'galleries.name', 'websites.owner_id', 'websites.urlname'])
      .where(typeof ref === 'number' ? 'galleries.id' : 'galleries.uuid', '=', typeof ref === 'number' ? ref : ref.toLowerCase())
      .executeTakeFirst();
  }

  /** Galleries by id, with their websites' owners: one statement. */
  galleries(tx: Db, ids: readonly number[]): Promise<Array<{ uuid: string; name: string; owner_id: number; urlname: string }>> {
    if (ids.length === 0) return Promise.resolve([]);
    return tx
      .selectFrom('galleries')
      .innerJoin('websites', 'websites.id', 'galleries.website_id')
      .select(['galleries.uuid', 'galleries.name', 'websites.owner_id', 'websites.urlname'])
      .where('galleries.id', 'in', [...ids])
      .orderBy('galleries.id')
      .execute();
  }

  /** A lightbox (a client's selection) with its gallery's UUID. */
  lightbox(tx: Db, id: number): Promise<{ uuid: string; name: string; owner_id: number; gallery_uuid: string | null; client_email: string | null } | undefined> {
    return tx
      .selectFrom('lightboxes')
      .leftJoin('galleries', 'galleries.id', 'lightboxes.gallery_id')
      .select(['lightboxes.uuid', 'lightboxes.name', 'lightboxes.owner_id', 'galleries.uuid as gallery_uuid', 'lightboxes.client_email'])
      .where('lightboxes.id', '=', id)
      .executeTakeFirst();
  }

  order(tx: Db, id: number): Promise<{ uuid: string; owner_id: number; status: string; currency: string; total: number | string | bigint; email: string } | undefined> {
    return tx.selectFrom('orders').select(['uuid', 'owner_id', 'status', 'currency', 'total', 'email']).where('id', '=', id).executeTakeFirst();
  }

  // ---- deliveries

  /**
   * Takes the next due delivery: its next attempt moves a lease ahead (so a process that dies
   * mid-request leaves it due again then) and `locked_by` names the runner; one statement, so two
   * workers never take the same one (PostgreSQL skips the rows another is taking).
   */
  async claim(workerId: string, leaseMs: number): Promise<ClaimedDelivery | undefined> {
    const now = nowIso();
    const due = sql`state = 'pending' AND next_attempt_at <= ${now}`;
    // A read first: an idle poll takes no write lock (SQLite) nor row locks.
    const any = await sql<{ id: number }>`SELECT id FROM webhook_deliveries WHERE ${due} LIMIT 1`.execute(this.db);
    if (any.rows.length === 0) return undefined;
    const skipLocked = this.store.dialect === 'postgres' ? sql`FOR UPDATE SKIP LOCKED` : sql``;
    const until = new Date(Date.now() + leaseMs).toISOString();
    const { rows } = await sql<WebhookDeliveryRow>`
      UPDATE webhook_deliveries SET locked_by = ${workerId}, next_attempt_at = ${until}, attempts = attempts + 1
      WHERE ${due} AND id = (SELECT id FROM webhook_deliveries WHERE ${due} ORDER BY next_attempt_at, id LIMIT 1 ${skipLocked})
      RETURNING *`.execute(this.db);
    const delivery = rows[0];
    if (!delivery) return undefined;
    const endpoint = await this.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', delivery.endpoint_id).executeTakeFirst();
    const event = await this.db.selectFrom('webhook_events').select(['uuid', 'type', 'payload', 'created_at']).where('id', '=', delivery.event_id).executeTakeFirst();
    // Both cascade with the delivery: gone meanwhile means the delivery went too.
    if (!endpoint || !event) return undefined;
    return { delivery, endpoint, event };
  }

  /**
   * The attempt's record, and the delivery's new state: delivered, failed for good, or due again at
   * `retryAt`. Guarded by the claim (runner and attempt): a lease that ran out lets the row go.
   */
  async settle(d: WebhookDeliveryRow, workerId: string, a: AttemptRecord, outcome: { state: 'delivered' | 'failed' } | { state: 'pending'; retryAt: string }): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const now = nowIso();
      const moved = await trx
        .updateTable('webhook_deliveries')
        .set({
          state: outcome.state,
          last_status: a.statusCode,
          locked_by: null,
          ...(outcome.state === 'pending' ? { next_attempt_at: outcome.retryAt } : { finished_at: now }),
        })
        .where('id', '=', d.id)
        .where('locked_by', '=', workerId)
        .where('attempts', '=', d.attempts)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) return false;
      await trx
        .insertInto('webhook_attempts')
        .values({ delivery_id: d.id, attempted_at: now, status_code: a.statusCode, latency_ms: a.latencyMs, response_excerpt: a.excerpt, error: a.error })
        .execute();
      return true;
    });
  }

  async succeeded(endpointId: number): Promise<void> {
    await this.db.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', endpointId).where('failing_since', 'is not', null).execute();
  }

  /**
   * A failed attempt: the endpoint fails since its first failure after a success; failing since
   * before `disableBefore`, it is disabled (the one caller that does gets the row: it mails), and
   * its pending deliveries end as failed.
   */
  async failed(endpointId: number, disableBefore: string): Promise<WebhookEndpointRow | undefined> {
    const now = nowIso();
    await this.db.updateTable('webhook_endpoints').set({ failing_since: now }).where('id', '=', endpointId).where('failing_since', 'is', null).execute();
    return this.db.transaction().execute(async (trx) => {
      const off = await trx
        .updateTable('webhook_endpoints')
        .set({ enabled: 0, disabled_at: now, updated_at: now })
        .where('id', '=', endpointId)
        .where('enabled', '=', 1)
        .where('failing_since', '<=', disableBefore)
        .returningAll()
        .executeTakeFirst();
      if (off) await this.endPending(trx, endpointId, now);
      return off;
    });
  }

  /** A delivery of a disabled endpoint: ended as failed. */
  async endPending(tx: Db, endpointId: number, now = nowIso()): Promise<void> {
    await tx.updateTable('webhook_deliveries').set({ state: 'failed', finished_at: now, locked_by: null }).where('endpoint_id', '=', endpointId).where('state', '=', 'pending').execute();
  }

  /** The endpoint's deliveries, newest first, with their events. */
  deliveries(endpointId: number, limit: number, offset: number): Promise<DeliveryRow[]> {
    return this.db
      .selectFrom('webhook_deliveries')
      .innerJoin('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id')
      .selectAll('webhook_deliveries')
      .select(['webhook_events.uuid as event_uuid', 'webhook_events.type as event_type'])
      .where('webhook_deliveries.endpoint_id', '=', endpointId)
      .orderBy('webhook_deliveries.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  async countDeliveries(endpointId: number): Promise<number> {
    const r = await this.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('endpoint_id', '=', endpointId).executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /** Attempts of these deliveries, oldest first. */
  attempts(deliveryIds: readonly number[]): Promise<WebhookAttemptRow[]> {
    if (deliveryIds.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', [...deliveryIds]).orderBy('id').execute();
  }

  delivery(endpointId: number, uuid: string): Promise<WebhookDeliveryRow | undefined> {
    return this.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).where('uuid', '=', uuid).executeTakeFirst();
  }

  /** The event sent again to the endpoint: a new delivery, due now (the same webhook-id: receivers deduplicate). */
  async replay(endpointId: number, eventId: number): Promise<WebhookDeliveryRow> {
    const now = nowIso();
    return this.db
      .insertInto('webhook_deliveries')
      .values({ uuid: randomUUID(), endpoint_id: endpointId, event_id: eventId, state: 'pending', attempts: 0, next_attempt_at: now, created_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Events (with their deliveries and attempts) older than `before`: the log's retention. */
  async purge(before: string): Promise<number> {
    const gone = await this.db
      .deleteFrom('webhook_events')
      .where('created_at', '<', before)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_deliveries').select('id').whereRef('webhook_deliveries.event_id', '=', 'webhook_events.id').where('state', '=', 'pending'))))
      .executeTakeFirst();
    return Number(gone.numDeletedRows);
  }
}
