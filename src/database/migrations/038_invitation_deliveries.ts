// What became of each invitation's mail (docs/delivery.md "Delivery state"): queued, sent (the SMTP
// server accepted it), failed (a short code), or not_mailed (no mail server: the studio showed the
// link). One row per invitation; the studio shows each client's latest.
import type { Kysely } from 'kysely';
import { idColumn, type Dialect, type MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  await idColumn(dialect, db.schema.createTable('invitation_deliveries'))
    .addColumn('gallery_id', 'integer', (c) => c.notNull().references('galleries.id').onDelete('cascade'))
    // Lower-cased, as the access list's entry.
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    // A failure's short code (EAUTH, ECONNECTION, 550, ...): never the server's whole answer.
    .addColumn('code', 'text')
    .addColumn('queued_at', 'text', (c) => c.notNull())
    // When it was sent or failed.
    .addColumn('settled_at', 'text')
    .execute();
  await db.schema.createIndex('invitation_deliveries_gallery').on('invitation_deliveries').columns(['gallery_id', 'email', 'id']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('invitation_deliveries').execute();
}
