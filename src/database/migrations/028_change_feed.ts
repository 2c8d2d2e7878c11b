// The change feed (docs/integrations.md, "Change feed"): change_log keeps one row per object of an owner
// (media, gallery, collection, lightbox), its latest action, moved by row triggers in the writing
// transaction so that every write path is recorded. On PostgreSQL each row carries its transaction's
// id, which the reader pages by (src/changes/repository.ts); triggers fire after the stamps' (name order).
import { sql, type Kysely } from 'kysely';
import type { Dialect, MigrationDb } from '../migration-helpers.js';

/** An object's row: what a write of it records, from `row` (NEW or OLD); `o` the owner, `u` the uuid. */
const OBJECTS = [
  { table: 'medias', kind: 'media', src: (row: string) => `SELECT ${row}.owner_id AS o, ${row}.uuid AS u`, owner: 'owner_id' },
  { table: 'media_groups', kind: 'collection', src: (row: string) => `SELECT ${row}.owner_id AS o, ${row}.uuid AS u`, owner: 'owner_id' },
  { table: 'lightboxes', kind: 'lightbox', src: (row: string) => `SELECT ${row}.owner_id AS o, ${row}.uuid AS u`, owner: 'owner_id' },
  // A gallery's owner is its website's; a gallery cascaded with its website is recorded by websites' trigger.
  { table: 'galleries', kind: 'gallery', src: (row: string) => `SELECT w.owner_id AS o, ${row}.uuid AS u FROM websites w WHERE w.id = ${row}.website_id`, owner: 'website_id' },
] as const;

/** A membership's row: the object it belongs to is updated (while that object still exists). */
const MEMBERS = [
  { table: 'media_galleries', kind: 'media', parent: 'medias', col: 'media_id' },
  { table: 'media_keywords', kind: 'media', parent: 'medias', col: 'media_id' },
  { table: 'media_group_medias', kind: 'collection', parent: 'media_groups', col: 'group_id' },
  { table: 'lightbox_medias', kind: 'lightbox', parent: 'lightboxes', col: 'lightbox_id' },
] as const;

const memberSrc = (m: (typeof MEMBERS)[number], row: string) => `SELECT p.owner_id AS o, p.uuid AS u FROM ${m.parent} p WHERE p.id = ${row}.${m.col}`;

/** Galleries' order_stamp moves by triggers of its own (010): that alone is no change of the gallery. */
const GALLERY_CHANGED = { sqlite: 'NEW.order_stamp IS OLD.order_stamp', postgres: 'NEW.order_stamp IS NOT DISTINCT FROM OLD.order_stamp' };

