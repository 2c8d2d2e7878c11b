// Every query of the activity store (migration 015): a known client's events,
// the anonymous counters, the reads of the API and the admin command, the
// deletion of a client's events and the retention sweep.
import { sql } from 'kysely';
import type { Db } from '../database/db.js';
import { inUnit, type Unit } from '../database/unit-of-work.js';

/** A gallery by its id or its UUID (lower-case). */
export type GalleryRef = number | string;

export interface NewEvent {
  gallery: GalleryRef;
  email: string;
  verified: boolean;
  kind: string;
  mediaId: number | null;
  bytes: number | null;
  at: string;
}

export interface EventRow {
  id: number;
  gallery_uuid: string;
  client_email: string;
  client_verified: boolean;
  kind: string;
  media_uuid: string | null;
  /** The media's file name (the studio's proofing screen shows it; the API does not). */
  media_file_name: string | null;
  bytes: number | null;
  at: string;
}

export interface ClientSummaryRow {
  client_email: string;
  client_verified: boolean;
  kind: string;
  count: number;
  bytes: number;
  first_at: string;
  last_at: string;
}

export interface DailyRow {
  day: string;
  kind: string;
  count: number;
  bytes: number;
}

/** A count per day (YYYY-MM-DD, UTC) and kind: the analytics' series. */
export interface DayKindCount {
  day: string;
  kind: string;
  count: number;
}

/** A gallery and its count (the analytics' most visited). */
export interface GalleryCount {
  uuid: string;
  name: string;
  count: number;
}

/** A media and what clients did with it (the analytics' most chosen photos). */
export interface MediaCount {
  uuid: string;
  title: string | null;
  file_name: string;
  picks: number;
  downloads: number;
}

const num = (v: unknown): number => Number(v ?? 0);
const DAY_OF = sql<string>`substr(at, 1, 10)`;

function galleryWhere(ref: GalleryRef) {
  return typeof ref === 'number' ? sql`g.id = ${ref}` : sql`g.uuid = ${ref}`;
}

export class ActivityRepository {
  constructor(private readonly db: Db) {}

  /**
   * One event of a known client, with the owner of the gallery's website; nothing when the gallery
   * is gone, or when `dedupeSince` is given and the same client already has the same event (same
   * kind and media) in this gallery since then. One statement: several processes may record at once.
   */
  /** A known client's event; with `alongside`, in one transaction with that work (an archive's webhook event). */
  async insertEvent(e: NewEvent, dedupeSince?: string, alongside?: (unit: Unit) => Promise<void>): Promise<boolean> {
    if (!alongside) return this.insertIn(this.db, e, dedupeSince);
    return inUnit(this.db, async (unit) => {
      const inserted = await this.insertIn(unit.db, e, dedupeSince);
      await alongside(unit);
      return inserted;
    });
  }

  /** Work of another part in a transaction of its own (an anonymous archive's webhook event: no row of its own here). */
  inUnit<T>(work: (unit: Unit) => Promise<T>): Promise<T> {
    return inUnit(this.db, work);
  }

  private async insertIn(db: Db, e: NewEvent, dedupeSince: string | undefined): Promise<boolean> {
    const dedupe =
      dedupeSince === undefined
        ? sql``
        : sql`AND NOT EXISTS (SELECT 1 FROM activity_events x WHERE x.gallery_id = g.id AND x.client_email = ${e.email} AND x.kind = ${e.kind}
            AND ${e.mediaId === null ? sql`x.media_id IS NULL` : sql`x.media_id = ${e.mediaId}`} AND x.at >= ${dedupeSince})`;
    const r = await sql`
      INSERT INTO activity_events (owner_id, gallery_id, client_email, client_verified, kind, media_id, bytes, at)
      SELECT w.owner_id, g.id, ${e.email}, ${e.verified ? 1 : 0}, ${e.kind}, ${e.mediaId}, ${e.bytes}, ${e.at}
      FROM galleries g INNER JOIN websites w ON w.id = g.website_id
      WHERE ${galleryWhere(e.gallery)} ${dedupe}`.execute(db);
    return Number(r.numAffectedRows ?? 0) > 0;
  }

  /** Adds anonymous events of a kind to a gallery's day (UTC); nothing when the gallery is gone. */
  async countAnonymous(gallery: GalleryRef, day: string, kind: string, count: number, bytes: number): Promise<void> {
    await sql`
      INSERT INTO activity_daily (gallery_id, day, kind, count, bytes)
      SELECT g.id, ${day}, ${kind}, ${count}, ${bytes} FROM galleries g WHERE ${galleryWhere(gallery)}
      ON CONFLICT (gallery_id, day, kind) DO UPDATE SET count = activity_daily.count + excluded.count, bytes = activity_daily.bytes + excluded.bytes`.execute(this.db);
  }

  private events() {
    return this.db
      .selectFrom('activity_events as e')
      .innerJoin('galleries as g', 'g.id', 'e.gallery_id')
      .leftJoin('medias as m', 'm.id', 'e.media_id');
  }

