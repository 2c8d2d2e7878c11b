// A website's home page (issue 30 item 6, an API extension: docs/website.md "Home page"): the hero's
// photos in order, how they fill the screen and the words over them, and the galleries featured in
// order. Medias and galleries by id without a foreign key to them, as the logo's: one no longer live
// or visible is simply not shown; the website's rows go with it.
import type { Kysely } from 'kysely';
import type { MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  // One column per statement: SQLite adds one at a time.
  await db.schema.alterTable('websites').addColumn('hero_fit', 'text', (c) => c.notNull().defaultTo('fill')).execute();
  await db.schema.alterTable('websites').addColumn('hero_headline', 'text').execute();
  await db.schema.alterTable('websites').addColumn('hero_tagline', 'text').execute();
  await db.schema
    .createTable('website_hero')
    .addColumn('website_id', 'integer', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('media_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('website_hero_pk', ['website_id', 'position'])
    .execute();
  // /files asks whether a media is some website's hero photo (its renditions are then public).
  await db.schema.createIndex('website_hero_media').on('website_hero').columns(['media_id']).execute();
  await db.schema
    .createTable('website_featured')
    .addColumn('website_id', 'integer', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('gallery_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('website_featured_pk', ['website_id', 'position'])
    .execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('website_featured').execute();
  await db.schema.dropIndex('website_hero_media').execute();
  await db.schema.dropTable('website_hero').execute();
  for (const name of ['hero_tagline', 'hero_headline', 'hero_fit']) await db.schema.alterTable('websites').dropColumn(name).execute();
}
