// What a website's galleries overview asks for (the studio's grid, docs/studio.md "The galleries'
// grid"), declared once: a part of the name, an order and a state. A face reads it under its own
// names (the grid's GET form: q, sort, state); a wrong value is a 422 naming the field. The
// repository turns it into one filtered, sorted page of SQL (GalleriesRepository.overview).
import { line, oneOf, readFields, type Naming, type Source } from '../core/fields.js';

/** Newest first (the default), oldest first, by name, most photos first. */
export const OVERVIEW_SORTS = ['newest', 'oldest', 'name', 'photos'] as const;
export type OverviewSort = (typeof OVERVIEW_SORTS)[number];
/** The states the grid's cards show (their labels' rule is the same, pages/galleries.tsx `states`). */
export const OVERVIEW_STATES = ['public', 'password', 'access-list', 'expired', 'hidden'] as const;
export type OverviewState = (typeof OVERVIEW_STATES)[number];
export const MAX_SEARCH_LENGTH = 100;

export const OVERVIEW_FIELDS = {
  search: line({ max: MAX_SEARCH_LENGTH, param: 'q' }),
  sort: oneOf(OVERVIEW_SORTS, { blank: 'absent' }),
  state: oneOf(['all', ...OVERVIEW_STATES] as const, { blank: 'absent' }),
};

export interface OverviewQuery {
  /** Part of the name, any case; undefined: every name. */
  search?: string;
  sort: OverviewSort;
  /** undefined: every state. */
  state?: OverviewState;
}

/** The query from the values a face read, refused in its words; blank or absent values ask for nothing. */
export function readOverviewQuery(source: Source | ((key: string) => string | undefined), naming: Naming): OverviewQuery {
  const r = readFields(OVERVIEW_FIELDS, source, naming);
  return { search: r.search ?? undefined, sort: r.sort ?? 'newest', state: r.state === 'all' ? undefined : r.state };
}
