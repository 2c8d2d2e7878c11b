// The lock order of the page stamps on PostgreSQL (docs/architecture.md, "Pages cost their slice";
// migrations 010, 019, 020): a media's row, then its owner's media_stamps row (lowest first), then a
// gallery's or a collection's. A write that locks a gallery or a collection and whose cascades
// then write owners' stamps takes those stamps first, with this (test/api/delete-lock-order.test.ts),
// or it meets a publication holding them the other way round ("deadlock detected").
import { sql, type RawBuilder } from 'kysely';
import type { Db } from './db.js';
import type { Dialect } from './migration-helpers.js';

/**
 * Locks the media_stamps rows of the owners `owners` selects (a subquery of owner ids), lowest
 * first, as the triggers' own writes would (FOR NO KEY UPDATE, as 020's), until the commit.
 * An owner without a row yet has no medias and so nothing for a cascade to write.
 */
export async function lockOwnerStamps(db: Db, dialect: Dialect, owners: RawBuilder<unknown>): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`SELECT owner_id FROM media_stamps WHERE owner_id IN (${owners}) ORDER BY owner_id FOR NO KEY UPDATE`.execute(db);
}
