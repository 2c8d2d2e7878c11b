// Operations declared once (docs/architecture.md "One contract"): a field spec per operation
// input, from which come the typed input, the validation and the 422s. Every face reads
// through it with its own names (API `gallery[name]`, form `name`, CLI `--name`); a refusal
// is worded with that name and carries the spec key in `err.field`.
import { ApiError } from './errors.js';
import { isUuid } from './uuid.js';

export type Mode = 'create' | 'update';

/** One entry of a nested list (`gallery[acl][1][email]`): its id as sent and its values. */
export interface Entry {
  readonly id: string;
  value(sub: string): string | undefined;
}

/** Where a reader finds the values, by spec key, whatever the body (form, JSON, options). */
export interface Source {
  /** The value sent for a field; undefined when absent. */
  value(key: string): string | undefined;
  /** Every value of a list field, as sent; undefined when absent (default: the one value). */
  values?(key: string): string[] | undefined;
  /** The entries of a nested list field, in the order sent; undefined or [] when none. */
  entries?(key: string): Entry[] | undefined;
}

/** The adapter's name of a field (API `gallery[url_path]`, CLI `--url-path`): refusals are worded with it. */
export type Naming = (key: string) => string;

/** Where a field is being read: its spec key, its adapter name, the operation's mode. */
export interface At {
  readonly key: string;
  readonly name: string;
  readonly mode: Mode;
  /** The face's names of the other fields, for a rule across two (latitude with longitude). */
  readonly naming: Naming;
}

export interface Field<T> {
  readonly kind: 'text' | 'uuid' | 'flag' | 'yesNo' | 'int' | 'oneOf' | 'list' | 'entries' | 'custom' | 'instant';
  /** Absent (or blank) is a missing_parameter in this mode ('always': in both). */
  readonly required?: Mode | 'always';
  /** Accepted in this mode only; sent in the other, the 422 says `only.message(name)`. */
  readonly only?: { readonly mode: Mode; readonly message: (name: string) => string };
  /** The adapter's segment when it is not the key in snake_case (`gallery[<param>]`). */
  readonly param?: string;
  /** What a form may show: the bounds and the choices. */
  readonly max?: number;
  readonly min?: number;
  readonly allowed?: readonly string[];
  /** Sub-fields of an entries field (`email`, `read`…): the whitelist's `name[*][sub]`. */
  readonly subs?: readonly string[];
  /** Reads the field; undefined: not sent, leave as it is. Throws a 422 worded with `at.name`. */
  read(source: Required<Source>, at: At): T | undefined;
}

export type Spec = Record<string, Field<unknown>>;
export type ValueOf<F> = F extends Field<infer T> ? T : never;
/** The typed input of an operation: every field optional (undefined: not sent). */
export type InputOf<S extends Spec> = { -readonly [K in keyof S]?: ValueOf<S[K]> };

/** A 422 naming the field: the message in the adapter's words, `field` the spec key. */
export function refuse(at: Pick<At, 'key'>, message: string): ApiError {
  return new ApiError('invalid_parameter', message, { field: at.key });
}

export function missingField(at: Pick<At, 'key' | 'name'>): ApiError {
  return new ApiError('missing_parameter', `parameter ${at.name} is required`, { field: at.key });
}

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The field's segment: its `param`, or the key in snake_case (`urlPath` → `url_path`). */
export function paramOf(spec: Spec, key: string): string {
  return spec[key]?.param ?? snake(key);
}

/** The XML API's names: `prefix[param]` (`gallery[url_path]`). */
export function bracketNames(prefix: string, spec: Spec): Naming {
  return (key) => `${prefix}[${paramOf(spec, key)}]`;
}

/** Command-line names: `--param` in kebab-case (`--url-path`); `rename` for options spelt otherwise. */
export function optionNames(spec: Spec, rename: Record<string, string> = {}): Naming {
  return (key) => `--${rename[key] ?? paramOf(spec, key).replace(/_/g, '-')}`;
}

