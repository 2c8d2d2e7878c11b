// Orders (issue 33; docs/shop.md "Orders"): a website's shop settings (tax),
// coupons, server-side carts and their lines, orders with the prices copied at
// order time, and the payments and refunds recorded against them. Money is
// integer minor units; totals are bigint (100 lines × 100 × the largest price).
import type { Kysely } from 'kysely';
import { idColumn, type Dialect, type MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('shop_settings')
    .addColumn('website_id', 'integer', (c) => c.primaryKey().references('websites.id').onDelete('cascade'))
    .addColumn('tax_rate_bp', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('tax_included', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('manual_instructions', 'text')
    .execute();

  await idColumn(dialect, db.schema.createTable('coupons'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // NULL: valid on every website of the owner.
    .addColumn('website_id', 'integer', (c) => c.references('websites.id').onDelete('cascade'))
    // Upper-cased: codes are matched whatever their case.
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('value', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text')
    .addColumn('valid_from', 'text')
    .addColumn('valid_until', 'text')
    .addColumn('usage_limit', 'integer')
    .addColumn('times_used', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('coupons_owner_code', ['owner_id', 'code'])
    .execute();

  await idColumn(dialect, db.schema.createTable('carts'))
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('website_id', 'integer', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('coupon_code', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await idColumn(dialect, db.schema.createTable('cart_items'))
    .addColumn('cart_id', 'integer', (c) => c.notNull().references('carts.id').onDelete('cascade'))
    .addColumn('media_id', 'integer', (c) => c.notNull().references('medias.id').onDelete('cascade'))
    .addColumn('profile_id', 'integer', (c) => c.notNull().references('pricing_profiles.id').onDelete('cascade'))
    .addColumn('item_label', 'text', (c) => c.notNull())
    .addColumn('option_label', 'text')
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('cart_items_cart').on('cart_items').columns(['cart_id', 'id']).execute();

  await idColumn(dialect, db.schema.createTable('orders'))
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('website_id', 'integer', (c) => c.references('websites.id').onDelete('set null'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('subtotal', 'bigint', (c) => c.notNull())
    .addColumn('discount', 'bigint', (c) => c.notNull())
    .addColumn('tax', 'bigint', (c) => c.notNull())
    .addColumn('tax_rate_bp', 'integer', (c) => c.notNull())
    .addColumn('tax_included', 'integer', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addColumn('coupon_code', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('paid_at', 'text')
    // The buyer's order page: a random token, and when its links stop working.
    .addColumn('download_token', 'text', (c) => c.unique())
    .addColumn('downloads_expire_at', 'text')
    .addColumn('delivered_at', 'text')
    .execute();
  await db.schema.createIndex('orders_owner').on('orders').columns(['owner_id', 'id']).execute();

  await idColumn(dialect, db.schema.createTable('order_items'))
    .addColumn('order_id', 'integer', (c) => c.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    // Kept when the media goes: the order stays as it was sold.
    .addColumn('media_id', 'integer', (c) => c.references('medias.id').onDelete('set null'))
    .addColumn('media_uuid', 'text', (c) => c.notNull())
    .addColumn('media_file_name', 'text')
    .addColumn('profile_uuid', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('option_label', 'text')
    .addColumn('long_edge', 'integer')
    .addColumn('unit_price', 'integer', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    // Downloads, once made: the private file's key, its type and size.
    .addColumn('file_key', 'text')
    .addColumn('file_type', 'text')
    .addColumn('file_bytes', 'bigint')
    .addUniqueConstraint('order_items_position', ['order_id', 'position'])
    .execute();

  await idColumn(dialect, db.schema.createTable('payments'))
    .addColumn('order_id', 'integer', (c) => c.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    // payment | refund
    .addColumn('kind', 'text', (c) => c.notNull())
    // The provider's identifier (a Checkout Session, a refund); NULL for manual payments.
    .addColumn('reference', 'text')
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('payments_reference', ['provider', 'kind', 'reference'])
    .execute();
  await db.schema.createIndex('payments_order').on('payments').columns(['order_id', 'id']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  for (const table of ['payments', 'order_items', 'orders', 'cart_items', 'carts', 'coupons', 'shop_settings']) await db.schema.dropTable(table).execute();
}
