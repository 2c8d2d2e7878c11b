// A gallery's download controls (docs/delivery.md "Download controls", extensions): a PIN asked
// before a download, a limit of photos each client may download, and web-size or original files;
// the ledger of what each client downloaded, which the limit is enforced against.
import type { Kysely } from 'kysely';
import type { MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  // 4–8 digits, kept readable for the photographer to tell clients (a PIN is not a password).
  await db.schema.alterTable('galleries').addColumn('download_pin', 'text').execute();
  // Photos each client may download here; null: no limit.
  await db.schema.alterTable('galleries').addColumn('download_limit', 'integer').execute();
  // 'web' (the 2048 rendition) or 'original'; null: original (as before).
  await db.schema.alterTable('galleries').addColumn('download_size', 'text').execute();
  // One row per client and gallery: locked (an update) before counting, so simultaneous downloads queue.
  await db.schema
    .createTable('download_tallies')
    .addColumn('gallery_id', 'integer', (c) => c.notNull().references('galleries.id').onDelete('cascade'))
    .addColumn('client_key', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('download_tallies_pk', ['gallery_id', 'client_key'])
    .execute();
  // The distinct photos a client downloaded from a gallery: the same photo again spends nothing.
  await db.schema
    .createTable('download_ledger')
    .addColumn('gallery_id', 'integer', (c) => c.notNull().references('galleries.id').onDelete('cascade'))
    .addColumn('client_key', 'text', (c) => c.notNull())
    .addColumn('media_id', 'integer', (c) => c.notNull().references('medias.id').onDelete('cascade'))
    .addColumn('at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('download_ledger_pk', ['gallery_id', 'client_key', 'media_id'])
    .execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('download_ledger').execute();
  await db.schema.dropTable('download_tallies').execute();
  for (const c of ['download_size', 'download_limit', 'download_pin']) await db.schema.alterTable('galleries').dropColumn(c).execute();
}
