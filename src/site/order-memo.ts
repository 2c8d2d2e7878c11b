// The visible order of a gallery's medias, kept in memory under the gallery's
// order_stamp (moved by triggers in the writing transaction, migration 009):
// a gallery or media page then costs its slice and the chain it already reads,
// not a read and a sort of the whole gallery (issue 22). Content orders sort in
// JavaScript (src/galleries/content-order.ts: one collation on both databases),
// so the order is built once per stamp and shared by every page of the gallery.
// Only ids are kept (4 bytes a media), so 50 000 medias cost about 200 kB; a
// media's position is looked up in a map made the first time a media page asks.
import { LRUCache } from 'lru-cache';
import { sortByContentOrder } from '../galleries/content-order.js';
import type { OrderRow } from './repository.js';

/** What names a gallery's order: the gallery, its stamp and its content order. */
export interface OrderedGallery {
  id: number;
  order_stamp: number;
  content_order: string;
  content_order_direction: string;
}

export class GalleryOrder {
  private positions?: Map<number, number>;
  constructor(readonly ids: Int32Array) {}

  get length(): number {
    return this.ids.length;
  }

  /** Ids of page `page` (from 1) of `perPage`. */
  page(page: number, perPage: number): number[] {
    return Array.from(this.ids.subarray((page - 1) * perPage, page * perPage));
  }

  /** Where `id` stands, or -1 when the gallery does not show it. */
  positionOf(id: number): number {
    if (!this.positions) {
      const m = new Map<number, number>();
      this.ids.forEach((v, i) => m.set(v, i));
      this.positions = m;
    }
    return this.positions.get(id) ?? -1;
  }
}

interface Entry {
  key: string;
  order: Promise<GalleryOrder>;
  size: number;
}

/** Up to `maxMedias` medias' places kept (about 40 bytes each with a position map). */
export class OrderMemo {
  private readonly memo: LRUCache<number, Entry>;

  constructor(
    private readonly load: (galleryId: number, contentOrder: string) => Promise<OrderRow[]>,
    maxMedias = 1_000_000,
  ) {
    this.memo = new LRUCache<number, Entry>({ maxSize: maxMedias, sizeCalculation: (e) => Math.max(1, e.size) });
  }

  /**
   * The gallery's order. The stamp is read with the gallery (before the rows), so an order
   * stored under a stamp is never older than that stamp: a write in between only makes the next
   * reader, who sees the new stamp, build it again.
   */
  of(g: OrderedGallery): Promise<GalleryOrder> {
    const key = `${g.order_stamp}\n${g.content_order}\n${g.content_order_direction}`;
    const hit = this.memo.get(g.id);
    if (hit && hit.key === key) return hit.order;
    // Concurrent readers of a new stamp share one build.
    const entry: Entry = { key, size: 1, order: this.build(g) };
    this.memo.set(g.id, entry);
    entry.order.then(
      (o) => {
        if (this.memo.peek(g.id) !== entry) return;
        entry.size = o.length + 1;
        this.memo.set(g.id, entry);
      },
      () => {
        if (this.memo.peek(g.id) === entry) this.memo.delete(g.id);
      },
    );
    return entry.order;
  }

  private async build(g: OrderedGallery): Promise<GalleryOrder> {
    const rows = sortByContentOrder(await this.load(g.id, g.content_order), g.content_order, g.content_order_direction);
    return new GalleryOrder(Int32Array.from(rows, (r) => r.media_id));
  }
}
