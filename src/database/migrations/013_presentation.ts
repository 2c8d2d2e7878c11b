// The website's presentation (docs/website.md, docs/display-styles.md; API extensions):
// what a display style chooses besides its layout (cropping in a grid, spacing,
// captions under the photos), and the cover a protected gallery shows to
// visitors who may not open it, which its photographer chose as public.
import type { Kysely } from 'kysely';
import type { Dialect, MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, _dialect: Dialect): Promise<void> {
  // 0: every photo whole (the default); 1: a grid's cells are filled, photos cropped to them.
  await db.schema.alterTable('display_styles').addColumn('crop', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // none, tight, normal, wide.
  await db.schema.alterTable('display_styles').addColumn('spacing', 'text', (c) => c.notNull().defaultTo('normal')).execute();
  await db.schema.alterTable('display_styles').addColumn('captions', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // A plain id, like cover_media_id: cleared when the media is deleted (membership-repository.ts).
  await db.schema.alterTable('galleries').addColumn('public_cover_media_id', 'integer').execute();
  // /files asks whether a media is some gallery's public cover (access.ts).
  await db.schema.createIndex('galleries_public_cover').on('galleries').columns(['public_cover_media_id']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropIndex('galleries_public_cover').execute();
  await db.schema.alterTable('galleries').dropColumn('public_cover_media_id').execute();
  await db.schema.alterTable('display_styles').dropColumn('captions').execute();
  await db.schema.alterTable('display_styles').dropColumn('spacing').execute();
  await db.schema.alterTable('display_styles').dropColumn('crop').execute();
}
