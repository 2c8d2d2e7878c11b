// Favourites (issue 23; docs/delivery.md): a visitor's picks in a gallery are
// a lightbox of the gallery's photographer, one per client and gallery, which
// the API lists and batch-updates like any other lightbox. A lightbox made by
// the API or the admin command line keeps these columns null (no gallery, no
// client) and is never shown to a visitor.
import type { Kysely } from 'kysely';
import type { Dialect, MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, _dialect: Dialect): Promise<void> {
  // The gallery the selection was made in; a deleted gallery leaves the photographer's lightbox as it is.
  await db.schema.alterTable('lightboxes').addColumn('gallery_id', 'integer', (c) => c.references('galleries.id').onDelete('set null')).execute();
  // Who chose: `client_key` names the client (the proved address, or `guest:<pass id>` for a
  // visitor who only typed one: an address typed without proof must not open the selection of
  // whoever owns it); the e-mail and name are what the photographer is shown.
  await db.schema.alterTable('lightboxes').addColumn('client_key', 'text').execute();
  await db.schema.alterTable('lightboxes').addColumn('client_email', 'text').execute();
  await db.schema.alterTable('lightboxes').addColumn('client_name', 'text').execute();
  await db.schema.alterTable('lightboxes').addColumn('client_verified', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // open: the client may change it; sent: read-only for the client until the photographer reopens it.
  await db.schema.alterTable('lightboxes').addColumn('state', 'text', (c) => c.notNull().defaultTo('open')).execute();
  await db.schema.alterTable('lightboxes').addColumn('sent_at', 'text').execute();
  await db.schema.alterTable('lightboxes').addColumn('updated_at', 'text').execute();
  // One selection per client and gallery (NULLs are distinct: other lightboxes are not concerned);
  // its prefix is the lookup of a visitor's selections on a website's galleries.
  await db.schema.createIndex('lightboxes_client').unique().on('lightboxes').columns(['client_key', 'gallery_id', 'owner_id']).execute();
  // GET /lightboxes.xml pages through a user's lightboxes by id.
  await db.schema.createIndex('lightboxes_owner').on('lightboxes').columns(['owner_id', 'id']).execute();
  await db.schema.createIndex('lightboxes_gallery').on('lightboxes').columns(['gallery_id']).execute();
  // The client's note on a pick (at most 500 characters) and when it was picked.
  await db.schema.alterTable('lightbox_medias').addColumn('note', 'text').execute();
  await db.schema.alterTable('lightbox_medias').addColumn('picked_at', 'text').execute();
  // "Choose up to N": null, no limit of the photographer's (the service's own bound still holds).
  await db.schema.alterTable('galleries').addColumn('pick_limit', 'integer').execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.alterTable('galleries').dropColumn('pick_limit').execute();
  await db.schema.alterTable('lightbox_medias').dropColumn('picked_at').execute();
  await db.schema.alterTable('lightbox_medias').dropColumn('note').execute();
  await db.schema.dropIndex('lightboxes_gallery').execute();
  await db.schema.dropIndex('lightboxes_owner').execute();
  await db.schema.dropIndex('lightboxes_client').execute();
  for (const c of ['updated_at', 'sent_at', 'state', 'client_verified', 'client_name', 'client_email', 'client_key', 'gallery_id']) {
    await db.schema.alterTable('lightboxes').dropColumn(c).execute();
  }
}
