// The camera, lens and exposure a photo's file names (EXIF), kept as one JSON text for the studio's
// "From the file" (docs/media.md); null when the file says nothing. Always the current file's.
import type { Kysely } from 'kysely';
import type { MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.alterTable('medias').addColumn('camera', 'text').execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.alterTable('medias').dropColumn('camera').execute();
}
