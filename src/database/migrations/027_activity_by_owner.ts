// The studio's analytics read an owner's events of the last weeks (docs/studio.md, "Analytics"):
// an index by owner and time, so that the read costs the weeks shown, not the whole retention.
import type { Kysely } from 'kysely';
import type { MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.createIndex('activity_events_owner_at').on('activity_events').columns(['owner_id', 'at']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropIndex('activity_events_owner_at').execute();
}
