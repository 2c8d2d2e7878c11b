// SQL of lightboxes: a user's named selections of their own medias, and the
// selections clients make of a gallery's photos (favourites, migration 014),
// which are lightboxes of the gallery's photographer.
import { randomUUID } from 'node:crypto';
import type { Db } from '../database/db.js';
import { nowIso } from '../database/db.js';
import { inUnit, type Unit } from '../database/unit-of-work.js';
import { pickListsOf, storedLists } from './lists.js';

/** A client's selection of one gallery, as the rules (service.ts) read it. */
export interface SelectionRow {
  id: number;
  uuid: string;
  owner_id: number;
  gallery_id: number | null;
  client_key: string | null;
  client_email: string | null;
  client_name: string | null;
  client_verified: number;
  state: string;
  sent_at: string | null;
  updated_at: string | null;
  count: number;
}

export interface PickRow {
  media_id: number;
  media_uuid: string;
  note: string | null;
  picked_at: string | null;
  position: number;
  /** The client's named lists it is in, one a line (lists.ts); null: none. */
  lists: string | null;
}

/** A lightbox as the API lists it. */
export interface LightboxListRow {
  id: number;
  uuid: string;
  name: string;
  created_at: string;
  gallery_uuid: string | null;
  gallery_name: string | null;
  client_email: string | null;
  client_name: string | null;
  client_verified: number;
  state: string;
  sent_at: string | null;
  updated_at: string | null;
  count: number;
}

/** A gallery of the photographer's own websites, as the proofing screen names it. */
export interface OwnedGallery {
  id: number;
  uuid: string;
  name: string;
  urlname: string;
  /** The named lists offered to clients there, one a line (migration 037). */
  favourite_lists: string | null;
}

/** A pick as the proofing screen shows it: the file's name and title beside the client's note. */
export interface ProofPickRow extends PickRow {
  file_name: string | null;
  title: string | null;
}

/** What one pick asked of the store, under the selection's lock. */
export type PickOutcome = { kind: 'picked' | 'already'; count: number } | { kind: 'full'; count: number } | { kind: 'sent' };

export interface NewSelection {
  ownerId: number;
  galleryId: number;
  clientKey: string;
  clientEmail: string;
  clientName: string | null;
  verified: boolean;
  name: string;
}

const SELECTION_COLUMNS = [
  'l.id',
  'l.uuid',
  'l.owner_id',
  'l.gallery_id',
  'l.client_key',
  'l.client_email',
  'l.client_name',
  'l.client_verified',
  'l.state',
  'l.sent_at',
  'l.updated_at',
] as const;

export class LightboxesRepository {
  constructor(private readonly db: Db) {}

