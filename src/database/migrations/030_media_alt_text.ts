// A media's alt text (docs/media.md, an extension): what the picture shows, for the website's
// <img alt>; null, none (the website then uses the title).
import type { Kysely } from 'kysely';
import type { MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.alterTable('medias').addColumn('alt_text', 'text').execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.alterTable('medias').dropColumn('alt_text').execute();
}
