// The jobs runners hold now, per owner and lane (docs/batch-updates.md,
// "Lanes and turns"): the runner kept for newcomers claims only jobs of owners
// with none held, and asks this index, which holds a few rows (one per running
// job) whatever the queue's length.
import { sql, type Kysely } from 'kysely';
import type { MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  await sql`CREATE INDEX jobs_held ON jobs (owner_id, lane) WHERE state IN ('queued', 'running') AND locked_by IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropIndex('jobs_held').execute();
}