/** Names given one by one (fields under several prefixes): `{ smartName: 'medias_smart_collection[name]' }`. */
export function namedAs<S extends Spec>(_spec: S, names: { [K in keyof S]: string }): Naming {
  return (key) => names[key as keyof S];
}

/** Plain names: the param itself (`url_path`), as a studio form or JSON body may use. */
export function plainNames(spec: Spec): Naming {
  return (key) => paramOf(spec, key);
}

/** The spec key a face's name stands for (`gallery[url_path]` → `urlPath`); undefined when none. */
export function keyOf(spec: Spec, naming: Naming, name: string): string | undefined {
  return Object.keys(spec).find((key) => naming(key) === name);
}

/** Every name the adapter accepts for the spec (entries as `name[*][sub]`): the API's whitelist. */
export function namesOf(spec: Spec, naming: Naming): string[] {
  return Object.entries(spec).flatMap(([key, f]) => (f.subs ? f.subs.map((sub) => `${naming(key)}[*][${sub}]`) : [naming(key)]));
}

function complete(source: Source | ((key: string) => string | undefined)): Required<Source> {
  const s: Source = typeof source === 'function' ? { value: source } : source;
  return {
    value: (key) => s.value(key),
    values: (key) => (s.values ? s.values(key) : ((v) => (v === undefined ? undefined : [v]))(s.value(key))),
    entries: (key) => s.entries?.(key) ?? [],
  };
}

function sent(f: Field<unknown>, s: Required<Source>, key: string): boolean {
  if (f.subs) return s.entries(key)!.length > 0;
  return f.kind === 'list' ? s.values(key) !== undefined : s.value(key) !== undefined;
}

/**
 * Reads an operation's input: every field in the spec's order (the first refusal is the one
 * reported), the mode's required fields and mode-only fields checked on the way.
 */
export function readFields<S extends Spec>(spec: S, source: Source | ((key: string) => string | undefined), naming: Naming, mode: Mode = 'update'): InputOf<S> {
  const s = complete(source);
  const out: Record<string, unknown> = {};
  for (const [key, f] of Object.entries(spec)) {
    const at: At = { key, name: naming(key), mode, naming };
    if (f.only && f.only.mode !== mode && sent(f, s, key)) throw refuse(at, f.only.message(at.name));
    const value = f.read(s, at);
    if (value !== undefined) out[key] = value;
  }
  return out as InputOf<S>;
}

/** A source over a plain object (a JSON body, parsed options): strings, numbers, booleans (1/0), arrays, arrays of objects. */
export function objectSource(body: Record<string, unknown>, names: Naming = (k) => k): Source {
  const scalar = (v: unknown): string | undefined =>
    typeof v === 'string' ? v : typeof v === 'number' ? String(v) : typeof v === 'boolean' ? (v ? '1' : '0') : v === null ? '' : undefined;
  const at = (key: string) => (Object.prototype.hasOwnProperty.call(body, names(key)) ? body[names(key)] : undefined);
  return {
    value: (key) => {
      const v = at(key);
      return Array.isArray(v) ? scalar(v[v.length - 1]) : scalar(v);
    },
    values: (key) => {
      const v = at(key);
      if (v === undefined) return undefined;
      return (Array.isArray(v) ? v : [v]).map(scalar).filter((x): x is string => x !== undefined);
    },
    entries: (key) => {
      const v = at(key);
      if (v === null || typeof v !== 'object') return [];
      const list = Array.isArray(v) ? v.map((e, i) => [String(i), e] as const) : Object.entries(v);
      return list.map(([id, e]) => ({ id, value: (sub: string) => (e && typeof e === 'object' ? scalar((e as Record<string, unknown>)[sub]) : undefined) }));
    },
  };
}

// ---- The kinds of field. Each keeps the original service's wording ("gallery[name] must be…").

type Common = Pick<Field<unknown>, 'required' | 'only' | 'param'>;
type Blank = 'refuse' | 'null' | 'absent' | 'keep';

