// Expired sessions are purged in the background (a periodic task built in src/app.ts):
// the purge finds them by expiry.
import type { Kysely } from 'kysely';
import type { MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.createIndex('sessions_expires').on('sessions').columns(['expires_at']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropIndex('sessions_expires').execute();
}
