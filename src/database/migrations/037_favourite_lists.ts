// Favourites on or off per gallery and the named lists clients sort picks into (issue 30; docs/delivery.md).
// A pick's lists live on the pick (lightbox_medias.lists): the lightbox, its XML and the change feed stay as they were.
import { sql, type Kysely } from 'kysely';
import type { MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  // 'on', 'off', or null: on in client galleries (a password or an access list), off in public ones.
  await db.schema.alterTable('galleries').addColumn('favourites', 'text').execute();
  // The list names the photographer offers here, one a line (at most 10 of 40 characters); null: none.
  await db.schema.alterTable('galleries').addColumn('favourite_lists', 'text').execute();
  // The lists a pick is in, one name a line; null: the plain favourites only.
  await db.schema.alterTable('lightbox_medias').addColumn('lists', 'text').execute();
  // Galleries where favourites were used before this rule keep them, public ones included.
  await sql`UPDATE galleries SET favourites = 'on' WHERE pick_limit IS NOT NULL OR id IN (SELECT gallery_id FROM lightboxes WHERE gallery_id IS NOT NULL)`.execute(db);
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.alterTable('lightbox_medias').dropColumn('lists').execute();
  await db.schema.alterTable('galleries').dropColumn('favourite_lists').execute();
  await db.schema.alterTable('galleries').dropColumn('favourites').execute();
}