/** The value as sent, or the missing_parameter of a required field (absent, or blank when trimmed). */
function given(s: Required<Source>, at: At, required: Field<unknown>['required']): string | undefined {
  const v = s.value(at.key);
  if ((required === 'always' || required === at.mode) && (v === undefined || v.trim() === '')) throw missingField(at);
  return v;
}

function blankValue<T>(blank: Blank, at: At, words: (name: string) => string): T | null | undefined {
  if (blank === 'null') return null;
  if (blank === 'absent') return undefined;
  throw refuse(at, words(at.name));
}

export interface TextOptions extends Common {
  /** UTF-16 units as sent (none: the service bounds it). */
  max?: number;
  /** The value is trimmed (default: kept as sent). */
  trim?: boolean;
  /** What a blank value means: refused, null (clear), not sent, or kept as the value (default). */
  blank?: Blank;
  /** Blank is '' only (default: spaces only too). */
  blankIsEmpty?: boolean;
  /** Characters refused, and the refusal. */
  forbid?: { pattern: RegExp; message: (name: string) => string };
  /** Wording: the default is the API's galleries' ("must be at most 255 characters long", "cannot be blank"). */
  tooLong?: (name: string, max: number) => string;
  blankMessage?: (name: string) => string;
}

export function text<B extends Blank = 'keep'>(o: TextOptions & { blank?: B } = {}): Field<B extends 'null' ? string | null : string> {
  const blank = o.blank ?? 'keep';
  return {
    kind: 'text',
    ...o,
    read(s, at) {
      const raw = given(s, at, o.required);
      if (raw === undefined) return undefined;
      const t = o.trim ? raw.trim() : raw;
      if (o.max !== undefined && raw.length > o.max) throw refuse(at, (o.tooLong ?? ((n, m) => `${n} must be at most ${m} characters long`))(at.name, o.max));
      if (o.blankIsEmpty ? raw === '' : raw.trim() === '') {
        if (blank !== 'keep') return blankValue(blank, at, o.blankMessage ?? ((n) => `${n} cannot be blank`)) as never;
      }
      if (o.forbid && o.forbid.pattern.test(t)) throw refuse(at, o.forbid.message(at.name));
      return t as never;
    },
  };
}

export interface LineOptions extends Common {
  /** Code points, after trimming. */
  max: number;
  /** Blank: null, clear (default) or refused ("may not be blank"). */
  blank?: 'null' | 'refuse';
  /** A rule of the value's own, checked last. */
  check?: { test: (value: string) => boolean; message: (name: string) => string };
  /** The value is lower-cased (after the checks). */
  lower?: boolean;
}

/** One line of text: trimmed, no control characters, at most `max` code points ("must be one line of text"). */
export function line<B extends 'null' | 'refuse' = 'null'>(o: LineOptions & { blank?: B }): Field<B extends 'refuse' ? string : string | null> {
  return {
    kind: 'text',
    ...o,
    read(s, at) {
      const raw = given(s, at, o.required);
      if (raw === undefined) return undefined;
      const t = raw.trim();
      if (t === '') return blankValue(o.blank ?? 'null', at, (n) => `${n} may not be blank`) as never;
      if (/[\x00-\x1f\x7f]/.test(t)) throw refuse(at, `${at.name} must be one line of text`);
      if ([...t].length > o.max) throw refuse(at, `${at.name} must be at most ${o.max} characters`);
      if (o.check && !o.check.test(t)) throw refuse(at, o.check.message(at.name));
      return (o.lower ? t.toLowerCase() : t) as never;
    },
  };
}

