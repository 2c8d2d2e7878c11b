// The photographer's print lab and a gallery's whole sale, declared once for every face (docs/shop.md,
// docs/architecture.md "One contract"): the API's `lab[…]` and `sale[…]`, the studio's lab form and
// sale card. A wrong value is a 422 whose `field` is the spec key, worded with the face's name.
import { bracketNames, flag, int, line, missingField, readFields, uuid, type InputOf, type Naming, type Source } from '../core/fields.js';
import { MAX_PRICE } from '../shop/money.js';
import { isOrderEmail, MAX_EMAIL_LENGTH, type GallerySaleInput } from './service.js';

/** The longest item label a sale may name (a price list's). */
const MAX_ITEM_LABEL = 200;

export const LAB_FIELDS = {
  /** Blank (null): the lab is removed. */
  email: line({ max: MAX_EMAIL_LENGTH, lower: true, check: { test: isOrderEmail, message: (n) => `${n} must be an e-mail address such as orders@lab.example` } }),
  /** Print sheets go to the lab when an order is paid. */
  auto: flag(),
};
export const LAB_API = bracketNames('lab', LAB_FIELDS);
export type LabInput = { email?: string; auto?: boolean };

/** The lab as a face sent it: a blank e-mail ('') removes it; neither field sent is a missing e-mail. */
export function readLab(source: Source, naming: Naming): LabInput {
  const lab = readFields(LAB_FIELDS, source, naming);
  if (lab.email === undefined && lab.auto === undefined) throw missingField({ key: 'email', name: naming('email') });
  return { ...(lab.email !== undefined && { email: lab.email ?? '' }), ...(lab.auto !== undefined && { auto: lab.auto }) };
}

/** In the order they are checked: a blank price stops the sale, whatever else is sent. */
export const SALE_FIELDS = {
  /** Minor units; blank (null): the gallery is no longer sold whole. */
  price: int({ min: 0, max: MAX_PRICE, blank: 'null' }),
  /** A download price list of the owner's. */
  pricingProfile: uuid({ blank: 'absent' }),
  /** The label of one of its items: the size the photos are delivered at. */
  item: line({ max: MAX_ITEM_LABEL, blank: 'refuse' }),
};
export const SALE_API = bracketNames('sale', SALE_FIELDS);
export type SaleFields = InputOf<typeof SALE_FIELDS>;

/** The sale as a face sent it; null: stop selling the gallery whole. */
export function readSale(source: Source, naming: Naming): GallerySaleInput | null {
  // A blank price stops the sale before the other fields are judged.
  if (readFields({ price: SALE_FIELDS.price }, source, naming).price === null) return null;
  const s = readFields(SALE_FIELDS, source, naming);
  for (const key of ['price', 'pricingProfile', 'item'] as const) if (s[key] === undefined) throw missingField({ key, name: naming(key) });
  return { profile: s.pricingProfile!, item: s.item!, price: s.price! };
}