/** Records `action` for the objects `src` names; an owner being deleted (cascades) records nothing. */
function record(dialect: Dialect, src: string, kind: string, action: string): string {
  const now = dialect === 'sqlite' ? `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')` : `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const insert =
    `INSERT INTO change_log (owner_id, kind, uuid, action, at) SELECT s.o, '${kind}', s.u, '${action}', ${now} FROM (${src}) s ` +
    `WHERE s.o IS NOT NULL AND EXISTS (SELECT 1 FROM users WHERE users.id = s.o)`;
  // SQLite has one writer: delete, then insert. PostgreSQL: one upsert, which waits for a concurrent writer of the same object.
  if (dialect === 'sqlite') return `DELETE FROM change_log WHERE (owner_id, kind, uuid) IN (SELECT s.o, '${kind}', s.u FROM (${src}) s); ${insert};`;
  return `${insert} ON CONFLICT (owner_id, kind, uuid) DO UPDATE SET seq = EXCLUDED.seq, action = EXCLUDED.action, at = EXCLUDED.at, xid = EXCLUDED.xid;`;
}

/** The statements of an object's update: another owner (or uuid) is a deletion there and a creation here. */
function objectUpdate(dialect: Dialect, o: (typeof OBJECTS)[number], moved: boolean): string {
  return moved ? record(dialect, o.src('OLD'), o.kind, 'deleted') + ' ' + record(dialect, o.src('NEW'), o.kind, 'created') : record(dialect, o.src('NEW'), o.kind, 'updated');
}

const movedOf = (o: (typeof OBJECTS)[number], op: string) => `NEW.${o.owner} ${op} OLD.${o.owner} OR NEW.uuid ${op} OLD.uuid`;

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  if (dialect === 'sqlite') {
    await run(`CREATE TABLE change_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, owner_id INTEGER NOT NULL, kind TEXT NOT NULL, uuid TEXT NOT NULL, action TEXT NOT NULL, at TEXT NOT NULL, xid INTEGER NOT NULL DEFAULT 0)`);
  } else {
    await run(
      `CREATE TABLE change_log (seq bigserial PRIMARY KEY, owner_id integer NOT NULL, kind text NOT NULL, uuid text NOT NULL, action text NOT NULL, at text NOT NULL, xid xid8 NOT NULL DEFAULT pg_current_xact_id())`,
    );
  }
  await run(`CREATE UNIQUE INDEX change_log_object ON change_log (owner_id, kind, uuid)`);
  // The feed's keyset: a page is an index range from the cursor, whatever the log's size.
  await run(`CREATE INDEX change_log_feed ON change_log (owner_id, xid, seq)`);
  // What exists now is the log's start: every object, as created.
  await run(`INSERT INTO change_log (owner_id, kind, uuid, action, at) SELECT owner_id, 'media', uuid, 'created', created_at FROM medias`);
  await run(`INSERT INTO change_log (owner_id, kind, uuid, action, at) SELECT owner_id, 'collection', uuid, 'created', created_at FROM media_groups`);
  await run(`INSERT INTO change_log (owner_id, kind, uuid, action, at) SELECT owner_id, 'lightbox', uuid, 'created', created_at FROM lightboxes`);
  await run(`INSERT INTO change_log (owner_id, kind, uuid, action, at) SELECT w.owner_id, 'gallery', g.uuid, 'created', g.created_at FROM galleries g JOIN websites w ON w.id = g.website_id`);
  if (dialect === 'sqlite') await sqliteTriggers(run);
  else await postgresTriggers(run);
  // Statistics from the start: without them PostgreSQL's planner scanned and sorted the whole log for a page.
  await run(`ANALYZE change_log`);
}

async function sqliteTriggers(run: (text: string) => Promise<unknown>): Promise<void> {
  for (const o of OBJECTS) {
    const only = o.table === 'galleries' ? ` AND ${GALLERY_CHANGED.sqlite}` : '';
    await run(`CREATE TRIGGER ${o.table}_tail_change_insert AFTER INSERT ON ${o.table} BEGIN ${record('sqlite', o.src('NEW'), o.kind, 'created')} END`);
    await run(`CREATE TRIGGER ${o.table}_tail_change_delete AFTER DELETE ON ${o.table} BEGIN ${record('sqlite', o.src('OLD'), o.kind, 'deleted')} END`);
    await run(`CREATE TRIGGER ${o.table}_tail_change_update AFTER UPDATE ON ${o.table} WHEN NOT (${movedOf(o, 'IS NOT')})${only} BEGIN ${objectUpdate('sqlite', o, false)} END`);
    await run(`CREATE TRIGGER ${o.table}_tail_change_move AFTER UPDATE ON ${o.table} WHEN (${movedOf(o, 'IS NOT')}) BEGIN ${objectUpdate('sqlite', o, true)} END`);
  }
  for (const m of MEMBERS) {
    await run(`CREATE TRIGGER ${m.table}_tail_change_insert AFTER INSERT ON ${m.table} BEGIN ${record('sqlite', memberSrc(m, 'NEW'), m.kind, 'updated')} END`);
    await run(`CREATE TRIGGER ${m.table}_tail_change_delete AFTER DELETE ON ${m.table} BEGIN ${record('sqlite', memberSrc(m, 'OLD'), m.kind, 'updated')} END`);
    await run(
      `CREATE TRIGGER ${m.table}_tail_change_update AFTER UPDATE ON ${m.table} BEGIN ${record('sqlite', memberSrc(m, 'OLD'), m.kind, 'updated')} ${record('sqlite', memberSrc(m, 'NEW'), m.kind, 'updated')} END`,
    );
  }
  const gone = `SELECT OLD.owner_id AS o, uuid AS u FROM galleries WHERE website_id = OLD.id`;
  await run(`CREATE TRIGGER websites_tail_change_delete BEFORE DELETE ON websites BEGIN ${record('sqlite', gone, 'gallery', 'deleted')} END`);
}

async function postgresTriggers(run: (text: string) => Promise<unknown>): Promise<void> {
  for (const o of OBJECTS) {
    const only = o.table === 'galleries' ? `IF ${GALLERY_CHANGED.postgres} THEN ${objectUpdate('postgres', o, false)} END IF;` : objectUpdate('postgres', o, false);
    await run(`CREATE FUNCTION mps_change_${o.table}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN ${record('postgres', o.src('NEW'), o.kind, 'created')}
        ELSIF TG_OP = 'DELETE' THEN ${record('postgres', o.src('OLD'), o.kind, 'deleted')}
        ELSIF ${movedOf(o, 'IS DISTINCT FROM')} THEN ${objectUpdate('postgres', o, true)}
        ELSE ${only}
        END IF;
        RETURN NULL;
      END $$`);
    await run(`CREATE TRIGGER ${o.table}_tail_change AFTER INSERT OR UPDATE OR DELETE ON ${o.table} FOR EACH ROW EXECUTE FUNCTION mps_change_${o.table}()`);
  }
  for (const m of MEMBERS) {
    await run(`CREATE FUNCTION mps_change_${m.table}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN ${record('postgres', memberSrc(m, 'OLD'), m.kind, 'updated')} END IF;
        IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.${m.col} IS DISTINCT FROM OLD.${m.col}) THEN ${record('postgres', memberSrc(m, 'NEW'), m.kind, 'updated')} END IF;
        RETURN NULL;
      END $$`);
    await run(`CREATE TRIGGER ${m.table}_tail_change AFTER INSERT OR UPDATE OR DELETE ON ${m.table} FOR EACH ROW EXECUTE FUNCTION mps_change_${m.table}()`);
  }
  const gone = `SELECT OLD.owner_id AS o, uuid AS u FROM galleries WHERE website_id = OLD.id`;
  await run(`CREATE FUNCTION mps_change_websites() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN ${record('postgres', gone, 'gallery', 'deleted')} RETURN OLD; END $$`);
  await run(`CREATE TRIGGER websites_tail_change BEFORE DELETE ON websites FOR EACH ROW EXECUTE FUNCTION mps_change_websites()`);
}

export async function down(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  const tables = [...OBJECTS.map((o) => o.table), ...MEMBERS.map((m) => m.table), 'websites'];
  for (const t of tables) {
    if (dialect === 'sqlite') {
      for (const s of ['insert', 'delete', 'update', 'move']) await run(`DROP TRIGGER IF EXISTS ${t}_tail_change_${s}`);
    } else {
      await run(`DROP TRIGGER IF EXISTS ${t}_tail_change ON ${t}`);
      await run(`DROP FUNCTION IF EXISTS mps_change_${t}()`);
    }
  }
  await run(`DROP TABLE change_log`);
}
