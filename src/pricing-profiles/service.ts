// Pricing profiles (spec 2.4): what medias are sold at; batch updates add
// and remove them (add_pricing_profiles[]). The admin command line creates
// bare ones; the API extension (docs/shop.md) makes them price lists: a kind,
// a currency, items, and for prints a minimum price.
import type { Access } from '../access/access.js';
import { invalid } from '../core/errors.js';
import type { UserRow } from '../database/schema.js';
import type { CurrencyCode } from '../shop/money.js';
import { offerFor, type OfferedList } from '../shop/offer.js';
import type { ItemInput, PriceListKind, PricingProfileInput } from './fields.js';
import { checkAgainstKind } from './rules.js';
import type { ItemRow, PricingProfilesRepository, ProfileFields, ProfileRow } from './repository.js';

export interface PriceList {
  uuid: string;
  name: string;
  kind: PriceListKind;
  currency: CurrencyCode;
  minimumPrice: number | null;
  createdAt: string;
  updatedAt: string | null;
  items: ItemRow[];
}

export interface PriceListSummary extends Omit<PriceList, 'items'> {
  itemsCount: number;
}

type Owner = Pick<UserRow, 'id'>;

function rows(items: readonly ItemInput[]): ItemRow[] {
  return items.map((i) => ({ label: i.label, long_edge: i.longEdge, price: i.price, options: i.options.map((o) => ({ label: o.label, price: o.price, ratio: o.ratio })) }));
}

function summary(r: ProfileRow): Omit<PriceList, 'items'> {
  return {
    uuid: r.uuid,
    name: r.name,
    kind: r.kind as PriceListKind,
    currency: r.currency as CurrencyCode,
    minimumPrice: r.minimum_price === null ? null : Number(r.minimum_price),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export class PricingProfilesService {
  constructor(
    private readonly repo: PricingProfilesRepository,
    private readonly access: Access,
  ) {}

  /** A bare profile (the admin command): an empty download list in EUR. */
  async create(owner: Owner, name: string): Promise<{ uuid: string }> {
    return { uuid: await this.repo.create(owner.id, name) };
  }

  /** The profile's id, or the 404 of a profile that is not the user's. */
  private found(owner: Owner, uuid: string): Promise<number> {
    return this.access.requireOne(owner, 'pricing-profile', uuid, { notFound: 'pricing profile' });
  }

  async get(owner: Owner, uuid: string): Promise<PriceList> {
    return this.read(await this.found(owner, uuid));
  }

  private async read(id: number): Promise<PriceList> {
    const [row, items] = await Promise.all([this.repo.one(id), this.repo.items(id)]);
    return { ...summary(row), items };
  }

  async list(owner: Owner, limit: number, offset: number): Promise<{ profiles: PriceListSummary[]; total: number }> {
    const r = await this.repo.list(owner.id, limit, offset);
    return { profiles: r.rows.map((row) => ({ ...summary(row), itemsCount: row.items_count })), total: r.total };
  }

  async createList(owner: Owner, input: PricingProfileInput): Promise<PriceList> {
    // The input reader requires these on a create.
    const { name, kind, currency } = input as Required<Pick<PricingProfileInput, 'name' | 'kind' | 'currency'>>;
    checkAgainstKind(kind, input.items, input.minimumPrice);
    const id = await this.repo.createList(owner.id, { name, kind, currency, minimum_price: input.minimumPrice ?? null }, rows(input.items ?? []));
    return this.read(id);
  }

  async update(owner: Owner, uuid: string, input: PricingProfileInput): Promise<PriceList> {
    const id = await this.found(owner, uuid);
    const current = await this.repo.one(id);
    const kind = input.kind ?? (current.kind as PriceListKind);
    const changesKind = kind !== current.kind;
    // The stored items were made for the old kind: a new kind comes with its own items (or replaces none).
    if (changesKind && input.items === undefined && (await this.repo.itemsCount(id)) > 0) {
      throw invalid(`pricing_profile[kind]: changing the kind of a list that has items needs its new items too (pricing_profile[items][n][…], or pricing_profile[items] blank)`, 'kind');
    }
    checkAgainstKind(kind, input.items, input.minimumPrice);
    const fields: ProfileFields = {};
    if (input.name !== undefined) fields.name = input.name;
    if (input.currency !== undefined) fields.currency = input.currency;
    if (changesKind) fields.kind = kind;
    if (input.minimumPrice !== undefined) fields.minimum_price = input.minimumPrice;
    else if (kind === 'download') fields.minimum_price = null;
    // A kind change always writes the whole item list (here: none), so that items another request
    // added meanwhile for the old kind cannot stay under the new one.
    const items = input.items ?? (changesKind ? [] : undefined);
    await this.repo.update(id, fields, items === undefined ? undefined : rows(items));
    return this.read(id);
  }

  /**
   * What one of the owner's medias is offered at, from the price lists it carries (docs/shop.md,
   * "A media's offer"): nothing for a media without a stored file yet.
   */
  /** Which of the owner's medias (UUIDs, lower case) a list of `kinds` offers something of: a gallery page's "buy" marks. */
  async forSale(owner: Owner, mediaUuids: readonly string[], kinds: readonly string[]): Promise<Set<string>> {
    return new Set(await this.repo.forSale(owner.id, mediaUuids.map((u) => u.toLowerCase()), kinds));
  }

  async offer(owner: Owner, mediaUuid: string): Promise<OfferedList[]> {
    const mediaId = await this.access.requireOne(owner, 'media', mediaUuid, { notFound: 'media' });
    const original = await this.repo.mediaOriginal(mediaId);
    if (original.status !== 'live') return [];
    // The cart's set-based read, for one media: its lists, their items and options at once.
    return (await this.offers(owner, [{ id: mediaId, owner_id: owner.id, ...original }])).offered.get(mediaId) ?? [];
  }

  /**
   * What several of the owner's medias are offered at (`offerFor` per media, as `offer`), with
   * the lists read (by UUID; `alsoLists`: more profile ids to read with them, a whole gallery's):
   * four queries whatever the number of medias and lists. A media of another owner, or not live,
   * is offered nothing.
   */
  async offers(
    owner: Owner,
    medias: ReadonlyArray<{ id: number; owner_id: number; status: string; width: number | null; height: number | null }>,
    alsoLists: readonly number[] = [],
  ): Promise<{ offered: Map<number, OfferedList[]>; lists: Map<string, PriceList & { id: number }> }> {
    const mine = medias.filter((m) => m.owner_id === owner.id && m.status === 'live');
    const attached = await this.repo.profilesOfMedias(mine.map((m) => m.id));
    const ids = [...new Set([...[...attached.values()].flat(), ...alsoLists])];
    const [rows, items] = await Promise.all([this.repo.many(owner.id, ids), this.repo.itemsOf(ids)]);
    const byId = new Map(rows.map((r) => [r.id, { ...summary(r), id: r.id, items: items.get(r.id) ?? [] }]));
    const offered = new Map<number, OfferedList[]>(medias.map((m) => [m.id, []]));
    for (const m of mine) {
      const lists = (attached.get(m.id) ?? []).flatMap((id) => byId.get(id) ?? []);
      offered.set(m.id, offerFor({ width: m.width === null ? null : Number(m.width), height: m.height === null ? null : Number(m.height) }, lists));
    }
    return { offered, lists: new Map([...byId.values()].map((l) => [l.uuid, l])) };
  }

  async delete(owner: Owner, uuid: string): Promise<PriceList> {
    const id = await this.found(owner, uuid);
    const gone = await this.read(id);
    await this.repo.delete(id);
    return gone;
  }
}