  private async eventPage(where: { galleryId?: number; ownerId?: number; email?: string }, offset: number, limit: number): Promise<{ total: number; rows: EventRow[] }> {
    let q = this.events();
    if (where.galleryId !== undefined) q = q.where('e.gallery_id', '=', where.galleryId);
    if (where.ownerId !== undefined) q = q.where('e.owner_id', '=', where.ownerId);
    if (where.email !== undefined) q = q.where('e.client_email', '=', where.email);
    const [count, rows] = await Promise.all([
      q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst(),
      q
        .select(['e.id', 'g.uuid as gallery_uuid', 'e.client_email', 'e.client_verified', 'e.kind', 'm.uuid as media_uuid', 'm.file_name as media_file_name', 'e.bytes', 'e.at'])
        .orderBy('e.at', 'desc')
        .orderBy('e.id', 'desc')
        .offset(offset)
        .limit(limit)
        .execute(),
    ]);
    return {
      total: num(count?.n),
      rows: rows.map((r) => ({ ...r, client_verified: r.client_verified === 1, bytes: r.bytes === null ? null : Number(r.bytes) })),
    };
  }

  /** A gallery's events, newest first; one client's when `email` is given. */
  galleryEvents(galleryId: number, email: string | undefined, offset: number, limit: number) {
    return this.eventPage({ galleryId, email }, offset, limit);
  }

  /** An owner's events of one client, across galleries, newest first. */
  clientEvents(ownerId: number, email: string, offset: number, limit: number) {
    return this.eventPage({ ownerId, email }, offset, limit);
  }

  /** Per client and kind of a gallery: counts, bytes, first and last time; the `clients` most recently active clients. */
  async clientSummary(galleryId: number, clients: number): Promise<ClientSummaryRow[]> {
    const recent = this.db
      .selectFrom('activity_events')
      .select('client_email')
      .where('gallery_id', '=', galleryId)
      .groupBy('client_email')
      .orderBy((eb) => eb.fn.max('at'), 'desc')
      .limit(clients);
    const rows = await this.db
      .selectFrom('activity_events')
      .select((eb) => [
        'client_email',
        'kind',
        eb.fn.max('client_verified').as('verified'),
        eb.fn.countAll().as('count'),
        eb.fn.sum('bytes').as('bytes'),
        eb.fn.min('at').as('first_at'),
        eb.fn.max('at').as('last_at'),
      ])
      .where('gallery_id', '=', galleryId)
      .where('client_email', 'in', recent)
      .groupBy(['client_email', 'kind'])
      .orderBy('client_email')
      .orderBy('kind')
      .execute();
    return rows.map((r) => ({
      client_email: r.client_email,
      client_verified: num(r.verified) === 1,
      kind: r.kind,
      count: num(r.count),
      bytes: num(r.bytes),
      first_at: String(r.first_at),
      last_at: String(r.last_at),
    }));
  }

  /** One client's counts per kind in a gallery, with the bytes and the first and last time. */
  async clientKinds(galleryId: number, email: string): Promise<Array<{ kind: string; count: number; bytes: number; first_at: string; last_at: string }>> {
    const rows = await this.db
      .selectFrom('activity_events')
      .select((eb) => ['kind', eb.fn.countAll().as('count'), eb.fn.sum('bytes').as('bytes'), eb.fn.min('at').as('first_at'), eb.fn.max('at').as('last_at')])
      .where('gallery_id', '=', galleryId)
      .where('client_email', '=', email)
      .groupBy('kind')
      .orderBy('kind')
      .execute();
    return rows.map((r) => ({ kind: r.kind, count: num(r.count), bytes: num(r.bytes), first_at: String(r.first_at), last_at: String(r.last_at) }));
  }

  /** A gallery's anonymous counters, newest day first. */
  async daily(galleryId: number): Promise<DailyRow[]> {
    const rows = await this.db
      .selectFrom('activity_daily')
      .select(['day', 'kind', 'count', 'bytes'])
      .where('gallery_id', '=', galleryId)
      .orderBy('day', 'desc')
      .orderBy('kind')
      .execute();
    return rows.map((r) => ({ day: r.day, kind: r.kind, count: num(r.count), bytes: num(r.bytes) }));
  }

