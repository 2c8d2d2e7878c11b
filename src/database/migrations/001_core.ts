// Core schema: accounts, applications, sessions, websites, libraries and the
// tables every feature reads (galleries, medias and what links them).
// Timestamps are ISO 8601 UTC text and booleans 0/1 integers on both databases,
// so the same queries run unchanged on SQLite and PostgreSQL.
import { type Kysely, sql } from 'kysely';
import { idColumn, type Dialect, type MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  await accounts(db, dialect);
  await library(db, dialect);
}

/** Accounts, applications, sessions, websites, libraries, display styles, watermarks, price lists, lightboxes. */
async function accounts(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  await idColumn(dialect, db.schema.createTable('users'))
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('last_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('otp_secret', 'text')
    .addColumn('otp_last_step', 'bigint')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await idColumn(dialect, db.schema.createTable('apps'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('api_key', 'text', (c) => c.notNull().unique())
    .addColumn('api_secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  // The cookie carries a random token; only its SHA-256 is stored.
  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

  await idColumn(dialect, db.schema.createTable('websites'))
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('urlname', 'text', (c) => c.notNull().unique())
    .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('hostname', 'text')
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('websites_owner').on('websites').columns(['owner_id', 'id']).execute();

  // Users given access to a website they do not own.
  await db.schema
    .createTable('website_members')
    .addColumn('website_id', 'integer', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('website_members_pk', ['website_id', 'user_id'])
    .execute();
  await db.schema.createIndex('website_members_user').on('website_members').columns(['user_id', 'website_id']).execute();

  // Media libraries ("artists" in paths).
  await idColumn(dialect, db.schema.createTable('artists'))
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('artists_owner').on('artists').columns(['owner_id', 'id']).execute();

  await idColumn(dialect, db.schema.createTable('display_styles'))
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('website_id', 'integer', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('layout', 'text', (c) => c.notNull().defaultTo('grid'))
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('display_styles_website').on('display_styles').columns(['website_id', 'id']).execute();

  await idColumn(dialect, db.schema.createTable('watermarks'))
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('artist_id', 'integer', (c) => c.notNull().references('artists.id').onDelete('cascade'))
    .addColumn('text', 'text')
    .addColumn('file_name', 'text')
    .addColumn('storage_key', 'text')
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('strength', 'integer', (c) => c.notNull().defaultTo(50))
    .addColumn('position', 'text', (c) => c.notNull().defaultTo('center'))
    .addColumn('tile', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('watermarks_artist').on('watermarks').columns(['artist_id', 'id']).execute();

  await idColumn(dialect, db.schema.createTable('pricing_profiles'))
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await idColumn(dialect, db.schema.createTable('lightboxes'))
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

/** Galleries, medias, and what links them (keywords, galleries, lightboxes, price lists). */
async function library(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  // The gallery tree. list_pos is a dense 1..n position within the website so
  // that page N of the list is an index range, not an OFFSET scan.
  await idColumn(dialect, db.schema.createTable('galleries'))
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('website_id', 'integer', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('parent_id', 'integer', (c) => c.references('galleries.id'))
    .addColumn('list_pos', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url_path', 'text', (c) => c.notNull())
    .addColumn('full_url_path', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('hidden', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('indexing', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('password_hash', 'text')
    .addColumn('content_order', 'text', (c) => c.notNull().defaultTo('manual-last'))
    .addColumn('content_order_direction', 'text', (c) => c.notNull().defaultTo('asc'))
    .addColumn('order_subgalleries', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('display_style_id', 'integer', (c) => c.references('display_styles.id'))
    .addColumn('cover_media_id', 'integer')
    .addColumn('subgalleries_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('published_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('galleries_website_pos').on('galleries').columns(['website_id', 'list_pos']).unique().execute();
  await db.schema.createIndex('galleries_parent_path').on('galleries').columns(['parent_id', 'url_path']).unique().execute();
  await db.schema.createIndex('galleries_parent_name').on('galleries').columns(['parent_id', 'name']).execute();

  await idColumn(dialect, db.schema.createTable('medias'))
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('artist_id', 'integer', (c) => c.notNull().references('artists.id'))
    // pending: created by upload step 1, not yet live; live: file verified.
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('file_size', 'bigint')
    .addColumn('mime_type', 'text')
    .addColumn('storage_key', 'text')
    .addColumn('title', 'text')
    .addColumn('description', 'text')
    .addColumn('location', 'text')
    .addColumn('city', 'text')
    .addColumn('state', 'text')
    .addColumn('country', 'text')
    .addColumn('region', 'text')
    .addColumn('author', 'text')
    .addColumn('copyright', 'text')
    .addColumn('model_release', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('property_release', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('artist_rating', 'integer')
    .addColumn('shot_at', 'text')
    .addColumn('watermark_id', 'integer')
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('medias_owner').on('medias').columns(['owner_id', 'id']).execute();
  await db.schema.createIndex('medias_artist').on('medias').columns(['artist_id', 'id']).execute();
  await db.schema.createIndex('medias_artist_file').on('medias').columns(['artist_id', 'file_name']).execute();

  await db.schema
    .createTable('media_keywords')
    .addColumn('media_id', 'integer', (c) => c.notNull().references('medias.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('keyword', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('media_keywords_pk', ['media_id', 'position'])
    .execute();
  await db.schema.createIndex('media_keywords_keyword').on('media_keywords').columns(['keyword', 'media_id']).execute();

  // Publication of a media in a gallery; position is the manual order.
  await db.schema
    .createTable('media_galleries')
    .addColumn('gallery_id', 'integer', (c) => c.notNull().references('galleries.id').onDelete('cascade'))
    .addColumn('media_id', 'integer', (c) => c.notNull().references('medias.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('published_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('media_galleries_pk', ['gallery_id', 'media_id'])
    .execute();
  await db.schema.createIndex('media_galleries_media').on('media_galleries').columns(['media_id', 'gallery_id']).execute();
  await db.schema.createIndex('media_galleries_order').on('media_galleries').columns(['gallery_id', 'position']).execute();

  await db.schema
    .createTable('lightbox_medias')
    .addColumn('lightbox_id', 'integer', (c) => c.notNull().references('lightboxes.id').onDelete('cascade'))
    .addColumn('media_id', 'integer', (c) => c.notNull().references('medias.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('lightbox_medias_pk', ['lightbox_id', 'media_id'])
    .execute();
  await db.schema.createIndex('lightbox_medias_media').on('lightbox_medias').columns(['media_id']).execute();

  await db.schema
    .createTable('media_pricing_profiles')
    .addColumn('media_id', 'integer', (c) => c.notNull().references('medias.id').onDelete('cascade'))
    .addColumn('pricing_profile_id', 'integer', (c) => c.notNull().references('pricing_profiles.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('media_pricing_profiles_pk', ['media_id', 'pricing_profile_id'])
    .execute();

  await sql`SELECT 1`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('001_core cannot be reverted');
}
