// Prints and whole galleries (issue 33; docs/shop.md "Prints", "Whole galleries"): the buyer's
// postal address and the shipping on an order, each photographer's print lab, a gallery's
// whole-sale price, whole-gallery cart lines, and the files a whole gallery's order delivers.
import type { Kysely } from 'kysely';
import { idColumn, type Dialect, type MigrationDb } from '../migration-helpers.js';

const ORDER_COLUMNS = ['ship_name', 'ship_line1', 'ship_line2', 'ship_postcode', 'ship_city', 'ship_country', 'tracking_url', 'shipped_at', 'lab_sent_at'] as const;

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  for (const c of ORDER_COLUMNS) await db.schema.alterTable('orders').addColumn(c, 'text').execute();
  await db.schema.alterTable('order_items').addColumn('gallery_id', 'integer', (c) => c.references('galleries.id').onDelete('set null')).execute();

  await db.schema
    .createTable('print_labs')
    .addColumn('owner_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    // 1: the order sheet is mailed to the lab when an order with prints is paid; 0: on request.
    .addColumn('auto', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('gallery_sales')
    .addColumn('gallery_id', 'integer', (c) => c.primaryKey().references('galleries.id').onDelete('cascade'))
    .addColumn('profile_id', 'integer', (c) => c.notNull().references('pricing_profiles.id').onDelete('cascade'))
    .addColumn('item_label', 'text', (c) => c.notNull())
    .addColumn('price', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await idColumn(dialect, db.schema.createTable('cart_galleries'))
    .addColumn('cart_id', 'integer', (c) => c.notNull().references('carts.id').onDelete('cascade'))
    .addColumn('gallery_id', 'integer', (c) => c.notNull().references('galleries.id').onDelete('cascade'))
    .addUniqueConstraint('cart_galleries_line', ['cart_id', 'gallery_id'])
    .execute();

  await idColumn(dialect, db.schema.createTable('order_files'))
    .addColumn('order_id', 'integer', (c) => c.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('item_id', 'integer', (c) => c.notNull().references('order_items.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('media_uuid', 'text', (c) => c.notNull())
    .addColumn('media_file_name', 'text')
    .addColumn('file_key', 'text', (c) => c.notNull())
    .addColumn('file_type', 'text', (c) => c.notNull())
    .addColumn('file_bytes', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('order_files_position', ['order_id', 'position'])
    .execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  for (const table of ['order_files', 'cart_galleries', 'gallery_sales', 'print_labs']) await db.schema.dropTable(table).execute();
  await db.schema.alterTable('order_items').dropColumn('gallery_id').execute();
  for (const c of ORDER_COLUMNS) await db.schema.alterTable('orders').dropColumn(c).execute();
}
