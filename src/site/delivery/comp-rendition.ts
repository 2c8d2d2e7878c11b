// Which rendition is "the comp" a visitor with comp_download gets: one choice
// for a single download (service.ts) and for an archive (archives.ts).
import type { SiteRendition } from '../repository.js';

/**
 * The comp: the watermarked 1280, else the largest watermarked size. The one choice of what a
 * visitor with comp_download gets, for a single download and in an archive (archives.ts).
 */
export function compRendition<R extends SiteRendition>(rs: readonly R[]): R | undefined {
  const marked = rs.filter((r) => r.watermarked === 1 && r.name !== 'poster');
  const jpeg = marked.filter((r) => r.mime_type === 'image/jpeg');
  const pool = jpeg.length > 0 ? jpeg : marked;
  return pool.find((r) => r.name === '1280') ?? [...pool].sort((a, b) => b.width - a.width)[0];
}
