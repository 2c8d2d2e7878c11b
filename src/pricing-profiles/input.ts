// Reads and checks the pricing_profile[...] parameters of a create or an update (docs/shop.md, an API
// extension): items as pricing_profile[items][n][label|long_edge|price] and print options as
// [items][n][options][m][label|price|ratio], ordered by their numbers, like gallery[acl][n][…]. Every
// refusal is a 422 naming the parameter, raised before anything is written.
import { invalid, missing } from '../core/errors.js';
import { bracketNames, custom, int, missingField, namesOf, readFields, refuse, type At, type InputOf, type Mode } from '../core/fields.js';
import { input, paramsSource, type Input } from '../http/input.js';
import type { Params } from '../http/params.js';
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
  ),
  kind: custom<PriceListKind>((raw, at) =>
    required(raw, at, (v) => {
      if (!(KINDS as readonly string[]).includes(v.trim())) throw refuse(at, `${at.name} must be one of ${KINDS.join(', ')}, got ${JSON.stringify(v)}`);
      return v.trim() as PriceListKind;
    }),
  ),
  currency: custom<CurrencyCode>((raw, at) =>
    required(raw, at, (v) => {
      if (!isCurrencyCode(v)) throw refuse(at, `${at.name} must be a supported ISO 4217 code in capitals (docs/shop.md), got ${JSON.stringify(v)}`);
      return v;
    }),
  ),
  /** null: none (sent blank). */
  minimumPrice: custom<number | null>((v, at, s) => (v === undefined ? undefined : (int({ min: 0, max: MAX_PRICE }).read(s, at) ?? null))),
};
export const PRICING_PROFILE_API = bracketNames(P, PRICING_PROFILE_FIELDS);

export type PricingProfileInput = InputOf<typeof PRICING_PROFILE_FIELDS> & {
  /** The whole new list of items; [] when sent blank. */
  items?: ItemInput[];
};

const NAMES = [
  ...namesOf(PRICING_PROFILE_FIELDS, PRICING_PROFILE_API),
  `${P}[items]`,
  `${P}[items][*][label]`,
  `${P}[items][*][long_edge]`,
  `${P}[items][*][price]`,
  `${P}[items][*][options][*][label]`,
  `${P}[items][*][options][*][price]`,
  `${P}[items][*][options][*][ratio]`,
];
const ITEM = /^pricing_profile\[items\]\[([^\]]*)\]\[(label|long_edge|price)\]$/;
const OPTION = /^pricing_profile\[items\]\[([^\]]*)\]\[options\]\[([^\]]*)\]\[(label|price|ratio)\]$/;
const NUMBER = /^\d{1,9}$/;

export function pricingProfileInput(mode: 'create' | 'update'): Input<PricingProfileInput> {
  return input(NAMES, (p) => readProfile(p, mode));
}

function label(p: Params, name: string, max: number, required: boolean): string | undefined {
  const raw = p.str(name);
  if (raw === undefined) {
    if (required) throw missing(name);
    return undefined;
  }
  const v = raw.trim();
  if (v === '') throw required ? missing(name) : invalid(`${name} cannot be blank`);
  if (v.length > max) throw invalid(`${name} must be at most ${max} characters long`);
  if (CONTROL.test(v)) throw invalid(`${name} must not contain control characters`);
  return v;
}

function money(p: Params, name: string): number | undefined {
  return p.int(name, { min: 0, max: MAX_PRICE });
}

function readProfile(p: Params, mode: Mode): PricingProfileInput {
  const out: PricingProfileInput = readFields(PRICING_PROFILE_FIELDS, paramsSource(p, PRICING_PROFILE_API), PRICING_PROFILE_API, mode);
  const items = readItems(p);
  if (items !== undefined) out.items = items;
  return out;
}

/** The items sent, in the order of their numbers; undefined when none were sent. */
function readItems(p: Params): ItemInput[] | undefined {
  const listed = p.has(`${P}[items]`);
  if (listed && (p.str(`${P}[items]`) ?? '').trim() !== '') throw invalid(`${P}[items] takes no value of its own: send it blank to empty the list, or send ${P}[items][n][…]`);
  const items = new Map<number, { raw: string; options: Map<number, string> }>();
  const itemOf = (raw: string) => {
    if (!NUMBER.test(raw)) throw invalid(`${P}[items][${raw}]: an item number is a whole number (0, 1, 2…)`);
    const n = Number(raw);
    let item = items.get(n);
    if (!item) {
      if (items.size >= MAX_ITEMS) throw invalid(`${P}[items] may hold at most ${MAX_ITEMS} items`);
      item = { raw, options: new Map() };
      items.set(n, item);
    } else if (item.raw !== raw) throw invalid(`${P}[items][${raw}]: item ${n} is also sent as ${item.raw}`);
    return item;
  };
  for (const name of p.namesUnder(`${P}[items][`)) {
    const o = OPTION.exec(name);
    if (o) {
      const item = itemOf(o[1]);
      const prefix = `${P}[items][${o[1]}][options]`;
      if (!NUMBER.test(o[2])) throw invalid(`${prefix}[${o[2]}]: an option number is a whole number (0, 1, 2…)`);
      const m = Number(o[2]);
      if (!item.options.has(m)) {
        if (item.options.size >= MAX_OPTIONS) throw invalid(`${prefix} may hold at most ${MAX_OPTIONS} options`);
        item.options.set(m, o[2]);
      } else if (item.options.get(m) !== o[2]) throw invalid(`${prefix}[${o[2]}]: option ${m} is also sent as ${item.options.get(m)}`);
      continue;
    }
    const i = ITEM.exec(name);
    if (i) itemOf(i[1]); // any other name was refused by the router already
  }
  if (items.size === 0) return listed ? [] : undefined;

  return [...items.keys()]
    .sort((a, b) => a - b)
    .map((n) => {
      const { raw, options } = items.get(n)!;
      const param = `${P}[items][${raw}]`;
      const price = money(p, `${param}[price]`);
      const item: ItemInput = {
        param,
        label: label(p, `${param}[label]`, MAX_LABEL_LENGTH, true)!,
        longEdge: p.int(`${param}[long_edge]`, { min: 1, max: MAX_LONG_EDGE }) ?? null,
        price: price ?? 0,
        options: [...options.keys()].sort((a, b) => a - b).map((m) => readOption(p, `${param}[options][${options.get(m)}]`)),
      };
      if (price === undefined) throw missing(`${param}[price]`);
      return item;
    });
}

function readOption(p: Params, param: string): OptionInput {
  const option = {
    param,
    label: label(p, `${param}[label]`, MAX_LABEL_LENGTH, true)!,
    price: money(p, `${param}[price]`) ?? null,
    ratio: p.int(`${param}[ratio]`, { min: 1, max: MAX_RATIO }) ?? null,
  };
  if ((option.price === null) === (option.ratio === null)) throw invalid(`${param}: an option has either a price or a ratio (200 = the base price), not ${option.price === null ? 'neither' : 'both'}`);
  return option;
}

