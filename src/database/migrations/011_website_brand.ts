// A website's brand and pages (an API extension): title, tagline, logo and favicon (medias by id, no
// foreign key: one no longer live is simply not shown), colours, theme, footer, contact and social
// links, and the Markdown pages of its navigation. Every column is nullable or has a default, so older
// websites look as they did (docs/website.md, "Brand and pages (an API extension)").
import type { Kysely } from 'kysely';
import { idColumn, type Dialect, type MigrationDb } from '../migration-helpers.js';

const COLUMNS: Array<[string, 'text' | 'integer', string | undefined]> = [
  ['tagline', 'text', undefined],
  ['logo_media_id', 'integer', undefined],
  ['favicon_media_id', 'integer', undefined],
  ['color_scheme', 'text', 'light'],
  ['accent_color', 'text', undefined],
  ['theme', 'text', 'modern'],
  ['credit', 'text', undefined],
  ['copyright', 'text', undefined],
  ['contact_email', 'text', undefined],
  // A JSON array of https URLs.
  ['social_links', 'text', undefined],
];

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  // One column per statement: SQLite adds one at a time.
  for (const [name, type, fallback] of COLUMNS) {
    await db.schema
      .alterTable('websites')
      .addColumn(name, type, (c) => (fallback === undefined ? c : c.notNull().defaultTo(fallback)))
      .execute();
  }
  // /files asks whether a media is some website's logo or favicon (its renditions are then public).
  await db.schema.createIndex('websites_logo').on('websites').columns(['logo_media_id']).execute();
  await db.schema.createIndex('websites_favicon').on('websites').columns(['favicon_media_id']).execute();
  await idColumn(dialect, db.schema.createTable('website_pages'))
    .addColumn('website_id', 'integer', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    // Markdown as written; rendered (and sanitised) when shown.
    .addColumn('body', 'text', (c) => c.notNull())
    // Place in the navigation; pages with equal positions follow their slugs.
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('website_pages_slug', ['website_id', 'slug'])
    .execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('website_pages').execute();
  await db.schema.dropIndex('websites_favicon').execute();
  await db.schema.dropIndex('websites_logo').execute();
  for (const [name] of [...COLUMNS].reverse()) await db.schema.alterTable('websites').dropColumn(name).execute();
}
