// A request body's fields as the studio reads them, whatever its type: a form
// (application/x-www-form-urlencoded), a multipart form's small fields, or a screen's script's
// JSON object. Each action has one reader over these, by the form's names (docs/studio.md).
import { ApiError, invalid } from '../core/errors.js';

const LONE_PERCENT = /%(?![0-9A-Fa-f]{2})/g;

function decoded(raw: string): string {
  const text = raw.includes('+') ? raw.replace(/\+/g, ' ') : raw;
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text.replace(LONE_PERCENT, '%25'));
  } catch {
    throw new ApiError('bad_encoding', 'The form is not valid percent-encoded UTF-8.');
  }
}

/** A JSON value as a field's texts: strings as they are, numbers written out, true/false as 1/0; null and objects are absent. */
function texts(v: unknown): string[] | undefined {
  if (typeof v === 'string') return [v];
  if (typeof v === 'number' && Number.isFinite(v)) return [String(v)];
  if (typeof v === 'boolean') return [v ? '1' : '0'];
  if (Array.isArray(v)) return v.flatMap((x) => texts(Array.isArray(x) ? undefined : x) ?? []);
  return undefined;
}

export class Body {
  private constructor(private readonly values: ReadonlyMap<string, readonly string[]>) {}

  /** An url-encoded form's body (already checked as UTF-8). */
  static form(encoded: string): Body {
    const values = new Map<string, string[]>();
    for (const pair of encoded.split('&')) {
      if (!pair) continue;
      const eq = pair.indexOf('=');
      const name = decoded(eq < 0 ? pair : pair.slice(0, eq));
      const value = eq < 0 ? '' : decoded(pair.slice(eq + 1));
      // No database stores NUL in text: it is never a character a person typed.
      if (name.includes('\0') || value.includes('\0')) throw new ApiError('bad_encoding', 'The form contains a NUL character.');
      const list = values.get(name);
      if (list) list.push(value);
      else values.set(name, [value]);
    }
    return new Body(values);
  }

  /** A script's JSON object: its members by name (anything else is an empty body). */
  static json(body: unknown): Body {
    const values = new Map<string, string[]>();
    if (body && typeof body === 'object' && !Array.isArray(body)) {
      for (const [name, v] of Object.entries(body)) {
        const t = texts(v);
        if (t !== undefined && !t.some((x) => x.includes('\0'))) values.set(name, t);
      }
    }
    return new Body(values);
  }

  /** Fields already read one value each (a multipart form's). */
  static of(map: ReadonlyMap<string, string>): Body {
    return new Body(new Map([...map].map(([k, v]) => [k, [v]])));
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  /** The names sent that start with `prefix`, in the order sent (a form's numbered rows). */
  namesUnder(prefix: string): string[] {
    return [...this.values.keys()].filter((k) => k.startsWith(prefix));
  }

  /** The last value sent for a name. */
  str(name: string): string | undefined {
    const list = this.values.get(name);
    return list ? list[list.length - 1] : undefined;
  }

  /** Every non-blank value of a name; more than `max` is a 422 (none: the body's own bound is the list's). */
  list(name: string, max = Infinity): string[] {
    const list = (this.values.get(name) ?? []).filter((v) => v !== '');
    if (list.length > max) throw invalid(`${name} takes at most ${max} values, got ${list.length}`);
    return list;
  }

  /** A checkbox or a script's boolean: sent as 1 (or true, yes). */
  checked(name: string): boolean {
    const v = this.str(name)?.trim().toLowerCase();
    return v === '1' || v === 'true' || v === 'yes';
  }
}
