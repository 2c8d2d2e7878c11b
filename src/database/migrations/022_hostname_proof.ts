// A website's host name takes effect only once its photographer proved control of it in DNS (issue
// 29): `hostname` is the name served, a name asked for waits beside it with its proof token, and names
// set before stay in effect. A unique index of lower(hostname) makes an unknown Host one index probe
// and keeps two websites from both taking one name (docs/website.md, "Host names").
import { sql, type Kysely } from 'kysely';
import type { MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.alterTable('websites').addColumn('hostname_pending', 'text').execute();
  await db.schema.alterTable('websites').addColumn('hostname_token', 'text').execute();
  await db.schema.alterTable('websites').addColumn('hostname_checked_at', 'text').execute();
  await db.schema.alterTable('websites').addColumn('hostname_check', 'text').execute();
  await db.schema.createIndex('websites_hostname_lower').unique().on('websites').expression(sql`lower(hostname)`).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropIndex('websites_hostname_lower').execute();
  for (const column of ['hostname_check', 'hostname_checked_at', 'hostname_token', 'hostname_pending']) await db.schema.alterTable('websites').dropColumn(column).execute();
}
