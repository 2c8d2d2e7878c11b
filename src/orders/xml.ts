// How an order looks in a reply (API extension, docs/shop.md "Orders"):
// amounts are integers in the currency's minor units, as copied at order time.
import { storedTimestamp, xmlArray, type XmlObject } from '../http/xml.js';
import type { OrdersService } from './service.js';

type Order = Awaited<ReturnType<OrdersService['get']>>;
type OrderHead = Omit<Order, 'items' | 'payments'>;

const when = (t: string | null) => (t === null ? null : storedTimestamp(t));

export function orderHeadXml(o: OrderHead): XmlObject {
  return {
    uuid: o.uuid,
    status: o.status,
    currency: o.currency,
    subtotal: Number(o.subtotal),
    discount: Number(o.discount),
    tax: Number(o.tax),
    'tax-rate': o.tax_rate_bp,
    'tax-included': o.tax_included === 1,
    'tax-label': o.tax_label,
    total: Number(o.total),
    coupon: o.coupon_code,
    email: o.email,
    name: o.name,
    'created-at': when(o.created_at),
    'paid-at': when(o.paid_at),
    'terms-accepted-at': when(o.terms_accepted_at),
    'downloads-expire-at': when(o.downloads_expire_at),
    'delivered-at': when(o.delivered_at),
    // Prints (extension): the postal address, the shipping and the lab.
    address: o.ship_line1
      ? { name: o.ship_name, line1: o.ship_line1, line2: o.ship_line2, postcode: o.ship_postcode, city: o.ship_city, country: o.ship_country }
      : null,
    'tracking-url': o.tracking_url,
    'shipped-at': when(o.shipped_at),
    'lab-sent-at': when(o.lab_sent_at),
  };
}

export function orderXml(o: Order): XmlObject {
  return {
    ...orderHeadXml(o),
    items: xmlArray(
      'item',
      o.items.map((i) => ({
        // A whole gallery's item names its gallery, not a media.
        ...(i.kind === 'gallery' ? { 'media-uuid': null, 'gallery-uuid': i.media_uuid, 'gallery-name': i.media_file_name } : { 'media-uuid': i.media_uuid, 'file-name': i.media_file_name }),
        'pricing-profile-uuid': i.profile_uuid,
        kind: i.kind,
        label: i.label,
        option: i.option_label,
        'long-edge': i.long_edge,
        'unit-price': i.unit_price,
        quantity: i.quantity,
        price: Number(i.total),
      })),
    ),
    payments: xmlArray(
      'payment',
      o.payments.map((p) => ({ provider: p.provider, kind: p.kind, reference: p.reference, amount: Number(p.amount), currency: p.currency, 'created-at': when(p.created_at) })),
    ),
  };
}

export function orderLocation(uuid: string): string {
  return `/orders/${uuid}.xml`;
}

export function labXml(lab: { email: string; auto: boolean; updatedAt: string } | undefined): XmlObject {
  return lab ? { email: lab.email, auto: lab.auto, 'updated-at': when(lab.updatedAt) } : { email: null, auto: false };
}

type Sale = Awaited<ReturnType<OrdersService['gallerySale']>>;

export function saleXml(s: Sale): XmlObject {
  return {
    'gallery-uuid': s.gallery.uuid,
    'for-sale': s.sale !== undefined,
    ...(s.sale
      ? { 'pricing-profile-uuid': s.sale.profile, item: s.sale.item, 'long-edge': s.sale.longEdge, price: s.sale.price, currency: s.sale.currency, medias: s.sale.medias, 'updated-at': when(s.sale.updatedAt) }
      : {}),
  };
}