  /** A lightbox holding `mediaIds` in that order, in one transaction; its UUID. */
  create(ownerId: number, name: string, mediaIds: readonly number[]): Promise<string> {
    const uuid = randomUUID();
    return this.db.transaction().execute(async (trx) => {
      const now = nowIso();
      const lb = await trx.insertInto('lightboxes').values({ uuid, owner_id: ownerId, name, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
      if (mediaIds.length) {
        await trx
          .insertInto('lightbox_medias')
          .values(mediaIds.map((mediaId, i) => ({ lightbox_id: lb.id, media_id: mediaId, position: i + 1 })))
          .execute();
      }
      return uuid;
    });
  }

  /** The client's selection of a gallery with its count of picks, if it exists. */
  async selection(ownerId: number, galleryId: number, clientKey: string): Promise<SelectionRow | undefined> {
    const row = await this.db
      .selectFrom('lightboxes as l')
      .select(SELECTION_COLUMNS)
      .select((eb) => eb.selectFrom('lightbox_medias as lm').whereRef('lm.lightbox_id', '=', 'l.id').select(eb.fn.countAll<number>().as('n')).as('count'))
      .where('l.client_key', '=', clientKey)
      .where('l.gallery_id', '=', galleryId)
      .where('l.owner_id', '=', ownerId)
      .executeTakeFirst();
    return row && { ...row, count: Number(row.count ?? 0) };
  }

  /** The client's selections of a website's galleries, with their gallery's UUID and counts: one query, at most `limit`. */
  async selectionsOnWebsite(clientKey: string, websiteId: number, limit: number): Promise<Array<SelectionRow & { gallery_uuid: string }>> {
    const rows = await this.db
      .selectFrom('lightboxes as l')
      .innerJoin('galleries as g', 'g.id', 'l.gallery_id')
      .select(SELECTION_COLUMNS)
      .select('g.uuid as gallery_uuid')
      .select((eb) => eb.selectFrom('lightbox_medias as lm').whereRef('lm.lightbox_id', '=', 'l.id').select(eb.fn.countAll<number>().as('n')).as('count'))
      .where('l.client_key', '=', clientKey)
      .where('g.website_id', '=', websiteId)
      .orderBy('l.id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ ...r, count: Number(r.count ?? 0) }));
  }

  /** The picks of a lightbox in the order they were made (positions), with their notes. */
  picks(lightboxId: number, limit?: number, offset = 0): Promise<PickRow[]> {
    let q = this.db
      .selectFrom('lightbox_medias as lm')
      .innerJoin('medias as m', 'm.id', 'lm.media_id')
      .select(['lm.media_id', 'm.uuid as media_uuid', 'lm.note', 'lm.picked_at', 'lm.position', 'lm.lists'])
      .where('lm.lightbox_id', '=', lightboxId)
      .orderBy('lm.position')
      .orderBy('lm.media_id');
    if (limit !== undefined) q = q.limit(limit).offset(offset);
    return q.execute();
  }

  /** The notes of `mediaIds` in a lightbox (those that have one). */
  async notes(lightboxId: number, mediaIds: readonly number[]): Promise<Map<number, string>> {
    if (mediaIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('lightbox_medias')
      .select(['media_id', 'note'])
      .where('lightbox_id', '=', lightboxId)
      .where('media_id', 'in', [...mediaIds])
      .where('note', 'is not', null)
      .execute();
    return new Map(rows.filter((r) => r.note).map((r) => [r.media_id, r.note!]));
  }

  /**
   * Picks a media (with a note when given) in the client's selection, made if it does not exist
   * yet, in one transaction: the selection's row is locked first (an update), so simultaneous
   * picks of one client are counted one after another and cannot pass `limit` together.
   */
  pick(s: NewSelection, mediaId: number, note: string | undefined, limit: number): Promise<PickOutcome & { selectionId?: number }> {
    return this.db.transaction().execute(async (trx) => {
      const now = nowIso();
      await trx
        .insertInto('lightboxes')
        .values({
          uuid: randomUUID(),
          owner_id: s.ownerId,
          name: s.name,
          created_at: now,
          updated_at: now,
          gallery_id: s.galleryId,
          client_key: s.clientKey,
          client_email: s.clientEmail,
          client_name: s.clientName,
          client_verified: s.verified ? 1 : 0,
          state: 'open',
        })
        .onConflict((oc) => oc.columns(['client_key', 'gallery_id', 'owner_id']).doNothing())
        .execute();
      const locked = await trx
        .updateTable('lightboxes')
        .set({ updated_at: now })
        .where('client_key', '=', s.clientKey)
        .where('gallery_id', '=', s.galleryId)
        .where('owner_id', '=', s.ownerId)
        .where('state', '=', 'open')
        .returning('id')
        .executeTakeFirst();
      if (!locked) return { kind: 'sent' as const };
      const id = locked.id;
      const count = await countOf(trx, id);
      const existing = await trx.selectFrom('lightbox_medias').select('media_id').where('lightbox_id', '=', id).where('media_id', '=', mediaId).executeTakeFirst();
      if (existing) {
        if (note !== undefined) await trx.updateTable('lightbox_medias').set({ note: note || null }).where('lightbox_id', '=', id).where('media_id', '=', mediaId).execute();
        return { kind: 'already' as const, count, selectionId: id };
      }
      if (count >= limit) return { kind: 'full' as const, count, selectionId: id };
      const last = await trx.selectFrom('lightbox_medias').select((eb) => eb.fn.max('position').as('p')).where('lightbox_id', '=', id).executeTakeFirst();
      await trx
        .insertInto('lightbox_medias')
        .values({ lightbox_id: id, media_id: mediaId, position: Number(last?.p ?? 0) + 1, note: note || null, picked_at: now })
        .execute();
      return { kind: 'picked' as const, count: count + 1, selectionId: id };
    });
  }

  /** Removes a pick, or sets its note, while the selection is open: false when it is not (sent). */
  change(selectionId: number, mediaId: number, change: { unpick: true } | { note: string | null }): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const locked = await trx.updateTable('lightboxes').set({ updated_at: nowIso() }).where('id', '=', selectionId).where('state', '=', 'open').returning('id').executeTakeFirst();
      if (!locked) return false;
      if ('unpick' in change) await trx.deleteFrom('lightbox_medias').where('lightbox_id', '=', selectionId).where('media_id', '=', mediaId).execute();
      else await trx.updateTable('lightbox_medias').set({ note: change.note }).where('lightbox_id', '=', selectionId).where('media_id', '=', mediaId).execute();
      return true;
    });
  }

  /** Adds a list to a pick, or removes it, while the selection is open: the pick's lists after, or 'sent'. */
  setList(selectionId: number, mediaId: number, list: string, on: boolean): Promise<string[] | 'sent'> {
    return this.db.transaction().execute(async (trx) => {
      const locked = await trx.updateTable('lightboxes').set({ updated_at: nowIso() }).where('id', '=', selectionId).where('state', '=', 'open').returning('id').executeTakeFirst();
      if (!locked) return 'sent' as const;
      const row = await trx.selectFrom('lightbox_medias').select('lists').where('lightbox_id', '=', selectionId).where('media_id', '=', mediaId).executeTakeFirst();
      if (!row) return [];
      const before = pickListsOf(row.lists);
      const after = on ? (before.includes(list) ? before : [...before, list]) : before.filter((n) => n !== list);
      if (after.length !== before.length) await trx.updateTable('lightbox_medias').set({ lists: storedLists(after) }).where('lightbox_id', '=', selectionId).where('media_id', '=', mediaId).execute();
      return after;
    });
  }

  /** Marks an open selection sent; false when it was not open. */
  /** Marks an open selection sent, and runs `sentIn` in the same transaction (its selection.sent); false when it was not open. */
  send(selectionId: number, sentIn?: (unit: Unit) => Promise<void>): Promise<boolean> {
    return inUnit(this.db, async (unit) => {
      const now = nowIso();
      const r = await unit.db.updateTable('lightboxes').set({ state: 'sent', sent_at: now, updated_at: now }).where('id', '=', selectionId).where('state', '=', 'open').executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return false;
      await sentIn?.(unit);
      return true;
    });
  }

  /** Deletes the selections an owner's clients made under this address (a client's data on request); how many. */
  forgetClient(ownerId: number, email: string): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const ids = trx.selectFrom('lightboxes').select('id').where('owner_id', '=', ownerId).where('client_email', '=', email);
      await trx.deleteFrom('lightbox_medias').where('lightbox_id', 'in', ids).execute();
      const r = await trx.deleteFrom('lightboxes').where('owner_id', '=', ownerId).where('client_email', '=', email).executeTakeFirst();
      return Number(r.numDeletedRows);
    });
  }

  /** Sets a lightbox's state (the photographer reopens a sent selection). */
  async setState(lightboxId: number, state: 'open' | 'sent'): Promise<void> {
    const now = nowIso();
    await this.db
      .updateTable('lightboxes')
      .set(state === 'sent' ? { state, sent_at: now, updated_at: now } : { state, updated_at: now })
      .where('id', '=', lightboxId)
      .execute();
  }

  /** A page of a user's lightboxes, by id, with their gallery and count; and how many there are. */
  async list(ownerId: number, limit: number, offset: number): Promise<{ rows: LightboxListRow[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.db
        .selectFrom('lightboxes as l')
        .leftJoin('galleries as g', 'g.id', 'l.gallery_id')
        .select(['l.id', 'l.uuid', 'l.name', 'l.created_at', 'g.uuid as gallery_uuid', 'g.name as gallery_name', 'l.client_email', 'l.client_name', 'l.client_verified', 'l.state', 'l.sent_at', 'l.updated_at'])
        .select((eb) => eb.selectFrom('lightbox_medias as lm').whereRef('lm.lightbox_id', '=', 'l.id').select(eb.fn.countAll<number>().as('n')).as('count'))
        .where('l.owner_id', '=', ownerId)
        .orderBy('l.id')
        .limit(limit)
        .offset(offset)
        .execute(),
      this.db.selectFrom('lightboxes').select((eb) => eb.fn.countAll<number>().as('n')).where('owner_id', '=', ownerId).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map((r) => ({ ...r, count: Number(r.count ?? 0) })), total: Number(total.n) };
  }

  /** One lightbox by id as the API lists it. */
  async one(lightboxId: number): Promise<LightboxListRow> {
    const r = await this.db
      .selectFrom('lightboxes as l')
      .leftJoin('galleries as g', 'g.id', 'l.gallery_id')
      .select(['l.id', 'l.uuid', 'l.name', 'l.created_at', 'g.uuid as gallery_uuid', 'g.name as gallery_name', 'l.client_email', 'l.client_name', 'l.client_verified', 'l.state', 'l.sent_at', 'l.updated_at'])
      .select((eb) => eb.selectFrom('lightbox_medias as lm').whereRef('lm.lightbox_id', '=', 'l.id').select(eb.fn.countAll<number>().as('n')).as('count'))
      .where('l.id', '=', lightboxId)
      .executeTakeFirstOrThrow();
    return { ...r, count: Number(r.count ?? 0) };
  }

  /** A gallery on one of the owner's own websites (not one shared with them), by UUID. */
  ownedGallery(ownerId: number, galleryUuid: string): Promise<OwnedGallery | undefined> {
    return this.db
      .selectFrom('galleries as g')
      .innerJoin('websites as w', 'w.id', 'g.website_id')
      .select(['g.id', 'g.uuid', 'g.name', 'w.urlname', 'g.favourite_lists'])
      .where('g.uuid', '=', galleryUuid)
      .where('w.owner_id', '=', ownerId)
      .executeTakeFirst();
  }

  /** The clients' selections of one gallery (the owner's lightboxes made there), with their counts; at most `limit`. */
  async ofGallery(ownerId: number, galleryId: number, limit: number): Promise<LightboxListRow[]> {
    const rows = await this.db
      .selectFrom('lightboxes as l')
      .innerJoin('galleries as g', 'g.id', 'l.gallery_id')
      .select(['l.id', 'l.uuid', 'l.name', 'l.created_at', 'g.uuid as gallery_uuid', 'g.name as gallery_name', 'l.client_email', 'l.client_name', 'l.client_verified', 'l.state', 'l.sent_at', 'l.updated_at'])
      .select((eb) => eb.selectFrom('lightbox_medias as lm').whereRef('lm.lightbox_id', '=', 'l.id').select(eb.fn.countAll<number>().as('n')).as('count'))
      .where('l.owner_id', '=', ownerId)
      .where('l.gallery_id', '=', galleryId)
      .orderBy('l.id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ ...r, count: Number(r.count ?? 0) }));
  }

  /** A lightbox's picks in the order made, with their files' names and titles; at most `limit`. */
  proofPicks(lightboxId: number, limit: number): Promise<ProofPickRow[]> {
    return this.db
      .selectFrom('lightbox_medias as lm')
      .innerJoin('medias as m', 'm.id', 'lm.media_id')
      .select(['lm.media_id', 'm.uuid as media_uuid', 'lm.note', 'lm.picked_at', 'lm.position', 'lm.lists', 'm.file_name', 'm.title'])
      .where('lm.lightbox_id', '=', lightboxId)
      .orderBy('lm.position')
      .orderBy('lm.media_id')
      .limit(limit)
      .execute();
  }

  /** The e-mail address of a user (the photographer a sent selection is mailed to). */
  async ownerEmail(ownerId: number): Promise<string | undefined> {
    return (await this.db.selectFrom('users').select('email').where('id', '=', ownerId).executeTakeFirst())?.email;
  }
}

async function countOf(trx: Db, lightboxId: number): Promise<number> {
  const r = await trx.selectFrom('lightbox_medias').select((eb) => eb.fn.countAll<number>().as('n')).where('lightbox_id', '=', lightboxId).executeTakeFirstOrThrow();
  return Number(r.n);
}
