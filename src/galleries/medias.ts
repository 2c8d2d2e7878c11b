// Medias published in a gallery: their display order (content_order) and the
// manual reorder of gallery[medias_order]. Where a newly published media goes:
// membership-repository.ts.
import { sql } from 'kysely';
import { invalid } from '../http/errors.js';
import type { Db } from '../store/db.js';
import type { GalleryRow } from '../store/schema.js';

const REORDER_CHUNK = 500;
const byName = new Intl.Collator('en', { sensitivity: 'base' });
const natural = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

interface OrderRow {
  media_id: number;
  uuid: string;
  position: number;
  file_name: string;
  mg_published_at: string;
  shot_at: string | null;
  created_at: string;
  updated_at: string;
  artist_rating: number | null;
}

type Key = (r: OrderRow) => string | number | null;
const KEYS: Record<string, Key> = {
  published_at: (r) => r.mg_published_at,
  shot_at: (r) => r.shot_at,
  created_at: (r) => r.created_at,
  updated_at: (r) => r.updated_at,
  artist_rating: (r) => (r.artist_rating === null ? null : Number(r.artist_rating)),
};

/**
 * UUIDs of the live medias of a gallery in the gallery's order. Sorted here
 * rather than in SQL so both databases agree on collation and on where
 * missing values go (always last, whatever the direction).
 */
export async function orderedMediaUuids(db: Db, gallery: Pick<GalleryRow, 'id' | 'content_order' | 'content_order_direction'>): Promise<string[]> {
  const rows = await db
    .selectFrom('media_galleries as mg')
    .innerJoin('medias as m', 'm.id', 'mg.media_id')
    .select(['mg.media_id', 'm.uuid', 'mg.position', 'm.file_name', 'mg.published_at as mg_published_at', 'm.shot_at', 'm.created_at', 'm.updated_at', 'm.artist_rating'])
    .where('mg.gallery_id', '=', gallery.id)
    .where('m.status', '=', 'live')
    .execute();
  const sign = gallery.content_order_direction === 'desc' ? -1 : 1;
  const manual = (a: OrderRow, b: OrderRow) => a.position - b.position || a.media_id - b.media_id;
  let compare: (a: OrderRow, b: OrderRow) => number;
  switch (gallery.content_order) {
    case 'file_name':
      compare = (a, b) => sign * byName.compare(a.file_name, b.file_name) || manual(a, b);
      break;
    case 'file_name_nat':
      compare = (a, b) => sign * natural.compare(a.file_name, b.file_name) || manual(a, b);
      break;
    case 'manual-first':
    case 'manual-last':
      compare = (a, b) => sign * manual(a, b);
      break;
    default: {
      const key = KEYS[gallery.content_order] ?? KEYS.published_at;
      compare = (a, b) => {
        const ka = key(a);
        const kb = key(b);
        if (ka === null || kb === null) return ka === kb ? manual(a, b) : ka === null ? 1 : -1;
        return sign * (ka < kb ? -1 : ka > kb ? 1 : 0) || manual(a, b);
      };
    }
  }
  return rows.sort(compare).map((r) => r.uuid);
}

/**
 * gallery[medias_order]: the listed medias (all published in the gallery)
 * come first, in the order given; the others keep their order after them.
 */
export async function reorderMedias(db: Db, galleryId: number, uuids: readonly string[]): Promise<void> {
  if (uuids.length === 0) return;
  const rows = await db
    .selectFrom('media_galleries as mg')
    .innerJoin('medias as m', 'm.id', 'mg.media_id')
    .select(['mg.media_id', 'm.uuid', 'mg.position'])
    .where('mg.gallery_id', '=', galleryId)
    .orderBy('mg.position')
    .orderBy('mg.media_id')
    .execute();
  const byUuid = new Map(rows.map((r) => [r.uuid.toLowerCase(), r]));
  const listed = uuids.map((u) => {
    const row = byUuid.get(u);
    if (!row) throw invalid(`gallery[medias_order]: media ${u} is not published in this gallery`);
    return row;
  });
  const listedIds = new Set(listed.map((r) => r.media_id));
  const order = [...listed, ...rows.filter((r) => !listedIds.has(r.media_id))];
  const changes = order.map((r, i) => ({ id: r.media_id, position: i + 1, old: r.position })).filter((c) => c.position !== c.old);
  for (let i = 0; i < changes.length; i += REORDER_CHUNK) {
    const chunk = changes.slice(i, i + REORDER_CHUNK);
    const branches = chunk.map((c) => sql`WHEN ${c.id} THEN CAST(${c.position} AS INTEGER)`);
    await sql`UPDATE media_galleries SET position = CASE media_id ${sql.join(branches, sql` `)} END
      WHERE gallery_id = ${galleryId} AND media_id IN (${sql.join(chunk.map((c) => c.id))})`.execute(db);
  }
}
