// A photographer's shop for tests (docs/shop.md): a website, a download and a
// print price list, priced medias, carts and orders placed through the
// services, as the website's checkout places them.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Core } from '../../src/app.js';
import type { Db } from '../../src/database/db.js';

export interface Shop {
  owner: { id: number };
  websiteId: number;
  /** The website's urlname (its API address). */
  urlname: string;
  downloads: string;
  prints: string;
  /** A 6000×4000 media carrying both lists. */
  media: string;
  /** A media without a price list. */
  unpriced: string;
}

export async function insertMedia(db: Db, ownerId: number, size: { width: number | null; height: number | null } = { width: 6000, height: 4000 }): Promise<{ id: number; uuid: string }> {
  const artist = await db.selectFrom('artists').select('id').where('owner_id', '=', ownerId).executeTakeFirstOrThrow();
  const now = new Date().toISOString();
  const uuid = randomUUID();
  const m = await db
    .insertInto('medias')
    .values({ uuid, owner_id: ownerId, artist_id: artist.id, status: 'live', file_name: `photo-${uuid.slice(0, 4)}.jpg`, created_at: now, updated_at: now, ...size })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: m.id, uuid };
}

export async function attachProfile(db: Db, mediaUuid: string, profileUuid: string): Promise<void> {
  const m = await db.selectFrom('medias').select('id').where('uuid', '=', mediaUuid).executeTakeFirstOrThrow();
  const p = await db.selectFrom('pricing_profiles').select('id').where('uuid', '=', profileUuid).executeTakeFirstOrThrow();
  await db.insertInto('media_pricing_profiles').values({ media_id: m.id, pricing_profile_id: p.id }).execute();
}

/** A shop of `owner` on a new website; the medias are rows only (no stored file) unless `media` is given. */
export async function openShop(core: Core, owner: { id: number }, opts: { media?: string; currency?: 'EUR' | 'JPY' } = {}): Promise<Shop> {
  const db = core.store.db;
  const urlname = `shop-${randomBytes(4).toString('hex')}`;
  await core.websites.create(owner, { urlname, title: 'Shop' });
  const websiteId = (await db.selectFrom('websites').select('id').where('urlname', '=', urlname).executeTakeFirstOrThrow()).id;
  const currency = opts.currency ?? 'EUR';
  const downloads = await core.pricingProfiles.createList(owner, {
    name: 'Downloads',
    kind: 'download',
    currency,
    items: [
      { param: 'a', label: 'Web', longEdge: 1200, price: 900, options: [] },
      { param: 'b', label: 'Huge', longEdge: 9000, price: 9900, options: [] },
      { param: 'c', label: 'Original file', longEdge: null, price: 4900, options: [] },
    ],
  });
  const prints = await core.pricingProfiles.createList(owner, {
    name: 'Prints',
    kind: 'print',
    currency,
    minimumPrice: 1500,
    items: [{ param: 'a', label: 'Paper', longEdge: null, price: 1000, options: [{ param: 'o', label: 'A3', price: null, ratio: 300 }] }],
  });
  const media = opts.media ?? (await insertMedia(db, owner.id)).uuid;
  await attachProfile(db, media, downloads.uuid);
  await attachProfile(db, media, prints.uuid);
  const unpriced = (await insertMedia(db, owner.id)).uuid;
  return { owner, websiteId, urlname, downloads: downloads.uuid, prints: prints.uuid, media, unpriced };
}

export const BUYER_ADDRESS = { name: 'Ann Buyer', line1: '1 Harbour Lane', line2: null, postcode: 'SW1A 1AA', city: 'London', country: 'United Kingdom' };

/** Places an order of `lines` (default: the Web size and an A3 print) from a new cart; its UUID. */
export async function placeOrder(
  core: Core,
  shop: Shop,
  opts: { email?: string; coupon?: string; acceptTerms?: boolean; lines?: Array<{ media?: string; profile?: string; item: string; option?: string | null; quantity?: number }> } = {},
): Promise<string> {
  const cart = await core.orders.createCart(shop.websiteId);
  const lines = opts.lines ?? [{ item: 'Web' }, { profile: shop.prints, item: 'Paper', option: 'A3', quantity: 2 }];
  for (const l of lines) await core.orders.setCartLine(cart.uuid, { media: l.media ?? shop.media, profile: l.profile ?? shop.downloads, item: l.item, option: l.option ?? null, quantity: l.quantity ?? 1 });
  if (opts.coupon) await core.orders.setCartCoupon(cart.uuid, opts.coupon);
  // A postal address, as the checkout asks one when the cart holds prints (kept only then).
  return (await core.orders.placeOrder(cart.uuid, { email: opts.email ?? 'buyer@example.com', name: 'Ann Buyer', acceptTerms: opts.acceptTerms, address: BUYER_ADDRESS })).uuid;
}
