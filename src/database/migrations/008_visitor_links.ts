// Sign-in links of website visitors (src/site, docs/visitors.md): a link
// proves an e-mail address once. Only the SHA-256 of its token is kept, so a
// copy of the database opens nothing.
import type { Kysely } from 'kysely';
import { idColumn, type Dialect, type MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  await idColumn(dialect, db.schema.createTable('visitor_links'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('website_id', 'integer', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    // Lower-cased.
    .addColumn('email', 'text', (c) => c.notNull())
    // A path under the website's home, checked when the link was made and again when it is used.
    .addColumn('back', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  // The cleanup sweep deletes by expiry.
  await db.schema.createIndex('visitor_links_expires').on('visitor_links').columns(['expires_at']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('visitor_links').execute();
}
