// Guards of photographers' accounts (issue 29): login_origins, the addresses each account signed in
// from (an HMAC, never the address), so that a lockout others cause spares the owner at an address
// they used before; users.mail_stopped_at, set by `admin user mail --off`. docs/security.md,
// "Photographers' accounts".
import type { Kysely } from 'kysely';
import type { MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema
    .createTable('login_origins')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('last_success_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('login_origins_pk', ['user_id', 'origin'])
    .execute();
  await db.schema.alterTable('users').addColumn('mail_stopped_at', 'text').execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('mail_stopped_at').execute();
  await db.schema.dropTable('login_origins').execute();
}
