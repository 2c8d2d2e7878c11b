// Which media fields a file may fill, and the rule between a file and a client
// (docs/media.md, "Metadata from the file"): a field a client has set (even to
// nothing) is the client's for good; the others take what each new file says.
// The client's fields are kept as bits in `medias.client_meta`, set by every
// change set that names them (one statement for any number of medias).
import type { MediaChanges, MediaColumnChanges } from './metadata.js';
import type { FileMetadata } from '../uploads/file-metadata.js';

/** The bit of each fillable field in `client_meta`; never renumber (stored, and set by migration 009). */
export const FIELD_BITS = {
  title: 1,
  description: 2,
  keywords: 4,
  author: 8,
  copyright: 16,
  shot_at: 32,
  /** latitude and longitude together. */
  position: 64,
  license: 128,
  location: 256,
  city: 512,
  state: 1024,
  country: 2048,
} as const;

const TEXT_FIELDS = ['title', 'description', 'author', 'copyright', 'license', 'location', 'city', 'state', 'country'] as const;

/** The bits of the fillable fields a change set names (a client's request, or a batch's chunk). */
export function clientBits(ch: MediaChanges): number {
  let bits = 0;
  for (const f of TEXT_FIELDS) if (f in ch.columns) bits |= FIELD_BITS[f];
  if ('shot_at' in ch.columns) bits |= FIELD_BITS.shot_at;
  if ('latitude' in ch.columns || 'longitude' in ch.columns) bits |= FIELD_BITS.position;
  if (ch.keywords !== undefined || ch.addKeywords !== undefined || ch.removeKeywords !== undefined) bits |= FIELD_BITS.keywords;
  return bits;
}

/**
 * What a new file writes: every fillable field the client has not set takes the file's value,
 * or nothing when the file has none (a replacement file's fields replace the former file's).
 * `keywords` undefined: the client owns them, leave them.
 */
export function fromFile(clientMeta: number, shotAt: string | undefined, d: FileMetadata = {}): { columns: MediaColumnChanges; keywords?: string[] } {
  const columns: MediaColumnChanges = {};
  const free = (bit: number) => (clientMeta & bit) === 0;
  for (const f of TEXT_FIELDS) if (free(FIELD_BITS[f])) columns[f] = d[f] ?? null;
  if (free(FIELD_BITS.shot_at)) columns.shot_at = shotAt ?? null;
  if (free(FIELD_BITS.position)) {
    columns.latitude = d.latitude ?? null;
    columns.longitude = d.latitude === undefined ? null : (d.longitude ?? null);
  }
  return { columns, keywords: free(FIELD_BITS.keywords) ? (d.keywords ?? []) : undefined };
}
