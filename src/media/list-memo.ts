// The ids of a list scope (a library, a gallery, a collection, a lightbox), in
// the listing's order, kept in memory under the owner's media stamp (moved by
// triggers in every writing transaction, migration 009): a page of
// GET /medias.xml then costs its slice and one indexed read of the stamp, not a
// COUNT(*) and an OFFSET scan of the whole scope (issue 22). Page numbers and
// totals are the same as before: the slice of the same ordered ids, and their
// number. A stamp that moved makes the next reader read the scope once again.
import { LRUCache } from 'lru-cache';

interface Entry {
  stamp: number;
  ids: Promise<Int32Array>;
  size: number;
}

/** Up to `maxIds` ids kept in all (4 bytes each). */
export class ListMemo {
  private readonly memo: LRUCache<string, Entry>;

  constructor(maxIds = 4_000_000) {
    this.memo = new LRUCache<string, Entry>({ maxSize: maxIds, sizeCalculation: (e) => Math.max(1, e.size) });
  }

  /**
   * The scope's ids under `stamp`, read by `load` when the stamp moved. The stamp must be read
   * before `load` runs, so ids stored under it are never older than it.
   */
  ids(key: string, stamp: number, load: () => Promise<number[]>): Promise<Int32Array> {
    const hit = this.memo.get(key);
    if (hit && hit.stamp === stamp) return hit.ids;
    const entry: Entry = { stamp, size: 1, ids: load().then((ids) => Int32Array.from(ids)) };
    this.memo.set(key, entry);
    entry.ids.then(
      (ids) => {
        if (this.memo.peek(key) !== entry) return;
        entry.size = ids.length + 1;
        this.memo.set(key, entry);
      },
      () => {
        if (this.memo.peek(key) === entry) this.memo.delete(key);
      },
    );
    return entry.ids;
  }
}
