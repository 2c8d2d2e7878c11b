// The page stamps' lock order on PostgreSQL (migrations 010, 019, 020; docs/architecture.md,
// "Pages cost their slice"). The stamps are rows that triggers write in the writing transaction,
// so each is a row lock held until the commit, and every writer takes them in one order: a
// media's row, then its owner's media_stamps row (several owners' rows lowest first), then a
// gallery's or a collection's row. A publication keeps it by itself: its media's INSERT or UPDATE
// writes the owner's stamp, then MembershipRepository.publish (or applyCollections) locks the
// gallery (the collection), and migration 020 made the trigger of a media going live do the same.
//
// A statement that locks a gallery or a collection and whose cascades then write owners' stamps
// (deleting a gallery, a collection, or clearing a gallery's cover before its media goes) would
// take them the other way round and meet such a publication holding the owner's stamp while it
// waits for that gallery: "deadlock detected", and one of the two fails. Such a write takes the
// owners' stamps first, with this, once it holds the medias it deletes
// (test/api/delete-lock-order.test.ts). SQLite has one writer: nothing to order.
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