/** A reference by UUID: trimmed, checked with isUuid, lower-cased; blank clears it (null) unless told otherwise. */
export function uuid<B extends 'null' | 'absent' = 'null'>(o: Common & { blank?: B } = {}): Field<B extends 'null' ? string | null : string> {
  const blank = o.blank ?? 'null';
  return {
    kind: 'uuid',
    ...o,
    read(s, at) {
      const raw = given(s, at, o.required);
      if (raw === undefined) return undefined;
      const t = raw.trim();
      if (t === '') return blankValue(blank, at, () => '') as never;
      if (!isUuid(t)) throw refuse(at, `${at.name} must be a UUID, got ${JSON.stringify(raw)}`);
      return t.toLowerCase() as never;
    },
  };
}

/** A 0/1 flag (also true/false); anything else, blank included, is refused. */
export function flag(o: Common = {}): Field<boolean> {
  return {
    kind: 'flag',
    ...o,
    read(s, at) {
      const raw = given(s, at, o.required);
      if (raw === undefined) return undefined;
      const t = raw.trim().toLowerCase();
      if (t === '1' || t === 'true') return true;
      if (t === '0' || t === 'false') return false;
      throw refuse(at, `parameter ${at.name} must be 0 or 1, got ${JSON.stringify(raw)}`);
    },
  };
}

/** A yes/no answer (also 1/0, true/false); blank is no answer. */
export function yesNo(o: Common = {}): Field<boolean> {
  return {
    kind: 'yesNo',
    ...o,
    read(s, at) {
      const t = given(s, at, o.required)?.trim().toLowerCase();
      if (t === undefined || t === '') return undefined;
      if (t === 'yes' || t === '1' || t === 'true') return true;
      if (t === 'no' || t === '0' || t === 'false') return false;
      throw refuse(at, `${at.name} must be yes or no`);
    },
  };
}

export interface IntOptions extends Common {
  min?: number;
  max?: number;
  /** Blank: not sent (default) or null (clear). */
  blank?: 'absent' | 'null';
  /**
   * 'parameter' (default): "parameter N must be an integer / at least / at most";
   * 'whole': digits only, "N must be a whole number from MIN to MAX, got …" (blank refused);
   * 'whole-bare': the same without "got …" (blank: not sent).
   */
  wording?: 'parameter' | 'whole' | 'whole-bare';
}

export function int<B extends 'absent' | 'null' = 'absent'>(o: IntOptions & { blank?: B }): Field<B extends 'null' ? number | null : number> {
  const wording = o.wording ?? 'parameter';
  return {
    kind: 'int',
    ...o,
    read(s, at) {
      const raw = given(s, at, o.required);
      if (raw === undefined) return undefined;
      const t = raw.trim();
      if (wording === 'whole' || wording === 'whole-bare') {
        if (wording === 'whole-bare' && t === '') return undefined;
        const digits = String(o.max ?? 0).length;
        if (!new RegExp(`^\\d{1,${digits}}$`).test(t) || Number(t) < (o.min ?? 0) || Number(t) > (o.max ?? Infinity)) {
          throw refuse(at, `${at.name} must be a whole number from ${o.min} to ${o.max}${wording === 'whole' ? `, got ${JSON.stringify(t)}` : ''}`);
        }
        return Number(t) as never;
      }
      if (raw === '' || (o.blank === 'null' && t === '')) return (o.blank === 'null' ? null : undefined) as never;
      if (!/^[+-]?\d{1,15}$/.test(t)) throw refuse(at, `parameter ${at.name} must be an integer, got ${JSON.stringify(raw)}`);
      const n = Number(t);
      if (o.min !== undefined && n < o.min) throw refuse(at, `parameter ${at.name} must be at least ${o.min}`);
      if (o.max !== undefined && n > o.max) throw refuse(at, `parameter ${at.name} must be at most ${o.max}`);
      return n as never;
    },
  };
}

export interface OneOfOptions<T extends string, R> extends Common {
  /** Compared lower-cased (default: as sent, trimmed). */
  lower?: boolean;
  /** Blank: refused like any other word (default) or not sent. */
  blank?: 'refuse' | 'absent';
  /** The refusal ends with ", got …" (default true). */
  got?: boolean;
  /** The typed value of a word (`'1'` → 1). */
  as?: (word: T) => R;
}

