// The visible order of a gallery's medias, kept in memory under the gallery's order_stamp, so that
// a gallery or media page costs its slice, not a read and a sort of the whole gallery (issue 22).
// Built once per stamp (content orders sort in JavaScript: one collation on both databases) and
// shared by every page; ids only, and a media's position map made when a media page first asks.
// Why a memo, the stamps and the memory bound: docs/architecture.md, "Pages cost their slice".
import { StampedMemo } from '../../ops/cache.js';
import { sortByContentOrder } from '../../galleries/content-order.js';
import type { OrderRow } from '../repository.js';

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

/** Up to `maxMedias` medias' places kept (about 40 bytes each with a position map). */
export class OrderMemo {
  private readonly memo: StampedMemo<number, GalleryOrder>;

  constructor(
    private readonly load: (galleryId: number, contentOrder: string) => Promise<OrderRow[]>,
    maxMedias = 1_000_000,
  ) {
    this.memo = new StampedMemo({ maxSize: maxMedias, sizeOf: (o) => o.length });
  }

  /**
   * The gallery's order. The stamp is read with the gallery (before the rows), so an order
   * stored under a stamp is never older than that stamp: a write in between only makes the next
   * reader, who sees the new stamp, build it again. A change of content order builds it again too.
   */
  of(g: OrderedGallery): Promise<GalleryOrder> {
    return this.memo.get(g.id, `${g.order_stamp}\n${g.content_order}\n${g.content_order_direction}`, () => this.build(g));
  }

  private async build(g: OrderedGallery): Promise<GalleryOrder> {
    const rows = sortByContentOrder(await this.load(g.id, g.content_order), g.content_order, g.content_order_direction);
    return new GalleryOrder(Int32Array.from(rows, (r) => r.media_id));
  }
}
