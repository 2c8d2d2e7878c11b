// A price list's fields, declared once for every face (docs/shop.md, docs/architecture.md "One
// contract"): its own attributes as a field spec, and its items and print options, numbered
// twice over (`<base>[<n>][label]`, `<base>[<n>][options][<m>][ratio]`), read by one reader
// under the face's base name (the API's `pricing_profile[items]`, the studio's `items`).
import { invalid, missing } from '../core/errors.js';
import { bracketNames, custom, int, missingField, refuse, type At, type InputOf } from '../core/fields.js';
import { isCurrencyCode, MAX_PRICE, MAX_RATIO, type CurrencyCode } from '../shop/money.js';

export const KINDS = ['download', 'print'] as const;
export type PriceListKind = (typeof KINDS)[number];

export const MAX_NAME_LENGTH = 255;
export const MAX_LABEL_LENGTH = 200;
/** Items of one price list: download sizes or print products. */
export const MAX_ITEMS = 100;
/** Options of one print product. */
export const MAX_OPTIONS = 50;
/** The largest long edge a download size may ask for, in pixels. */
export const MAX_LONG_EDGE = 65_535;

export interface OptionInput {
  /** The parameter prefix as sent, for refusals: pricing_profile[items][n][options][m]. */
  param: string;
  label: string;
  price: number | null;
  ratio: number | null;
}

export interface ItemInput {
  /** The parameter prefix as sent: pricing_profile[items][n]. */
  param: string;
  label: string;
  /** Download sizes: pixels, null for the original file. */
  longEdge: number | null;
  /** Download price, or a print product's base price (minor units). */
  price: number;
  options: OptionInput[];
}

const P = 'pricing_profile';
const CONTROL = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/;

/** Absent on create is a missing_parameter; a value that is not one of the list, blank included, is refused. */
function required<T>(v: string | undefined, at: At, read: (v: string) => T): T | undefined {
  if (v === undefined) {
    if (at.mode === 'create') throw missingField(at);
    return undefined;
  }
  return read(v);
}

/**
 * A price list's own attributes, in the order they are checked (its items, numbered twice
 * over, are read by readItems below). undefined: not sent, left as it is.
 */
export const PRICING_PROFILE_FIELDS = {
  name: custom<string>((raw, at) =>
    required(raw, at, () => {
      const v = raw!.trim();
      if (v === '') throw at.mode === 'create' ? missingField(at) : refuse(at, `${at.name} cannot be blank`);
      if (v.length > MAX_NAME_LENGTH) throw refuse(at, `${at.name} must be at most ${MAX_NAME_LENGTH} characters long`);
      if (CONTROL.test(v)) throw refuse(at, `${at.name} must not contain control characters`);
      return v;
    }),
    { max: MAX_NAME_LENGTH, required: 'create' },
  ),
  kind: custom<PriceListKind>((raw, at) =>
    required(raw, at, (v) => {
      if (!(KINDS as readonly string[]).includes(v.trim())) throw refuse(at, `${at.name} must be one of ${KINDS.join(', ')}, got ${JSON.stringify(v)}`);
      return v.trim() as PriceListKind;
    }),
    { allowed: KINDS, required: 'create' },
  ),
  currency: custom<CurrencyCode>((raw, at) =>
    required(raw, at, (v) => {
      if (!isCurrencyCode(v)) throw refuse(at, `${at.name} must be a supported ISO 4217 code in capitals (docs/shop.md), got ${JSON.stringify(v)}`);
      return v;
    }),
    { required: 'create' },
  ),
  /** null: none (sent blank). */
  minimumPrice: custom<number | null>((v, at, s) => (v === undefined ? undefined : (int({ min: 0, max: MAX_PRICE }).read(s, at) ?? null))),
};
export const PRICING_PROFILE_API = bracketNames(P, PRICING_PROFILE_FIELDS);

export type PricingProfileInput = InputOf<typeof PRICING_PROFILE_FIELDS> & {
  /** The whole new list of items; [] when sent blank. */
  items?: ItemInput[];
};

/** What the items reader needs of a body: its values by name, and the names under a prefix. */
export interface ItemValues {
  has(name: string): boolean;
  str(name: string): string | undefined;
  namesUnder(prefix: string): string[];
}

const NUMBER = /^\d{1,9}$/;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function labelOf(v: ItemValues, name: string, max: number, required: boolean): string | undefined {
  const raw = v.str(name);
  if (raw === undefined) {
    if (required) throw missing(name, name);
    return undefined;
  }
  const t = raw.trim();
  if (t === '') throw required ? missing(name, name) : invalid(`${name} cannot be blank`, name);
  if (t.length > max) throw invalid(`${name} must be at most ${max} characters long`, name);
  if (CONTROL.test(t)) throw invalid(`${name} must not contain control characters`, name);
  return t;
}