export function oneOf<const T extends string, R = T>(allowed: readonly T[], o: OneOfOptions<T, R> = {}): Field<R> {
  return {
    kind: 'oneOf',
    ...o,
    allowed,
    read(s, at) {
      const raw = given(s, at, o.required);
      if (raw === undefined) return undefined;
      const t = o.lower ? raw.trim().toLowerCase() : raw.trim();
      if (t === '' && o.blank === 'absent') return undefined;
      if (!(allowed as readonly string[]).includes(t)) {
        throw refuse(at, `${at.name} must be one of ${allowed.join(', ')}${o.got === false ? '' : `, got ${JSON.stringify(raw)}`}`);
      }
      return (o.as ? o.as(t as T) : t) as R;
    },
  };
}

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * A moment as ISO 8601 date and time (`2026-12-01T18:00:00+01:00`; no offset: UTC, as a form's
 * `datetime-local` sends it), stored as UTC text (toISOString); blank clears it (null).
 */
export function instant(o: Common = {}): Field<string | null> {
  return {
    kind: 'instant',
    ...o,
    max: 40,
    read(s, at) {
      const raw = given(s, at, o.required);
      if (raw === undefined) return undefined;
      const bad = () => refuse(at, `${at.name} must be an ISO 8601 date and time (2026-12-01T18:00:00Z), got ${JSON.stringify(raw.slice(0, 40))}`);
      // Bounded as sent, before anything else: a long blank is no "clear".
      if (raw.length > 40) throw bad();
      const t = raw.trim();
      if (t === '') return null;
      const m = INSTANT.exec(t);
      if (!m) throw bad();
      const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number);
      const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
      if (year < 1970 || month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) throw bad();
      const offset = m[8] ?? 'Z';
      if (offset !== 'Z' && (Number(offset.slice(1, 3)) > 14 || Number(offset.slice(4)) > 59)) throw bad();
      const d = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${m[7] ?? ''}${offset}`);
      if (Number.isNaN(d.getTime())) throw bad();
      return d.toISOString();
    },
  };
}

export interface UuidListOptions extends Common {
  /** Values one request may list. */
  max: number;
  /** What the UUIDs name, in the refusals ("must list media UUIDs"). */
  what: string;
}

/** UUIDs, repeated or comma-separated, each once, lower-cased; more than `max` is a 422. */
export function uuidList(o: UuidListOptions): Field<string[]> {
  return {
    kind: 'list',
    ...o,
    read(s, at) {
      const raw = s.values(at.key);
      if (raw === undefined) return undefined;
      const list = raw.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
      if (list.length > o.max) throw refuse(at, `parameter ${at.name} takes at most ${o.max} values, got ${list.length}`);
      const seen = new Set<string>();
      for (const u of list) {
        if (!isUuid(u)) throw refuse(at, `${at.name} must list ${o.what} UUIDs, got ${JSON.stringify(u)}`);
        const lower = u.toLowerCase();
        if (seen.has(lower)) throw refuse(at, `${at.name} lists ${o.what} ${u} twice`);
        seen.add(lower);
      }
      return [...seen];
    },
  };
}

/** A nested list (`gallery[acl][n][…]`): `subs` for the whitelist, the domain's own reading of the entries. */
export function entries<T>(subs: readonly string[], read: (list: Entry[], at: At, s: Required<Source>) => T | undefined, o: Common = {}): Field<T> {
  return { kind: 'entries', ...o, subs, read: (s, at) => read(s.entries(at.key)!, at, s) };
}

/** A field read by the domain's own rule (still one declaration: the same names, field and typed value). */
export function custom<T>(read: (value: string | undefined, at: At, s: Required<Source>) => T | undefined, o: Common & { kind?: 'list'; max?: number; allowed?: readonly string[] } = {}): Field<T> {
  return { ...o, kind: o.kind ?? 'custom', read: (s, at) => read(s.value(at.key), at, s) };
}
