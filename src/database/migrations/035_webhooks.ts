// Signed webhooks (issue 34; docs/integrations.md "Webhooks"): a photographer's endpoints, the
// outbox of events written in the transaction of the change they tell of, one delivery per event
// and endpoint (claimed with a lease, retried with backoff), and each attempt's record.
import { sql, type Kysely } from 'kysely';
import { idColumn, type Dialect, type MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  await idColumn(dialect, db.schema.createTable('webhook_endpoints'))
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    // ',media.ready,order.paid,' or '*': matched with LIKE on both databases.
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    // Sealed with PAYMENT_SECRETS_KEY when set (src/payments/secrets.ts), else 'plain:whsec_…'.
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    // The first failed attempt since the last success: WEBHOOK_DISABLE_AFTER_SECONDS later, it is disabled.
    .addColumn('failing_since', 'text')
    .addColumn('disabled_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_owner').on('webhook_endpoints').columns(['owner_id', 'enabled']).execute();

  await idColumn(dialect, db.schema.createTable('webhook_events'))
    // The message id (webhook-id): the same for every attempt and replay of the event.
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    // The JSON payload as signed: {type, timestamp, data}.
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await idColumn(dialect, db.schema.createTable('webhook_deliveries'))
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('endpoint_id', 'integer', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('event_id', 'integer', (c) => c.notNull().references('webhook_events.id').onDelete('cascade'))
    // pending | delivered | failed
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('last_status', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  // Due deliveries in claim order: only pending ones are in it.
  await sql`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE state = 'pending'`.execute(db);
  await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'id']).execute();

  await idColumn(dialect, db.schema.createTable('webhook_attempts'))
    .addColumn('delivery_id', 'integer', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('response_excerpt', 'text')
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'id']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_events').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
