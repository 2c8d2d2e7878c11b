// SQL of file_deletions (migration 005): stored files that must go. A path
// that drops the last reference to a file records it in the same transaction;
// the file and its record go after the commit (src/file-storage/file-deletions.ts).
import { nowIso, type Db } from '../database/db.js';

/** Rows per INSERT, keys per IN list: well under every database's parameter limit. */
const CHUNK = 500;

export interface DueDeletion {
  id: number;
  storage_key: string;
}

/** Distinct non-empty keys: callers pass whatever columns held, nulls included. */
export function storageKeys(keys: readonly (string | null | undefined)[]): string[] {
  return [...new Set(keys.filter((k): k is string => typeof k === 'string' && k !== ''))];
}

export class DeletionsRepository {
  constructor(private readonly db: Db) {}

  /** Records files to remove, due `dueAt` (now by default); `tx` is the transaction that drops their references. */
  async record(tx: Db, keys: readonly (string | null | undefined)[], dueAt?: Date): Promise<void> {
    const wanted = storageKeys(keys);
    if (wanted.length === 0) return;
    const now = nowIso();
    const due = dueAt ? dueAt.toISOString() : now;
    for (let i = 0; i < wanted.length; i += CHUNK) {
      await tx
        .insertInto('file_deletions')
        .values(wanted.slice(i, i + CHUNK).map((storage_key) => ({ storage_key, created_at: now, due_at: due })))
        .execute();
    }
  }

  /** Records one file outside any transaction (a file about to be stored). */
  recordOne(key: string, dueAt: Date): Promise<void> {
    return this.record(this.db, [key], dueAt);
  }

  /** Takes the records of `key` off in `tx`; false when there was none. */
  async takeOff(tx: Db, key: string): Promise<boolean> {
    const gone = await tx.deleteFrom('file_deletions').where('storage_key', '=', key).executeTakeFirst();
    return Number(gone.numDeletedRows) > 0;
  }

  /** Drops the records of files that are gone. */
  async forget(keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += CHUNK) {
      await this.db.deleteFrom('file_deletions').where('storage_key', 'in', keys.slice(i, i + CHUNK)).execute();
    }
  }

  /** A page of due records, by id after `after`. */
  due(now: string, after: number, limit = CHUNK): Promise<DueDeletion[]> {
    return this.db
      .selectFrom('file_deletions')
      .select(['id', 'storage_key'])
      .where('due_at', '<=', now)
      .where('id', '>', after)
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  async forgetIds(ids: readonly number[]): Promise<void> {
    if (ids.length > 0) await this.db.deleteFrom('file_deletions').where('id', 'in', ids).execute();
  }
}
