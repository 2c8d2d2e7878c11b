// Media groups (collections and smart collections) and the job queue that runs
// batch updates in the background (docs/media-groups.md, docs/batch-updates.md).
import type { Kysely } from 'kysely';
import { idColumn, type Dialect, type MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  // kind: 'collection' (explicit members) or 'smart' (rules evaluated at read time).
  await idColumn(dialect, db.schema.createTable('media_groups'))
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('artist_id', 'integer', (c) => c.references('artists.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('rules', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('media_groups_owner').on('media_groups').columns(['owner_id', 'id']).execute();

  // Members of a collection; position is the order in which they were added.
  await db.schema
    .createTable('media_group_medias')
    .addColumn('group_id', 'integer', (c) => c.notNull().references('media_groups.id').onDelete('cascade'))
    .addColumn('media_id', 'integer', (c) => c.notNull().references('medias.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('media_group_medias_pk', ['group_id', 'media_id'])
    .execute();
  await db.schema.createIndex('media_group_medias_media').on('media_group_medias').columns(['media_id', 'group_id']).execute();
  await db.schema.createIndex('media_group_medias_order').on('media_group_medias').columns(['group_id', 'position']).execute();

  // A generic persistent job queue. cursor = how many items of the payload are
  // done; it moves in the same transaction as the work of each chunk.
  await idColumn(dialect, db.schema.createTable('jobs'))
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('cursor', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('processed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('errors', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // Claiming scans unfinished jobs in creation order.
  await db.schema.createIndex('jobs_claim').on('jobs').columns(['state', 'id']).execute();
  await db.schema.createIndex('jobs_owner').on('jobs').columns(['owner_id', 'id']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('jobs').execute();
  await db.schema.dropTable('media_group_medias').execute();
  await db.schema.dropTable('media_groups').execute();
}