/** A whole number within bounds; blank or absent is undefined (the API's reading of an integer parameter). */
function wholeOf(v: ItemValues, name: string, min: number, max: number): number | undefined {
  const raw = v.str(name);
  if (raw === undefined || raw === '') return undefined;
  if (!/^[+-]?\d{1,15}$/.test(raw.trim())) throw invalid(`parameter ${name} must be an integer, got ${JSON.stringify(raw)}`, name);
  const n = Number(raw.trim());
  if (n < min) throw invalid(`parameter ${name} must be at least ${min}`, name);
  if (n > max) throw invalid(`parameter ${name} must be at most ${max}`, name);
  return n;
}

/**
 * The items sent under `base` (`pricing_profile[items]`, or a form's `items`), in the order of
 * their numbers; undefined when none were sent, [] when `base` itself was sent blank. Every
 * refusal is a 422 whose `field` is the name refused, as the face spelt it.
 */
export function readItems(v: ItemValues, base: string): ItemInput[] | undefined {
  const listed = v.has(base);
  if (listed && (v.str(base) ?? '').trim() !== '') throw invalid(`${base} takes no value of its own: send it blank to empty the list, or send ${base}[n][…]`, base);
  const ITEM = new RegExp(`^${escape(base)}\\[([^\\]]*)\\]\\[(label|long_edge|price)\\]$`);
  const OPTION = new RegExp(`^${escape(base)}\\[([^\\]]*)\\]\\[options\\]\\[([^\\]]*)\\]\\[(label|price|ratio)\\]$`);
  const items = new Map<number, { raw: string; options: Map<number, string> }>();
  const itemOf = (raw: string) => {
    if (!NUMBER.test(raw)) throw invalid(`${base}[${raw}]: an item number is a whole number (0, 1, 2…)`, base);
    const n = Number(raw);
    let item = items.get(n);
    if (!item) {
      if (items.size >= MAX_ITEMS) throw invalid(`${base} may hold at most ${MAX_ITEMS} items`, base);
      item = { raw, options: new Map() };
      items.set(n, item);
    } else if (item.raw !== raw) throw invalid(`${base}[${raw}]: item ${n} is also sent as ${item.raw}`, base);
    return item;
  };
  for (const name of v.namesUnder(`${base}[`)) {
    const o = OPTION.exec(name);
    if (o) {
      const item = itemOf(o[1]);
      const prefix = `${base}[${o[1]}][options]`;
      if (!NUMBER.test(o[2])) throw invalid(`${prefix}[${o[2]}]: an option number is a whole number (0, 1, 2…)`, prefix);
      const m = Number(o[2]);
      if (!item.options.has(m)) {
        if (item.options.size >= MAX_OPTIONS) throw invalid(`${prefix} may hold at most ${MAX_OPTIONS} options`, prefix);
        item.options.set(m, o[2]);
      } else if (item.options.get(m) !== o[2]) throw invalid(`${prefix}[${o[2]}]: option ${m} is also sent as ${item.options.get(m)}`, prefix);
      continue;
    }
    const i = ITEM.exec(name);
    if (i) itemOf(i[1]); // any other name was refused by the face already
  }
  if (items.size === 0) return listed ? [] : undefined;

  return [...items.keys()]
    .sort((a, b) => a - b)
    .map((n) => {
      const { raw, options } = items.get(n)!;
      const param = `${base}[${raw}]`;
      const price = wholeOf(v, `${param}[price]`, 0, MAX_PRICE);
      const item: ItemInput = {
        param,
        label: labelOf(v, `${param}[label]`, MAX_LABEL_LENGTH, true)!,
        longEdge: wholeOf(v, `${param}[long_edge]`, 1, MAX_LONG_EDGE) ?? null,
        price: price ?? 0,
        options: [...options.keys()].sort((a, b) => a - b).map((m) => readOption(v, `${param}[options][${options.get(m)}]`)),
      };
      if (price === undefined) throw missing(`${param}[price]`, `${param}[price]`);
      return item;
    });
}

function readOption(v: ItemValues, param: string): OptionInput {
  const option = {
    param,
    label: labelOf(v, `${param}[label]`, MAX_LABEL_LENGTH, true)!,
    price: wholeOf(v, `${param}[price]`, 0, MAX_PRICE) ?? null,
    ratio: wholeOf(v, `${param}[ratio]`, 1, MAX_RATIO) ?? null,
  };
  if ((option.price === null) === (option.ratio === null)) throw invalid(`${param}: an option has either a price or a ratio (200 = the base price), not ${option.price === null ? 'neither' : 'both'}`, `${param}[price]`);
  return option;
}