  /** Deletes an owner's events of one client; how many. */
  async deleteClient(ownerId: number, email: string): Promise<number> {
    const r = await this.db.deleteFrom('activity_events').where('owner_id', '=', ownerId).where('client_email', '=', email).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** Deletes events before `before` and counters of days before `beforeDay`; how many rows. */
  async purge(before: string, beforeDay: string): Promise<number> {
    const a = await this.db.deleteFrom('activity_events').where('at', '<', before).executeTakeFirst();
    const b = await this.db.deleteFrom('activity_daily').where('day', '<', beforeDay).executeTakeFirst();
    return Number(a.numDeletedRows) + Number(b.numDeletedRows);
  }

  /** An owner's clients' events since `sinceAt`, per day and kind (index activity_events_owner_at). */
  async ownerEventsByDay(ownerId: number, sinceAt: string): Promise<DayKindCount[]> {
    const rows = await this.db
      .selectFrom('activity_events')
      .select((eb) => [DAY_OF.as('day'), 'kind', eb.fn.countAll().as('count')])
      .where('owner_id', '=', ownerId)
      .where('at', '>=', sinceAt)
      .groupBy([DAY_OF, 'kind'])
      .execute();
    return rows.map((r) => ({ day: String(r.day), kind: r.kind, count: num(r.count) }));
  }

  /** The anonymous counters of an owner's galleries since `sinceDay`, per day and kind. */
  async ownerDailyByDay(ownerId: number, sinceDay: string): Promise<DayKindCount[]> {
    const rows = await this.db
      .selectFrom('activity_daily as d')
      .innerJoin('galleries as g', 'g.id', 'd.gallery_id')
      .innerJoin('websites as w', 'w.id', 'g.website_id')
      .select((eb) => ['d.day', 'd.kind', eb.fn.sum('d.count').as('count')])
      .where('w.owner_id', '=', ownerId)
      .where('d.day', '>=', sinceDay)
      .groupBy(['d.day', 'd.kind'])
      .execute();
    return rows.map((r) => ({ day: r.day, kind: r.kind, count: num(r.count) }));
  }

  /** An owner's galleries with the most views since then (clients' and anonymous ones added), `limit` of them. */
  async ownerTopGalleries(ownerId: number, sinceAt: string, sinceDay: string, limit: number): Promise<GalleryCount[]> {
    const known = await this.db
      .selectFrom('activity_events')
      .select((eb) => ['gallery_id', eb.fn.countAll().as('count')])
      .where('owner_id', '=', ownerId)
      .where('kind', '=', 'view')
      .where('at', '>=', sinceAt)
      .groupBy('gallery_id')
      .orderBy((eb) => eb.fn.countAll(), 'desc')
      .limit(limit * 4)
      .execute();
    const anonymous = await this.db
      .selectFrom('activity_daily as d')
      .innerJoin('galleries as g', 'g.id', 'd.gallery_id')
      .innerJoin('websites as w', 'w.id', 'g.website_id')
      .select((eb) => ['d.gallery_id', eb.fn.sum('d.count').as('count')])
      .where('w.owner_id', '=', ownerId)
      .where('d.kind', '=', 'view')
      .where('d.day', '>=', sinceDay)
      .groupBy('d.gallery_id')
      .orderBy((eb) => eb.fn.sum('d.count'), 'desc')
      .limit(limit * 4)
      .execute();
    const counts = new Map<number, number>();
    for (const r of [...known, ...anonymous]) counts.set(r.gallery_id, (counts.get(r.gallery_id) ?? 0) + num(r.count));
    const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, limit);
    if (top.length === 0) return [];
    const names = await this.db.selectFrom('galleries').select(['id', 'uuid', 'name']).where('id', 'in', top.map(([id]) => id)).execute();
    const byId = new Map(names.map((g) => [g.id, g]));
    return top.flatMap(([id, count]) => {
      const g = byId.get(id);
      return g ? [{ uuid: g.uuid, name: g.name, count }] : [];
    });
  }

  /** An owner's medias clients chose or downloaded most since then, `limit` of them (deleted medias left out). */
  async ownerTopMedias(ownerId: number, sinceAt: string, limit: number): Promise<MediaCount[]> {
    const rows = await this.db
      .selectFrom('activity_events')
      .select((eb) => [
        'media_id',
        eb.fn.sum<number>(eb.case().when('kind', '=', 'pick').then(1).else(0).end()).as('picks'),
        eb.fn.sum<number>(eb.case().when('kind', '=', 'download').then(1).else(0).end()).as('downloads'),
      ])
      .where('owner_id', '=', ownerId)
      .where('at', '>=', sinceAt)
      .where('kind', 'in', ['pick', 'download'])
      .where('media_id', 'is not', null)
      .groupBy('media_id')
      .orderBy((eb) => eb.fn.countAll(), 'desc')
      .orderBy('media_id', 'desc')
      .limit(limit)
      .execute();
    if (rows.length === 0) return [];
    const medias = await this.db
      .selectFrom('medias')
      .select(['id', 'uuid', 'title', 'file_name'])
      .where('owner_id', '=', ownerId)
      .where('id', 'in', rows.map((r) => r.media_id as number))
      .execute();
    const byId = new Map(medias.map((m) => [m.id, m]));
    return rows.flatMap((r) => {
      const m = byId.get(r.media_id as number);
      return m ? [{ uuid: m.uuid, title: m.title, file_name: m.file_name, picks: num(r.picks), downloads: num(r.downloads) }] : [];
    });
  }
}
