// A website's host name takes effect only once its photographer proved control of it (issue 29,
// docs/website.md "Host names"): `hostname` keeps the name the website is served at (verified,
// or set by the operator), and a name asked for waits beside it with its proof token until the
// service found the token in the name's DNS. Names set before this migration stay in effect.
// The Host lookups (every page at a website's own name, the TLS `ask`) read `lower(hostname)`;
// a unique index of it makes an unknown name cost one index probe, not a walk over every website,
// and keeps two websites proving one name at once from both taking it (the service already
// refused a name another website has, in any case: no two rows share one).
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
