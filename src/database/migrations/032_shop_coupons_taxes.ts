// Coupons, taxes and terms per website (docs/shop.md "Coupons, taxes and terms"): a coupon gets a
// UUID (the API's address) and an active flag; a website's shop settings a tax label and terms of
// sale; an order the tax label it was sold with, its coupon's id and when its terms were accepted.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.alterTable('coupons').addColumn('uuid', 'text').execute();
  await db.schema.alterTable('coupons').addColumn('active', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('coupons').addColumn('updated_at', 'text').execute();
  const rows = await db.selectFrom('coupons').select('id').execute();
  for (const r of rows) await db.updateTable('coupons').set({ uuid: randomUUID() }).where('id', '=', r.id).execute();
  await db.schema.createIndex('coupons_uuid').on('coupons').column('uuid').unique().execute();
  await db.schema.createIndex('coupons_website').on('coupons').columns(['website_id', 'id']).execute();

  await db.schema.alterTable('shop_settings').addColumn('tax_label', 'text').execute();
  await db.schema.alterTable('shop_settings').addColumn('terms', 'text').execute();

  await db.schema.alterTable('orders').addColumn('tax_label', 'text').execute();
  // No foreign key: a deleted coupon leaves its orders as they were sold.
  await db.schema.alterTable('orders').addColumn('coupon_id', 'integer').execute();
  await db.schema.alterTable('orders').addColumn('terms_accepted_at', 'text').execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  for (const c of ['terms_accepted_at', 'coupon_id', 'tax_label']) await db.schema.alterTable('orders').dropColumn(c).execute();
  for (const c of ['terms', 'tax_label']) await db.schema.alterTable('shop_settings').dropColumn(c).execute();
  await db.schema.dropIndex('coupons_website').execute();
  await db.schema.dropIndex('coupons_uuid').execute();
  for (const c of ['updated_at', 'active', 'uuid']) await db.schema.alterTable('coupons').dropColumn(c).execute();
}
