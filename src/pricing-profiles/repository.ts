// SQL of pricing profiles: the price lists a user attaches to medias, their
// items (download sizes or print products) and the print products' options.
import { randomUUID } from 'node:crypto';
import type { Db } from '../database/db.js';
import { nowIso } from '../database/db.js';
import { preparedAll } from '../database/prepared.js';

export interface ProfileRow {
  id: number;
  uuid: string;
  name: string;
  kind: string;
  currency: string;
  minimum_price: number | null;
  created_at: string;
  updated_at: string | null;
}

export interface OptionRow {
  label: string;
  price: number | null;
  ratio: number | null;
}

export interface ItemRow {
  label: string;
  long_edge: number | null;
  price: number;
  options: OptionRow[];
}

export interface ProfileFields {
  name?: string;
  kind?: string;
  currency?: string;
  minimum_price?: number | null;
}

const PROFILE_COLUMNS = ['id', 'uuid', 'name', 'kind', 'currency', 'minimum_price', 'created_at', 'updated_at'] as const;

export class PricingProfilesRepository {
  constructor(private readonly db: Db) {}

  /** A new profile; its UUID. */
  async create(ownerId: number, name: string): Promise<string> {
    const uuid = randomUUID();
    await this.db.insertInto('pricing_profiles').values({ uuid, owner_id: ownerId, name, created_at: nowIso() }).execute();
    return uuid;
  }

