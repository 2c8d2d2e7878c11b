// Share links to a lightbox (docs/integrations.md "Share links"): a link's target is a gallery or
// a lightbox (exactly one), a lightbox's link is shown on one website of its owner (`website_id`),
// and a link counts its downloads (a lightbox has no gallery activity to record them in).
import { sql, type Kysely } from 'kysely';
import { idColumn, type Dialect, type MigrationDb } from '../migration-helpers.js';

const COLUMNS = 'id, uuid, owner_id, gallery_id, token_hash, recipient, expires_at, max_views, views, password_hash, download, created_at, revoked_at';

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') {
    await sql`alter table share_links alter column gallery_id drop not null`.execute(db);
    await db.schema
      .alterTable('share_links')
      .addColumn('lightbox_id', 'integer', (c) => c.references('lightboxes.id').onDelete('cascade'))
      .execute();
    await db.schema
      .alterTable('share_links')
      .addColumn('website_id', 'integer', (c) => c.references('websites.id').onDelete('cascade'))
      .execute();
    await db.schema.alterTable('share_links').addColumn('downloads', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await sql`alter table share_links add constraint share_links_one_target check ((gallery_id is null) <> (lightbox_id is null))`.execute(db);
  } else {
    // SQLite cannot drop a NOT NULL: the table is made again with its rows.
    await idColumn(dialect, db.schema.createTable('share_links_next'))
      .addColumn('uuid', 'text', (c) => c.notNull().unique())
      .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('gallery_id', 'integer', (c) => c.references('galleries.id').onDelete('cascade'))
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('recipient', 'text')
      .addColumn('expires_at', 'text')
      .addColumn('max_views', 'integer')
      .addColumn('views', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('password_hash', 'text')
      .addColumn('download', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('revoked_at', 'text')
      .addColumn('lightbox_id', 'integer', (c) => c.references('lightboxes.id').onDelete('cascade'))
      .addColumn('website_id', 'integer', (c) => c.references('websites.id').onDelete('cascade'))
      .addColumn('downloads', 'integer', (c) => c.notNull().defaultTo(0))
      .addCheckConstraint('share_links_one_target', sql`(gallery_id is null) <> (lightbox_id is null)`)
      .execute();
    await sql.raw(`insert into share_links_next (${COLUMNS}) select ${COLUMNS} from share_links`).execute(db);
    await db.schema.dropTable('share_links').execute();
    await sql`alter table share_links_next rename to share_links`.execute(db);
    await db.schema.createIndex('share_links_gallery').on('share_links').columns(['gallery_id', 'id']).execute();
  }
  await db.schema.createIndex('share_links_lightbox').on('share_links').columns(['lightbox_id', 'id']).execute();
}

export async function down(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  await db.deleteFrom('share_links').where('lightbox_id', 'is not', null).execute();
  await db.schema.dropIndex('share_links_lightbox').execute();
  if (dialect === 'postgres') {
    await sql`alter table share_links drop constraint share_links_one_target`.execute(db);
    for (const c of ['lightbox_id', 'website_id', 'downloads']) await db.schema.alterTable('share_links').dropColumn(c).execute();
    await sql`alter table share_links alter column gallery_id set not null`.execute(db);
  }
  // SQLite keeps the wider table: dropping the new columns would need the same rebuild for no gain.
}
