// The studio's website extras and instance administration (issue 21): websites.indexing,
// users.is_admin and disabled_at, apps.owner_id and revoked_at, and user_invitations (only the SHA-256
// of a token is kept, so a copy of the database opens nothing). docs/studio.md, "Applications (every
// photographer)", "Administration (operators only)"; docs/website.md, "Indexing".
import type { Kysely } from 'kysely';
import { idColumn, type Dialect, type MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('websites').addColumn('indexing', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('users').addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('users').addColumn('disabled_at', 'text').execute();
  await db.schema.alterTable('apps').addColumn('owner_id', 'integer', (c) => c.references('users.id').onDelete('cascade')).execute();
  await db.schema.alterTable('apps').addColumn('revoked_at', 'text').execute();
  await db.schema.createIndex('apps_owner').on('apps').columns(['owner_id']).execute();
  await idColumn(dialect, db.schema.createTable('user_invitations'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('user_invitations_user').on('user_invitations').columns(['user_id']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('user_invitations').execute();
  await db.schema.dropIndex('apps_owner').execute();
  await db.schema.alterTable('apps').dropColumn('revoked_at').execute();
  await db.schema.alterTable('apps').dropColumn('owner_id').execute();
  await db.schema.alterTable('users').dropColumn('disabled_at').execute();
  await db.schema.alterTable('users').dropColumn('is_admin').execute();
  await db.schema.alterTable('websites').dropColumn('indexing').execute();
}
