// The ids of a list scope (a library, a gallery, a collection, a lightbox, a
// smart collection), in the listing's order, kept in memory under the owner's
// media stamp (moved by triggers in every writing transaction, migration 010),
// and for a smart collection under that stamp and the owner's rule stamp
// (migration 019) with the group's stored rules in the key: a page of
// GET /medias.xml then costs its slice and one indexed read of the stamps, not a
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
  ids(key: string, stamp: string, load: () => Promise<number[]>): Promise<Int32Array> {
    return this.memo.get(key, stamp, async () => Int32Array.from(await load()));
  }

  /** The scope's ids when they are kept under `stamp` (or being read under it); undefined otherwise. */
  fresh(key: string, stamp: string): Promise<Int32Array> | undefined {
    return this.memo.peek(key, stamp);
  }
}
