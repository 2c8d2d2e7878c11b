// Money of the shop (docs/shop.md, "Money and rounding"): integers in the
// minor units of an ISO 4217 currency, never floats. Every product and
// quotient goes through BigInt and is rounded once, half-up.

/** The currencies a price list may use, with their ISO 4217 minor-unit exponent. */
export const CURRENCIES = {
  EUR: { exponent: 2 },
  USD: { exponent: 2 },
  GBP: { exponent: 2 },
  CHF: { exponent: 2 },
  JPY: { exponent: 0 },
  SEK: { exponent: 2 },
  NOK: { exponent: 2 },
  DKK: { exponent: 2 },
  CAD: { exponent: 2 },
  AUD: { exponent: 2 },
  NZD: { exponent: 2 },
  PLN: { exponent: 2 },
  CZK: { exponent: 2 },
} as const satisfies Record<string, { exponent: number }>;

export type CurrencyCode = keyof typeof CURRENCIES;
export const CURRENCY_CODES = Object.keys(CURRENCIES) as CurrencyCode[];

export function isCurrencyCode(code: string): code is CurrencyCode {
  // Own keys only: `constructor` or `__proto__` are not currencies.
  return Object.hasOwn(CURRENCIES, code);
}

export function currency(code: string): { code: CurrencyCode; exponent: number } | undefined {
  return isCurrencyCode(code) ? { code, exponent: CURRENCIES[code].exponent } : undefined;
}

/** The most any one price may be, in minor units (10 000 000.00 in a 2-decimal currency): room for sums to stay exact. */
export const MAX_PRICE = 1_000_000_000;

/** Throws unless `n` is a safe non-negative integer (a bug in the caller, never a client's value: those are checked at the input). */
export function assertMinor(n: number, what: string): void {
  if (!Number.isSafeInteger(n)) throw new RangeError(`${what} must be an integer number of minor units, got ${n}`);
  if (n < 0) throw new RangeError(`${what} must not be negative, got ${n}`);
}

/**
 * a × b / c rounded to the nearest integer, a half going up (away from zero:
 * every operand is non-negative). Exact for any safe integers.
 */
export function mulDivHalfUp(a: number, b: number, c: number): number {
  assertMinor(a, 'a');
  assertMinor(b, 'b');
  assertMinor(c, 'c');
  if (c === 0) throw new RangeError('the divisor must not be 0');
  const q = (2n * BigInt(a) * BigInt(b) + BigInt(c)) / (2n * BigInt(c));
  if (q > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('the amount is too large to be exact');
  return Number(q);
}

/** Minor units as a decimal amount ("12.34", "1234" in JPY), by string, never through a float. */
export function formatMinor(amount: number, code: CurrencyCode): string {
  return formatMinorUnits(amount, CURRENCIES[code].exponent);
}

/**
 * One formatter per (locale, currency), kept: making an Intl.NumberFormat costs about a hundred
 * times a format (issue 33's cart page spent a second of its first profile making them).
 */
const formatters = new Map<string, Intl.NumberFormat>();

/** An amount in minor units for people: "€9.00", "¥1,200" (the website's and the studio's one writer). */
export function money(amount: number | string, code: string, locale = 'en'): string {
  const key = `${locale}\n${code}`;
  let f = formatters.get(key);
  if (!f) formatters.set(key, (f = new Intl.NumberFormat(locale, { style: 'currency', currency: code })));
  // The decimal string, never a float: Intl formats it digit for digit.
  return f.format(formatMinor(Number(amount), code as CurrencyCode) as unknown as number);
}

/** The same for any ISO 4217 exponent (0 for JPY, 3 for KWD or BHD), so that no code assumes two decimals. */
export function formatMinorUnits(amount: number, exponent: number): string {
  if (!Number.isSafeInteger(amount)) throw new RangeError(`an amount must be an integer number of minor units, got ${amount}`);
  const digits = String(Math.abs(amount)).padStart(exponent + 1, '0');
  const sign = amount < 0 ? '-' : '';
  return exponent === 0 ? sign + digits : `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/**
 * An amount a person typed in the currency's major units ("9", "9.5", "9.50", "9,50") as minor
 * units (950); undefined when it is not one (a sign, a thousands separator, more decimals than
 * the currency has).
 */
export function parseMajor(text: string, code: CurrencyCode): number | undefined {
  const exponent = CURRENCIES[code].exponent;
  const m = /^(\d{1,13})(?:[.,](\d+))?$/.exec(text.trim());
  if (!m || (m[2] !== undefined && (exponent === 0 || m[2].length > exponent))) return undefined;
  const n = Number(m[1]) * 10 ** exponent + Number((m[2] ?? '').padEnd(exponent, '0') || '0');
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * Print option ratios are the original service's: a ratio of 200 is the
 * product's base price, so an option costs base × ratio / 200 (base 100 at
 * A4 ratio 200, A3 ratio 300 → 150).
 */
export const RATIO_REFERENCE = 200;
/** Ratios are integers from 1 to 100 × the reference (a hundred times the base price). */
export const MAX_RATIO = 100 * RATIO_REFERENCE;

/**
 * The unit price of a print: the option's own price, or base × ratio / 200
 * rounded half-up, or the base price without an option; never below the
 * price list's minimum price.
 */
export function printOptionPrice(product: { basePrice: number }, option: { price?: number | null; ratio?: number | null } | undefined, minimumPrice?: number | null): number {
  assertMinor(product.basePrice, 'the base price');
  let price = product.basePrice;
  if (option?.price !== undefined && option.price !== null) {
    assertMinor(option.price, "the option's price");
    price = option.price;
  } else if (option?.ratio !== undefined && option.ratio !== null) {
    price = mulDivHalfUp(product.basePrice, option.ratio, RATIO_REFERENCE);
  }
  return minimumPrice === undefined || minimumPrice === null ? price : Math.max(price, minimumPrice);
}
