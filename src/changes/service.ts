// The change feed (API extension, docs/integrations.md "Change feed"): what changed among a user's
// medias, galleries, collections and lightboxes after a cursor, a page at a time, and the cursor to
// ask from next. The log itself is written by triggers (migration 028), so no service records anything.
import type { UserRow } from '../database/schema.js';
import { compareCursors, type Cursor } from './cursor.js';
import type { ChangesRepository } from './repository.js';

export type ChangeKind = 'media' | 'gallery' | 'collection' | 'lightbox';
export type ChangeAction = 'created' | 'updated' | 'deleted';

export interface Change {
  kind: ChangeKind;
  uuid: string;
  action: ChangeAction;
}

export interface ChangePage {
  changes: Change[];
  next: Cursor;
  /** The page was full: ask again from `next` at once. */
  hasMore: boolean;
}

export const CHANGES_MAX_PER_PAGE = 1000;
export const CHANGES_DEFAULT_PER_PAGE = 500;

export class ChangesService {
  constructor(private readonly repo: ChangesRepository) {}

  /** The cursor of a client starting now: it will be told of changes from here on. */
  current(user: Pick<UserRow, 'id'>): Promise<Cursor> {
    return this.repo.now(user.id);
  }

  async since(user: Pick<UserRow, 'id'>, cursor: Cursor, perPage: number): Promise<ChangePage> {
    const { rows, horizon } = await this.repo.after(user.id, cursor, perPage + 1);
    const hasMore = rows.length > perPage;
    const page = rows.slice(0, perPage);
    const last = page.at(-1);
    let next: Cursor = last ? { xid: last.xid, seq: last.seq } : cursor;
    // Not full: every final row after the cursor was read, so the next read may start at the horizon.
    if (!hasMore && horizon !== undefined) next = compareCursors({ xid: horizon, seq: 0 }, next) > 0 ? { xid: horizon, seq: 0 } : next;
    return { changes: page.map((r) => ({ kind: r.kind as ChangeKind, uuid: r.uuid, action: r.action as ChangeAction })), next, hasMore };
  }
}
