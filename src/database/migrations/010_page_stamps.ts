// Page stamps (issue 22): galleries.order_stamp and media_stamps.stamp, moved by row triggers in the
// writing transaction so that no write path of any feature can forget one. The website's and the
// API's memos keep each order under them, so a page costs its slice and a moved stamp makes the next
// reader rebuild once (docs/architecture.md, "Pages cost their slice", "Stamps, trigger by trigger").
import { sql, type Kysely } from 'kysely';
import type { Dialect, MigrationDb } from '../migration-helpers.js';

const ORDER_FIELDS = ['status', 'renditions_state', 'file_name', 'shot_at', 'created_at', 'updated_at', 'artist_rating', 'uuid'];
const SCOPE_FIELDS = ['status', 'artist_id', 'owner_id'];
const MEMBERSHIPS = [
  { table: 'media_galleries', gallery: true },
  { table: 'media_group_medias', gallery: false },
  { table: 'lightbox_medias', gallery: false },
];

function changed(fields: string[], op: string): string {
  return fields.map((f) => `NEW.${f} ${op} OLD.${f}`).join(' OR ');
}

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('galleries').addColumn('order_stamp', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema
    .createTable('media_stamps')
    .addColumn('owner_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('stamp', 'integer', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO media_stamps (owner_id, stamp) SELECT DISTINCT owner_id, 1 FROM medias`.execute(db);
  const run = (text: string) => sql.raw(text).execute(db);

  if (dialect === 'sqlite') {
    const bump = (owner: string) => `INSERT INTO media_stamps (owner_id, stamp) VALUES (${owner}, 1) ON CONFLICT (owner_id) DO UPDATE SET stamp = stamp + 1;`;
    await run(`CREATE TRIGGER medias_stamp_insert AFTER INSERT ON medias BEGIN ${bump('NEW.owner_id')} END`);
    await run(`CREATE TRIGGER medias_stamp_delete AFTER DELETE ON medias BEGIN ${bump('OLD.owner_id')} END`);
    await run(`CREATE TRIGGER medias_stamp_update AFTER UPDATE ON medias WHEN ${changed(SCOPE_FIELDS, 'IS NOT')} BEGIN ${bump('NEW.owner_id')} ${bump('OLD.owner_id')} END`);
    await run(
      `CREATE TRIGGER medias_order_update AFTER UPDATE ON medias WHEN ${changed(ORDER_FIELDS, 'IS NOT')} BEGIN ` +
        `UPDATE galleries SET order_stamp = order_stamp + 1 WHERE id IN (SELECT gallery_id FROM media_galleries WHERE media_id = NEW.id); END`,
    );
    for (const m of MEMBERSHIPS) {
      for (const [op, row] of [['INSERT', 'NEW'], ['DELETE', 'OLD'], ['UPDATE', 'NEW']] as const) {
        const owner = `UPDATE media_stamps SET stamp = stamp + 1 WHERE owner_id = (SELECT owner_id FROM medias WHERE id = ${row}.media_id);`;
        const gallery = m.gallery ? `UPDATE galleries SET order_stamp = order_stamp + 1 WHERE id = ${row}.gallery_id;` : '';
        const when = op === 'UPDATE' ? ` WHEN ${changed(m.gallery ? ['position', 'published_at', 'media_id', 'gallery_id'] : ['position', 'media_id'], 'IS NOT')}` : '';
        await run(`CREATE TRIGGER ${m.table}_stamp_${op.toLowerCase()} AFTER ${op} ON ${m.table}${when} BEGIN ${owner} ${gallery} END`);
      }
    }
  } else {
    await run(`CREATE FUNCTION mps_owner_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN
          INSERT INTO media_stamps AS s (owner_id, stamp) VALUES (OLD.owner_id, 1) ON CONFLICT (owner_id) DO UPDATE SET stamp = s.stamp + 1;
        END IF;
        IF TG_OP <> 'DELETE' THEN
          INSERT INTO media_stamps AS s (owner_id, stamp) VALUES (NEW.owner_id, 1) ON CONFLICT (owner_id) DO UPDATE SET stamp = s.stamp + 1;
        END IF;
        RETURN NULL;
      END $$`);
    await run(`CREATE TRIGGER medias_stamp_write AFTER INSERT OR DELETE ON medias FOR EACH ROW EXECUTE FUNCTION mps_owner_stamp()`);
    await run(`CREATE TRIGGER medias_stamp_update AFTER UPDATE ON medias FOR EACH ROW WHEN (${changed(SCOPE_FIELDS, 'IS DISTINCT FROM')}) EXECUTE FUNCTION mps_owner_stamp()`);
    await run(`CREATE FUNCTION mps_order_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE galleries SET order_stamp = order_stamp + 1 WHERE id IN (SELECT gallery_id FROM media_galleries WHERE media_id = NEW.id);
        RETURN NULL;
      END $$`);
    await run(`CREATE TRIGGER medias_order_update AFTER UPDATE ON medias FOR EACH ROW WHEN (${changed(ORDER_FIELDS, 'IS DISTINCT FROM')}) EXECUTE FUNCTION mps_order_stamp()`);
    await run(`CREATE FUNCTION mps_membership_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE r record;
      BEGIN
        IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
        UPDATE media_stamps SET stamp = stamp + 1 WHERE owner_id = (SELECT owner_id FROM medias WHERE id = r.media_id);
        IF TG_TABLE_NAME = 'media_galleries' THEN
          UPDATE galleries SET order_stamp = order_stamp + 1 WHERE id = r.gallery_id;
        END IF;
        RETURN NULL;
      END $$`);
    for (const m of MEMBERSHIPS) {
      await run(`CREATE TRIGGER ${m.table}_stamp_write AFTER INSERT OR DELETE ON ${m.table} FOR EACH ROW EXECUTE FUNCTION mps_membership_stamp()`);
      const fields = m.gallery ? ['position', 'published_at', 'media_id', 'gallery_id'] : ['position', 'media_id'];
      await run(`CREATE TRIGGER ${m.table}_stamp_update AFTER UPDATE ON ${m.table} FOR EACH ROW WHEN (${changed(fields, 'IS DISTINCT FROM')}) EXECUTE FUNCTION mps_membership_stamp()`);
    }
  }
  // The memo of a library is built from this range (owner, live, library, id order).
  await db.schema.createIndex('medias_owner_live').on('medias').columns(['owner_id', 'status', 'artist_id', 'id']).execute();
}

export async function down(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  const triggers = ['medias_stamp_insert', 'medias_stamp_delete', 'medias_stamp_update', 'medias_stamp_write', 'medias_order_update'];
  for (const m of MEMBERSHIPS) triggers.push(`${m.table}_stamp_insert`, `${m.table}_stamp_delete`, `${m.table}_stamp_update`, `${m.table}_stamp_write`);
  for (const t of triggers) {
    const on = t.startsWith('medias_') ? 'medias' : MEMBERSHIPS.find((m) => t.startsWith(m.table))!.table;
    await run(dialect === 'sqlite' ? `DROP TRIGGER IF EXISTS ${t}` : `DROP TRIGGER IF EXISTS ${t} ON ${on}`);
  }
  if (dialect === 'postgres') for (const f of ['mps_owner_stamp', 'mps_order_stamp', 'mps_membership_stamp']) await run(`DROP FUNCTION IF EXISTS ${f}()`);
  await db.schema.dropIndex('medias_owner_live').execute();
  await db.schema.dropTable('media_stamps').execute();
  await db.schema.alterTable('galleries').dropColumn('order_stamp').execute();
}
