// Price lists (issue 33): a pricing profile gets a kind (download | print), an ISO 4217 currency and,
// for prints, a minimum price; its items and the print products' options are rows, in the
// photographer's order. Money is integer minor units; profiles made before become empty download
// lists in EUR (docs/shop.md, "Money and rounding").
import type { Kysely } from 'kysely';
import { idColumn, type Dialect, type MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('pricing_profiles').addColumn('kind', 'text', (c) => c.notNull().defaultTo('download')).execute();
  await db.schema.alterTable('pricing_profiles').addColumn('currency', 'text', (c) => c.notNull().defaultTo('EUR')).execute();
  await db.schema.alterTable('pricing_profiles').addColumn('minimum_price', 'integer').execute();
  await db.schema.alterTable('pricing_profiles').addColumn('updated_at', 'text').execute();
  await db.schema.createIndex('pricing_profiles_owner').on('pricing_profiles').columns(['owner_id', 'id']).execute();

  await idColumn(dialect, db.schema.createTable('pricing_profile_items'))
    .addColumn('profile_id', 'integer', (c) => c.notNull().references('pricing_profiles.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    // Download items: the long edge in pixels, NULL for the original file. Print products: NULL.
    .addColumn('long_edge', 'integer')
    // Download items: the price; print products: the base price.
    .addColumn('price', 'integer', (c) => c.notNull())
    .addUniqueConstraint('pricing_profile_items_position', ['profile_id', 'position'])
    .execute();

  await idColumn(dialect, db.schema.createTable('pricing_profile_options'))
    .addColumn('item_id', 'integer', (c) => c.notNull().references('pricing_profile_items.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    // Exactly one of the two: a fixed price, or a ratio over the product's base price (200 = the base price).
    .addColumn('price', 'integer')
    .addColumn('ratio', 'integer')
    .addUniqueConstraint('pricing_profile_options_position', ['item_id', 'position'])
    .execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('pricing_profile_options').execute();
  await db.schema.dropTable('pricing_profile_items').execute();
  await db.schema.dropIndex('pricing_profiles_owner').execute();
  for (const column of ['updated_at', 'minimum_price', 'currency', 'kind']) await db.schema.alterTable('pricing_profiles').dropColumn(column).execute();
}
