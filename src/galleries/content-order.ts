// The order of the medias of a gallery (gallery[content_order]). Sorted here
// rather than in SQL so both databases agree on collation and on where
// missing values go (always last, whatever the direction). The API's listings
// and the website's pages both order through sortByContentOrder.

/** What ordering a gallery's medias reads of each: its membership and the media's own fields. */
export interface OrderableMedia {
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

const byName = new Intl.Collator('en', { sensitivity: 'base' });
const natural = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

type Key = (r: OrderableMedia) => string | number | null;
const KEYS: Record<string, Key> = {
  published_at: (r) => r.mg_published_at,
  shot_at: (r) => r.shot_at,
  created_at: (r) => r.created_at,
  updated_at: (r) => r.updated_at,
  artist_rating: (r) => (r.artist_rating === null ? null : Number(r.artist_rating)),
};

/** Sorts `rows` in place in the gallery's order and returns them. */
export function sortByContentOrder<T extends OrderableMedia>(rows: T[], contentOrder: string, direction: string): T[] {
  const sign = direction === 'desc' ? -1 : 1;
  const manual = (a: OrderableMedia, b: OrderableMedia) => a.position - b.position || a.media_id - b.media_id;
  let compare: (a: OrderableMedia, b: OrderableMedia) => number;
  switch (contentOrder) {
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
      const key = KEYS[contentOrder] ?? KEYS.published_at;
      compare = (a, b) => {
        const ka = key(a);
        const kb = key(b);
        if (ka === null || kb === null) return ka === kb ? manual(a, b) : ka === null ? 1 : -1;
        return sign * (ka < kb ? -1 : ka > kb ? 1 : 0) || manual(a, b);
      };
    }
  }
  return rows.sort(compare);
}
