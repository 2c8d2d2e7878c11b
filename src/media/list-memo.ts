// The ids of a list scope (a library, a gallery, a collection, a lightbox), in
// the listing's order, kept in memory under the owner's media stamp (moved by
// triggers in every writing transaction, migration 010): a page of
// GET /medias.xml then costs its slice and one indexed read of the stamp, not a
// COUNT(*) and an OFFSET scan of the whole scope (issue 22). Page numbers and
// totals are the same as before: the slice of the same ordered ids, and their
// number. A stamp that moved makes the next reader read the scope once again.
import { StampedMemo } from '../ops/cache.js';

/** Up to `maxIds` ids kept in all (4 bytes each). */
export class ListMemo {
  private readonly memo: StampedMemo<string, Int32Array>;

  constructor(maxIds = 4_000_000) {
    this.memo = new StampedMemo({ maxSize: maxIds, sizeOf: (ids) => ids.length });
  }

  /**
   * The scope's ids under `stamp`, read by `load` when the stamp moved. The stamp must be read
   * before `load` runs, so ids stored under it are never older than it.
   */
  ids(key: string, stamp: number, load: () => Promise<number[]>): Promise<Int32Array> {
    return this.memo.get(key, String(stamp), async () => Int32Array.from(await load()));
  }
}