  /** A new price list with its items, in one transaction; its id. */
  async createList(ownerId: number, fields: Required<Pick<ProfileFields, 'name' | 'kind' | 'currency'>> & ProfileFields, items: readonly ItemRow[]): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const { id } = await trx
        .insertInto('pricing_profiles')
        .values({ uuid: randomUUID(), owner_id: ownerId, name: fields.name, kind: fields.kind, currency: fields.currency, minimum_price: fields.minimum_price ?? null, created_at: nowIso() })
        .returning('id')
        .executeTakeFirstOrThrow();
      await insertItems(trx, id, items);
      return id;
    });
  }

  /** Changes the fields given and, when `items` is given, replaces every item, in one transaction. */
  async update(id: number, fields: ProfileFields, items: readonly ItemRow[] | undefined): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('pricing_profiles').set({ ...fields, updated_at: nowIso() }).where('id', '=', id).execute();
      if (items === undefined) return;
      // Options go with their items (ON DELETE CASCADE).
      await trx.deleteFrom('pricing_profile_items').where('profile_id', '=', id).execute();
      await insertItems(trx, id, items);
    });
  }

  /** Deletes a profile; its items, options and attachments to medias go with it (ON DELETE CASCADE). */
  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('pricing_profiles').where('id', '=', id).execute();
  }

  async one(id: number): Promise<ProfileRow> {
    return this.db.selectFrom('pricing_profiles').select(PROFILE_COLUMNS).where('id', '=', id).executeTakeFirstOrThrow();
  }

  async itemsCount(id: number): Promise<number> {
    const r = await this.db.selectFrom('pricing_profile_items').select((eb) => eb.fn.countAll<number>().as('n')).where('profile_id', '=', id).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** A profile's items in order, each with its options in order: two queries. */
  async items(id: number): Promise<ItemRow[]> {
    const items = await this.db.selectFrom('pricing_profile_items').select(['id', 'label', 'long_edge', 'price']).where('profile_id', '=', id).orderBy('position').execute();
    if (items.length === 0) return [];
    const options = await this.db
      .selectFrom('pricing_profile_options')
      .select(['item_id', 'label', 'price', 'ratio'])
      .where(
        'item_id',
        'in',
        items.map((i) => i.id),
      )
      .orderBy('item_id')
      .orderBy('position')
      .execute();
    const byItem = new Map<number, OptionRow[]>(items.map((i) => [i.id, []]));
    for (const o of options) byItem.get(o.item_id)!.push({ label: o.label, price: o.price, ratio: o.ratio });
    return items.map((i) => ({ label: i.label, long_edge: i.long_edge, price: Number(i.price), options: byItem.get(i.id)! }));
  }

  /** The owner's profiles of these ids: one query whatever their number. */
  async many(ownerId: number, ids: readonly number[]): Promise<ProfileRow[]> {
    if (ids.length === 0) return [];
    return profilesByIds(this.db, ownerId, [...ids]);
  }

  /** The items of several profiles in order, each with its options in order: two queries whatever their number. */
  async itemsOf(ids: readonly number[]): Promise<Map<number, ItemRow[]>> {
    const out = new Map<number, ItemRow[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return out;
    const items = await itemsOfProfiles(this.db, [...ids]);
    if (items.length === 0) return out;
    // The options of all these profiles' items by a join: no list of item ids to send.
    const options = await optionsOfProfiles(this.db, [...ids]);
    const byItem = new Map<number, OptionRow[]>(items.map((i) => [i.id, []]));
    for (const o of options) byItem.get(o.item_id)?.push({ label: o.label, price: o.price, ratio: o.ratio });
    for (const i of items) out.get(i.profile_id)!.push({ label: i.label, long_edge: i.long_edge, price: Number(i.price), options: byItem.get(i.id)! });
    return out;
  }

  /** The profiles each of these medias carries (ids, oldest profile first): one query. */
  async profilesOfMedias(mediaIds: readonly number[]): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>(mediaIds.map((id) => [id, []]));
    if (mediaIds.length === 0) return out;
    const rows = await profilesOfMediaIds(this.db, [...new Set(mediaIds)]);
    for (const r of rows) out.get(r.media_id)!.push(r.pricing_profile_id);
    return out;
  }

  /** A media's status and the size of its original (null while unknown). */
  async mediaOriginal(mediaId: number): Promise<{ status: string; width: number | null; height: number | null }> {
    return this.db.selectFrom('medias').select(['status', 'width', 'height']).where('id', '=', mediaId).executeTakeFirstOrThrow();
  }

  /**
   * Of these medias of the owner, the live ones a list of `kinds` offers at least one item of: an
   * item without a long edge (the original file, a print), or one no longer than the original's
   * long edge (as src/shop/offer.ts decides). One query for a gallery page.
   */
  async forSale(ownerId: number, mediaUuids: readonly string[], kinds: readonly string[]): Promise<string[]> {
    if (mediaUuids.length === 0 || kinds.length === 0) return [];
    const rows = await this.db
      .selectFrom('media_pricing_profiles as mp')
      .innerJoin('medias as m', 'm.id', 'mp.media_id')
      .innerJoin('pricing_profiles as p', 'p.id', 'mp.pricing_profile_id')
      .innerJoin('pricing_profile_items as i', 'i.profile_id', 'p.id')
      .select('m.uuid')
      .distinct()
      .where('m.owner_id', '=', ownerId)
      .where('m.status', '=', 'live')
      .where('p.kind', 'in', [...kinds])
      .where('m.uuid', 'in', [...mediaUuids])
      .where((eb) => eb.or([eb('i.long_edge', 'is', null), eb.and([eb('m.width', 'is not', null), eb('m.height', 'is not', null), eb.or([eb('i.long_edge', '<=', eb.ref('m.width')), eb('i.long_edge', '<=', eb.ref('m.height'))])])]))
      .execute();
    return rows.map((r) => r.uuid);
  }

  /** A page of the owner's profiles, oldest first, with their item counts, and how many there are. */
  async list(ownerId: number, limit: number, offset: number): Promise<{ rows: Array<ProfileRow & { items_count: number }>; total: number }> {
    const [rows, total] = await Promise.all([
      this.db
        .selectFrom('pricing_profiles as p')
        .select(PROFILE_COLUMNS.map((c) => `p.${c}` as const))
        .select((eb) => eb.selectFrom('pricing_profile_items as i').select((e) => e.fn.countAll<number>().as('n')).whereRef('i.profile_id', '=', 'p.id').as('items_count'))
        .where('p.owner_id', '=', ownerId)
        .orderBy('p.id')
        .limit(limit)
        .offset(offset)
        .execute(),
      this.db.selectFrom('pricing_profiles').select((eb) => eb.fn.countAll<number>().as('n')).where('owner_id', '=', ownerId).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map((r) => ({ ...r, items_count: Number(r.items_count ?? 0) })), total: Number(total.n) };
  }
}

// A cart's reads, compiled once (src/database/prepared.ts): every cart, checkout and order page makes them.
const profilesByIds = preparedAll((db: Db, ownerId: number, ids: readonly number[]) => db.selectFrom('pricing_profiles').select(PROFILE_COLUMNS).where('owner_id', '=', ownerId).where('id', 'in', ids));
const itemsOfProfiles = preparedAll((db: Db, ids: readonly number[]) =>
  db.selectFrom('pricing_profile_items').select(['id', 'profile_id', 'label', 'long_edge', 'price']).where('profile_id', 'in', ids).orderBy('profile_id').orderBy('position'),
);
const optionsOfProfiles = preparedAll((db: Db, ids: readonly number[]) =>
  db
    .selectFrom('pricing_profile_options as o')
    .innerJoin('pricing_profile_items as i', 'i.id', 'o.item_id')
    .select(['o.item_id', 'o.label', 'o.price', 'o.ratio'])
    .where('i.profile_id', 'in', ids)
    .orderBy('o.item_id')
    .orderBy('o.position'),
);
const profilesOfMediaIds = preparedAll((db: Db, mediaIds: readonly number[]) =>
  db.selectFrom('media_pricing_profiles').select(['media_id', 'pricing_profile_id']).where('media_id', 'in', mediaIds).orderBy('media_id').orderBy('pricing_profile_id'),
);

async function insertItems(trx: Db, profileId: number, items: readonly ItemRow[]): Promise<void> {
  // One statement per item (at most MAX_ITEMS) and one for all its options (at most MAX_OPTIONS rows of 5 values).
  for (const [position, item] of items.entries()) {
    const { id } = await trx
      .insertInto('pricing_profile_items')
      .values({ profile_id: profileId, position: position + 1, label: item.label, long_edge: item.long_edge, price: item.price })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (item.options.length === 0) continue;
    await trx
      .insertInto('pricing_profile_options')
      .values(item.options.map((o, i) => ({ item_id: id, position: i + 1, label: o.label, price: o.price, ratio: o.ratio })))
      .execute();
  }
}
