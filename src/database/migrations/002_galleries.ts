// Gallery access lists, and whether a gallery's url_path follows its name.
import type { Kysely } from 'kysely';
import type { MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  // 1: the url_path was derived from the name and follows it on rename; 0: set by the user.
  await db.schema.alterTable('galleries').addColumn('url_path_auto', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  // Ancestors of a gallery are the galleries whose full url paths prefix its own.
  await db.schema.createIndex('galleries_website_full_path').on('galleries').columns(['website_id', 'full_url_path']).execute();

  // gallery[acl][n][...] of a create: n = 0 is the DEFAULT entry, n >= 1 client entries (the client's own ids).
  await db.schema
    .createTable('gallery_acl')
    .addColumn('gallery_id', 'integer', (c) => c.notNull().references('galleries.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('can_read', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('comp_download', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('hires_download', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('gallery_acl_pk', ['gallery_id', 'position'])
    .execute();
  await db.schema.createIndex('gallery_acl_email').on('gallery_acl').columns(['gallery_id', 'email']).unique().execute();
}

export async function down(): Promise<void> {
  throw new Error('002_galleries cannot be reverted');
}
