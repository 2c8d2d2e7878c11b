// Lanes and turns of the job queue (docs/batch-updates.md, "Lanes and turns"):
// interactive work (batch updates) is claimed apart from background work
// (renditions), and within a lane jobs are claimed in turn order, a turn
// counted per owner, so one owner's thousands of jobs do not hold back another's.
import { sql, type Kysely } from 'kysely';
import type { MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>): Promise<void> {
  // 0: interactive, 1: background (src/jobs/lanes.ts). Jobs already queued are background but batch updates.
  await db.schema.alterTable('jobs').addColumn('lane', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('jobs').addColumn('turn', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.updateTable('jobs').set({ lane: 0 }).where('kind', '=', 'media_batch_update').execute();
  // Unfinished jobs of a lane in claim order: the claim, the lane's current turn and a job's place in line
  // read this index only; finished jobs (most rows, kept JOB_RETENTION_SECONDS) are not in it.
  await sql`CREATE INDEX jobs_lane_turn ON jobs (lane, turn, id) WHERE state IN ('queued', 'running')`.execute(db);
  // An owner's last turn in a lane.
  await sql`CREATE INDEX jobs_owner_turn ON jobs (owner_id, lane, turn) WHERE state IN ('queued', 'running')`.execute(db);
  // The former claim order (state, id) is no longer read.
  await db.schema.dropIndex('jobs_claim').execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.createIndex('jobs_claim').on('jobs').columns(['state', 'id']).execute();
  await db.schema.dropIndex('jobs_owner_turn').execute();
  await db.schema.dropIndex('jobs_lane_turn').execute();
  await db.schema.alterTable('jobs').dropColumn('turn').execute();
  await db.schema.alterTable('jobs').dropColumn('lane').execute();
}
