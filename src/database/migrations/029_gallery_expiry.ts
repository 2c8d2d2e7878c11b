// A gallery's expiry date (docs/galleries.md, an extension): after it the website shows a closed
// page for the gallery and everything below it; null, no expiry. ISO 8601 UTC text, as every timestamp.
import type { Kysely } from 'kysely';
import type { MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.alterTable('galleries').addColumn('expires_at', 'text').execute();
  // The expiry its clients were reminded of (a week before): once per gallery and expiry; a moved expiry gets its own.
  await db.schema.alterTable('galleries').addColumn('expiry_reminded_for', 'text').execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.alterTable('galleries').dropColumn('expiry_reminded_for').execute();
  await db.schema.alterTable('galleries').dropColumn('expires_at').execute();
}
