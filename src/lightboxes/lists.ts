// Favourites on or off per gallery, and the named lists a client sorts picks into ("Album",
// "Prints"): the rules of both, in one place (docs/delivery.md "Favourites", "Named lists").
import { refuse, type At } from '../core/fields.js';

/** A gallery's favourites setting: `default` (stored null) follows the rule of `favouritesOn`. */
export const FAVOURITES_SETTINGS = ['on', 'off', 'default'] as const;
export type FavouritesSetting = 'on' | 'off' | null;
/** Named lists a gallery offers at most, and a name's length at most. */
export const MAX_LISTS = 10;
export const MAX_LIST_NAME_LENGTH = 40;

/**
 * Whether clients may choose favourites in a gallery: its own setting, else on in a client
 * gallery (a password or an access list on it or above it: `client`), off in a public one.
 */
export function favouritesOn(setting: string | null, client: boolean): boolean {
  if (setting === 'on') return true;
  if (setting === 'off') return false;
  return client;
}

/** The list names as stored (one a line), as the gallery offers them; none: []. */
export function listNamesOf(stored: string | null | undefined): string[] {
  return stored ? stored.split('\n').filter((n) => n !== '') : [];
}

/**
 * List names as sent, one a line (or comma-separated): trimmed, blanks dropped, each at most
 * MAX_LIST_NAME_LENGTH characters, no control characters, no name twice (whatever its case), at
 * most MAX_LISTS; none (blank) is null. Refusals name the field.
 */
export function readListNames(value: string | undefined, at: At): string[] | null | undefined {
  if (value === undefined) return undefined;
  const names = value
    .split(/[\r\n,]+/)
    .map((n) => n.replace(/\s+/g, ' ').trim())
    .filter((n) => n !== '');
  if (names.length === 0) return null;
  if (names.length > MAX_LISTS) throw refuse(at, `${at.name} may name at most ${MAX_LISTS} lists, got ${names.length}`);
  const seen = new Set<string>();
  for (const n of names) {
    if ([...n].length > MAX_LIST_NAME_LENGTH) throw refuse(at, `${at.name}: each list name must be at most ${MAX_LIST_NAME_LENGTH} characters long`);
    if (/[\x00-\x1f\x7f]/.test(n)) throw refuse(at, `${at.name} must not contain control characters`);
    const k = n.toLowerCase();
    if (seen.has(k)) throw refuse(at, `${at.name} names the list ${JSON.stringify(n)} twice`);
    seen.add(k);
  }
  return names;
}

/** A pick's lists as stored (one a line) → names; and back. */
export const pickListsOf = listNamesOf;
export function storedLists(names: readonly string[]): string | null {
  return names.length ? names.join('\n') : null;
}
