// media_stamps.rule_stamp (issue 22, docs/media-groups.md): moves with every write that can change
// a smart rule's answer and that `stamp` (010) does not follow, so a smart collection's ids are kept
// under both while plain lists keep `stamp` alone. On `stamp`'s row, whose lock a writer already
// holds: no new lock order (docs/architecture.md, "Pages cost their slice", "Stamps, trigger by trigger").
import { sql, type Kysely } from 'kysely';
import type { Dialect, MigrationDb } from '../migration-helpers.js';

/** The medias columns a smart rule reads that the owner's stamp does not follow (src/groups/smart-repository.ts). */
const RULE_FIELDS = ['title', 'artist_rating', 'shot_at', 'file_name', 'mime_type'];

function changed(fields: string[], op: string): string {
  return fields.map((f) => `NEW.${f} ${op} OLD.${f}`).join(' OR ');
}

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('media_stamps').addColumn('rule_stamp', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  const run = (text: string) => sql.raw(text).execute(db);

  if (dialect === 'sqlite') {
    const bump = (owner: string) => `INSERT INTO media_stamps (owner_id, stamp, rule_stamp) VALUES (${owner}, 1, 1) ON CONFLICT (owner_id) DO UPDATE SET rule_stamp = rule_stamp + 1;`;
    await run(`CREATE TRIGGER medias_rule_stamp_update AFTER UPDATE ON medias WHEN ${changed(RULE_FIELDS, 'IS NOT')} BEGIN ${bump('NEW.owner_id')} END`);
    const ownersOf = (row: string) => `UPDATE media_stamps SET rule_stamp = rule_stamp + 1 WHERE owner_id = (SELECT owner_id FROM medias WHERE id = ${row}.media_id);`;
    await run(`CREATE TRIGGER media_keywords_rule_stamp_insert AFTER INSERT ON media_keywords BEGIN ${ownersOf('NEW')} END`);
    await run(`CREATE TRIGGER media_keywords_rule_stamp_delete AFTER DELETE ON media_keywords BEGIN ${ownersOf('OLD')} END`);
    await run(
      `CREATE TRIGGER media_keywords_rule_stamp_update AFTER UPDATE ON media_keywords WHEN ${changed(['keyword', 'media_id'], 'IS NOT')} BEGIN ${ownersOf('NEW')} ${ownersOf('OLD')} END`,
    );
  } else {
    await run(`CREATE FUNCTION mps_rule_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO media_stamps AS s (owner_id, stamp, rule_stamp) VALUES (NEW.owner_id, 1, 1) ON CONFLICT (owner_id) DO UPDATE SET rule_stamp = s.rule_stamp + 1;
        RETURN NULL;
      END $$`);
    await run(`CREATE TRIGGER medias_rule_stamp_update AFTER UPDATE ON medias FOR EACH ROW WHEN (${changed(RULE_FIELDS, 'IS DISTINCT FROM')}) EXECUTE FUNCTION mps_rule_stamp()`);
    await run(`CREATE FUNCTION mps_keyword_rule_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN
          UPDATE media_stamps SET rule_stamp = rule_stamp + 1 WHERE owner_id = (SELECT owner_id FROM medias WHERE id = OLD.media_id);
        END IF;
        IF TG_OP <> 'DELETE' THEN
          UPDATE media_stamps SET rule_stamp = rule_stamp + 1 WHERE owner_id = (SELECT owner_id FROM medias WHERE id = NEW.media_id);
        END IF;
        RETURN NULL;
      END $$`);
    await run(`CREATE TRIGGER media_keywords_rule_stamp_write AFTER INSERT OR DELETE ON media_keywords FOR EACH ROW EXECUTE FUNCTION mps_keyword_rule_stamp()`);
    await run(
      `CREATE TRIGGER media_keywords_rule_stamp_update AFTER UPDATE ON media_keywords FOR EACH ROW WHEN (${changed(['keyword', 'media_id'], 'IS DISTINCT FROM')}) EXECUTE FUNCTION mps_keyword_rule_stamp()`,
    );
  }
}

export async function down(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  const triggers: Array<[string, string]> = [
    ['medias_rule_stamp_update', 'medias'],
    ['media_keywords_rule_stamp_insert', 'media_keywords'],
    ['media_keywords_rule_stamp_delete', 'media_keywords'],
    ['media_keywords_rule_stamp_update', 'media_keywords'],
    ['media_keywords_rule_stamp_write', 'media_keywords'],
  ];
  for (const [t, on] of triggers) await run(dialect === 'sqlite' ? `DROP TRIGGER IF EXISTS ${t}` : `DROP TRIGGER IF EXISTS ${t} ON ${on}`);
  if (dialect === 'postgres') for (const f of ['mps_rule_stamp', 'mps_keyword_rule_stamp']) await run(`DROP FUNCTION IF EXISTS ${f}()`);
  await db.schema.alterTable('media_stamps').dropColumn('rule_stamp').execute();
}
