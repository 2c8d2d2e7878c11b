// Request parameters from the query string and form bodies, decoded once.
// Names keep their brackets (`gallery[acl][1][email]`); a trailing `[]` is
// dropped so that `a[]=x` and `a=x` mean the same (client-compat).
import { ApiError, badRequest, invalid } from '../core/errors.js';

const LONE_PERCENT = /%(?![0-9A-Fa-f]{2})/g;

function decodeComponent(raw: string, what: string): string {
  const text = raw.includes('+') ? raw.replace(/\+/g, ' ') : raw;
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text.replace(LONE_PERCENT, '%25'));
  } catch {
    throw badRequest(`${what} is not valid percent-encoded UTF-8`, 'bad_encoding');
  }
}

export function normalizeName(name: string): string {
  return name.endsWith('[]') ? name.slice(0, -2) : name;
}

/**
 * Values an array parameter takes unless its reader allows more: every list
 * ends up in SQL, and no statement may carry more variables than the database
 * takes (32 766 on SQLite, 65 535 on PostgreSQL).
 */
export const MAX_LIST_VALUES = 1000;

export class Params {
  private readonly values = new Map<string, string[]>();

  static parse(encoded: string, what = 'the query string'): Params {
    const p = new Params();
    p.addEncoded(encoded, what);
    return p;
  }

  addEncoded(encoded: string, what: string): void {
    if (!encoded) return;
    for (const pair of encoded.split('&')) {
      if (!pair) continue;
      const eq = pair.indexOf('=');
      const name = decodeComponent(eq < 0 ? pair : pair.slice(0, eq), what);
      const value = eq < 0 ? '' : decodeComponent(pair.slice(eq + 1), what);
      this.add(name, value);
    }
  }

  add(name: string, value: string): void {
    // Multipart parts may come without a name, or with no text (unknown charset).
    if (typeof name !== 'string' || name === '') throw badRequest('a parameter has no name');
    if (typeof value !== 'string') throw badRequest(`parameter ${name} has no text value`, 'bad_encoding');
    // No database stores NUL in text (PostgreSQL refuses it): it is never a character a client means.
    if (name.includes('\0') || value.includes('\0')) throw badRequest(`parameter ${name} contains a NUL character`, 'bad_encoding');
    const key = normalizeName(name);
    const list = this.values.get(key);
    if (list) list.push(value);
    else this.values.set(key, [value]);
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  /** Last value given for a name (later values win, as in Rails). */
  str(name: string): string | undefined {
    const list = this.values.get(name);
    return list ? list[list.length - 1] : undefined;
  }

  required(name: string): string {
    const v = this.str(name);
    if (v === undefined || v === '') throw new ApiError('missing_parameter', `parameter ${name} is required`);
    return v;
  }

  /** Every value sent under a name, blanks included; undefined when absent. */
  all(name: string): string[] | undefined {
    const list = this.values.get(name);
    return list ? [...list] : undefined;
  }

  /** Every value of an array parameter; more than `max` is a 422. */
  list(name: string, max = MAX_LIST_VALUES): string[] | undefined {
    const list = this.values.get(name);
    if (!list) return undefined;
    return capped(name, list.filter((v) => v !== ''), max);
  }

  /** Values of an array parameter that may also arrive as one comma-separated string; more than `max` is a 422. */
  csvList(name: string, max = MAX_LIST_VALUES): string[] | undefined {
    const list = this.values.get(name);
    if (!list) return undefined;
    return capped(name, list.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== ''), max);
  }

  int(name: string, opts: { min?: number; max?: number } = {}): number | undefined {
    const v = this.str(name);
    if (v === undefined || v === '') return undefined;
    if (!/^[+-]?\d{1,15}$/.test(v.trim())) throw invalid(`parameter ${name} must be an integer, got ${JSON.stringify(v)}`);
    const n = Number(v.trim());
    if (opts.min !== undefined && n < opts.min) throw invalid(`parameter ${name} must be at least ${opts.min}`);
    if (opts.max !== undefined && n > opts.max) throw invalid(`parameter ${name} must be at most ${opts.max}`);
    return n;
  }

  /** A 0/1 flag (also accepts true/false). */
  flag(name: string): boolean | undefined {
    const v = this.str(name);
    if (v === undefined) return undefined;
    const t = v.trim().toLowerCase();
    if (t === '1' || t === 'true') return true;
    if (t === '0' || t === 'false') return false;
    throw invalid(`parameter ${name} must be 0 or 1, got ${JSON.stringify(v)}`);
  }

  /** A yes/no answer of a form or the admin command (also 1/0, true/false); empty is no answer. */
  yesNo(name: string): boolean | undefined {
    const v = this.str(name)?.trim().toLowerCase();
    if (v === undefined || v === '') return undefined;
    if (v === 'yes' || v === '1' || v === 'true') return true;
    if (v === 'no' || v === '0' || v === 'false') return false;
    throw invalid(`${name} must be yes or no`);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const v = this.str(name);
    if (v === undefined || v === '') return undefined;
    if (!(allowed as readonly string[]).includes(v)) throw invalid(`parameter ${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
    return v as T;
  }

  /** Names under a prefix, e.g. every `gallery[acl][n][...]`. */
  namesUnder(prefix: string): string[] {
    return [...this.values.keys()].filter((k) => k.startsWith(prefix));
  }

  /** Refuses any parameter that matches none of the patterns (`*` stands for one bracket segment's content). */
  checkAllowed(patterns: readonly RegExp[]): void {
    for (const name of this.values.keys()) {
      if (name === '_method') continue;
      if (!patterns.some((re) => re.test(name))) {
        throw new ApiError('unknown_parameter', `unknown parameter ${name}`);
      }
    }
  }
}

function capped(name: string, values: string[], max: number): string[] {
  if (values.length > max) throw invalid(`parameter ${name} takes at most ${max} values, got ${values.length}`);
  return values;
}

/** Compiles `gallery[acl][*][email]`-style patterns into anchored regexps. */
export function compileParamPatterns(patterns: readonly string[]): RegExp[] {
  return patterns.map((p) => {
    const escaped = normalizeName(p)
      .replace(/[.+?^${}()|\\]/g, '\\$&')
      .replace(/\[/g, '\\[')
      .replace(/\]/g, '\\]')
      .replace(/\*/g, '[^\\]]*');
    return new RegExp(`^${escaped}$`);
  });
}

export const PAGINATION_PARAMS = ['page', 'per_page'] as const;

export interface Page {
  page: number;
  perPage: number;
  /** false when the client sent neither page nor per_page. */
  explicit: boolean;
}

export function pageParams(p: Params, maxPerPage: number, defaultPerPage = Math.min(maxPerPage, 100)): Page {
  const page = p.int('page', { min: 1, max: 1_000_000 });
  const perPage = p.int('per_page', { min: 1, max: maxPerPage });
  return { page: page ?? 1, perPage: perPage ?? defaultPerPage, explicit: page !== undefined || perPage !== undefined };
}

export function totalPages(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage));
}
