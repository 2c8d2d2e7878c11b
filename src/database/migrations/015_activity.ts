// What clients did in a photographer's galleries (an API extension), the least needed: a known
// client's events are rows, anonymous ones only a per-gallery, per-day counter (a crawler adds at most
// a row per gallery, day and kind); no IP address, user agent or page address. Swept after
// ACTIVITY_RETENTION_DAYS (docs/delivery.md, "What is kept, and what is not").
import type { Kysely } from 'kysely';
import { idColumn, type Dialect, type MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  await idColumn(dialect, db.schema.createTable('activity_events'))
    // The website's owner at the time: a client's events across galleries, and their deletion, by owner.
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('gallery_id', 'integer', (c) => c.notNull().references('galleries.id').onDelete('cascade'))
    // Lower-cased; proven by a sign-in link (verified 1) or only given in a form (0).
    .addColumn('client_email', 'text', (c) => c.notNull())
    .addColumn('client_verified', 'integer', (c) => c.notNull().defaultTo(0))
    // view, download, archive, pick, unpick, sent, invited.
    .addColumn('kind', 'text', (c) => c.notNull())
    // A plain id (no reference): the event outlives the media's deletion.
    .addColumn('media_id', 'integer')
    .addColumn('bytes', 'bigint')
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('activity_events_gallery').on('activity_events').columns(['gallery_id', 'at']).execute();
  await db.schema.createIndex('activity_events_client').on('activity_events').columns(['owner_id', 'client_email', 'at']).execute();
  // The retention sweep deletes by age.
  await db.schema.createIndex('activity_events_at').on('activity_events').columns(['at']).execute();

  await db.schema
    .createTable('activity_daily')
    .addColumn('gallery_id', 'integer', (c) => c.notNull().references('galleries.id').onDelete('cascade'))
    // YYYY-MM-DD, UTC.
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('activity_daily_pk', ['gallery_id', 'day', 'kind'])
    .execute();
  await db.schema.createIndex('activity_daily_day').on('activity_daily').columns(['day']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('activity_daily').execute();
  await db.schema.dropTable('activity_events').execute();
}
