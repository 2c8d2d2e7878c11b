// Metadata from the file (docs/media.md, "Metadata from the file"): the
// position and the licence a picture may carry, and which of the fields a file
// may fill a client has set (`client_meta`, bits of src/media/file-fields.ts):
// those keep the client's value whatever file comes later.
import { sql, type Kysely } from 'kysely';
import type { Dialect, MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  const float = dialect === 'postgres' ? 'double precision' : 'real';
  await db.schema.alterTable('medias').addColumn('latitude', float).execute();
  await db.schema.alterTable('medias').addColumn('longitude', float).execute();
  await db.schema.alterTable('medias').addColumn('license', 'text').execute();
  await db.schema.alterTable('medias').addColumn('client_meta', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // Until now only clients (and EXIF, for shot_at) wrote these: every value there is kept as the
  // client's, so a replacement file changes no field it had before (the former rule for shot_at).
  await sql`
    UPDATE medias SET client_meta =
      (CASE WHEN title IS NOT NULL THEN 1 ELSE 0 END)
      + (CASE WHEN description IS NOT NULL THEN 2 ELSE 0 END)
      + (CASE WHEN EXISTS (SELECT 1 FROM media_keywords k WHERE k.media_id = medias.id) THEN 4 ELSE 0 END)
      + (CASE WHEN author IS NOT NULL THEN 8 ELSE 0 END)
      + (CASE WHEN copyright IS NOT NULL THEN 16 ELSE 0 END)
      + (CASE WHEN shot_at IS NOT NULL THEN 32 ELSE 0 END)
      + (CASE WHEN location IS NOT NULL THEN 256 ELSE 0 END)
      + (CASE WHEN city IS NOT NULL THEN 512 ELSE 0 END)
      + (CASE WHEN state IS NOT NULL THEN 1024 ELSE 0 END)
      + (CASE WHEN country IS NOT NULL THEN 2048 ELSE 0 END)
  `.execute(db);
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  for (const column of ['client_meta', 'license', 'longitude', 'latitude']) await db.schema.alterTable('medias').dropColumn(column).execute();
}
