// The page stamps' lock order on PostgreSQL: a media's row, then its owner's media_stamps row (owners
// lowest first), then a gallery's or a collection's row. A delete whose cascades write stamps after it
// locked a gallery or collection takes the owners' stamps first, with this, or it deadlocks with a
// publication (test/api/delete-lock-order.test.ts). SQLite has one writer: nothing to order.
// docs/architecture.md, "Pages cost their slice".
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
