// The ids of a list scope (a library, gallery, collection, lightbox or smart collection) in the
// listing's order, kept under the owner's media stamp (and rule stamp, for a smart collection): a page
// of GET /medias.xml is a slice and its totals the ids' number, with no COUNT(*) nor OFFSET scan, the
// same pages as before (issue 22; docs/architecture.md, "Pages cost their slice").
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
