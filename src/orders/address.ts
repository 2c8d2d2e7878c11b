// The postal address of an order with prints (docs/shop.md "Prints"): a name, one or two
// lines, a postcode, a city and a country; each bounded and one line of printable text. A
// refusal is a 422 naming the field (`order[address][city]`); nothing is written then.
import { ApiError, invalid, missing } from '../core/errors.js';

export interface PostalAddress {
  name: string;
  line1: string;
  line2?: string | null;
  postcode: string;
  city: string;
  country: string;
}

/** Each part's longest length, in characters: what labels and couriers print. */
export const ADDRESS_LIMITS = { name: 200, line1: 200, line2: 200, postcode: 20, city: 100, country: 60 } as const;
const CONTROL = /[\x00-\x1F\x7F\u2028\u2029\u202A-\u202E\u2066-\u2069]/;
const POSTCODE = /^[\p{L}\p{N} -]+$/u;

/** Why a part is refused (ApiError.reason), for the faces that word it themselves. */
export type AddressReason = 'too_long' | 'postcode_chars' | 'country_short';

/** A part's refusal: its field key `address.<part>` and why. */
const refused = (key: string, reason: AddressReason, message: string) => new ApiError('invalid_parameter', message, { field: `address.${key}`, reason });

function part(value: string | null | undefined, key: keyof typeof ADDRESS_LIMITS, required: boolean): string | null {
  const field = `order[address][${key}]`;
  const v = (value ?? '').trim().replace(/\s+/g, ' ');
  if (v === '') {
    if (required) throw missing(field, `address.${key}`);
    return null;
  }
  if (v.length > ADDRESS_LIMITS[key] || CONTROL.test(value ?? '')) throw refused(key, 'too_long', `${field} must be one line of at most ${ADDRESS_LIMITS[key]} characters`);
  if (key === 'postcode' && !POSTCODE.test(v)) throw refused(key, 'postcode_chars', `${field} may hold letters, digits, spaces and hyphens only`);
  if (key === 'country' && v.length < 2) throw refused(key, 'country_short', `${field} must be a country's name or its two-letter code`);
  return v;
}

/** The address checked and tidied (runs of spaces made one), or a 422 naming the first wrong part. */
export function checkAddress(a: Partial<Record<keyof PostalAddress, string | null>> | undefined): PostalAddress {
  if (!a) throw missing('order[address][name]', 'address.name');
  return {
    name: part(a.name, 'name', true)!,
    line1: part(a.line1, 'line1', true)!,
    line2: part(a.line2, 'line2', false),
    postcode: part(a.postcode, 'postcode', true)!,
    city: part(a.city, 'city', true)!,
    country: part(a.country, 'country', true)!,
  };
}

/** The address as lines, for a CSV's `client` cell, a mail and a label. */
export function addressLines(o: { ship_name: string | null; ship_line1: string | null; ship_line2: string | null; ship_postcode: string | null; ship_city: string | null; ship_country: string | null }): string[] {
  if (!o.ship_line1) return [];
  return [o.ship_name, o.ship_line1, o.ship_line2, [o.ship_postcode, o.ship_city].filter(Boolean).join(' '), o.ship_country].filter((l): l is string => !!l && l !== '');
}

/** A tracking link: an absolute http(s) address, at most 2000 characters, or a 422. */
export function checkTrackingUrl(value: string | undefined, field = 'order[tracking_url]'): string {
  const v = (value ?? '').trim();
  if (v === '') throw missing(field);
  let url: URL | undefined;
  try {
    url = new URL(v);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || v.length > 2000 || CONTROL.test(v) || url.username || url.password || !url.hostname) throw invalid(`${field} must be an http or https address`);
  return url.href;
}
