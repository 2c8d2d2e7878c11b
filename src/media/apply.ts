// Applies a validated change set to a set of medias with set-based SQL: a
// fixed number of statements whatever the number of medias, so one media
// (PUT) and a 500-media chunk of a batch update run the same code.
import { sql } from 'kysely';
import type { Db } from '../store/db.js';
import type { Dialect } from '../store/migration-helpers.js';
import { MembershipRepository } from '../galleries/membership-repository.js';
import type { MediaChanges } from './metadata.js';

/** Rows per multi-row INSERT: stays under every database's bound-parameter limit. */
const INSERT_ROWS = 1000;

export interface ApplyResult {
  /** Storage keys of deleted medias, for removing their files after commit. */
  deletedStorageKeys: string[];
  /** Ids that were found (owned by the user) and changed or deleted. */
  affectedIds: number[];
}

const idList = (ids: readonly number[]) => sql.join(ids.map((id) => sql`${id}`));

/**
 * Call inside a transaction. `ids` are medias of `ownerId` (others are skipped).
 * On PostgreSQL the medias, then the galleries and collections they join, are
 * locked in id order: concurrent updates of the same rows wait for each other
 * instead of computing the same "next position". SQLite has one writer anyway.
 */
export async function applyMediaChanges(trx: Db, dialect: Dialect, ownerId: number, ids: readonly number[], ch: MediaChanges, now: string): Promise<ApplyResult> {
  if (ids.length === 0) return { deletedStorageKeys: [], affectedIds: [] };
  const lock = dialect === 'postgres';
  let presentQuery = trx.selectFrom('medias').select(['id', 'storage_key']).where('id', 'in', ids).where('owner_id', '=', ownerId).orderBy('id');
  if (lock) presentQuery = presentQuery.forUpdate();
  const present = await presentQuery.execute();
  const affectedIds = present.map((r) => r.id);
  if (affectedIds.length === 0) return { deletedStorageKeys: [], affectedIds };

  const membership = new MembershipRepository(dialect);
  if (ch.delete) {
    await membership.forgetMedias(trx, affectedIds);
    await trx.deleteFrom('medias').where('id', 'in', affectedIds).execute();
    return { deletedStorageKeys: present.map((r) => r.storage_key).filter((k): k is string => k !== null), affectedIds };
  }

  await trx
    .updateTable('medias')
    .set({ ...ch.columns, updated_at: now })
    .where('id', 'in', affectedIds)
    .execute();
  await applyKeywords(trx, affectedIds, ch);
  // Gallery membership is the galleries feature's (where a media goes in a gallery's order).
  if (ch.galleries) await membership.setGalleries(trx, affectedIds, ch.galleries, now);
  if (ch.publish) await membership.publish(trx, affectedIds, ch.publish, now);
  if (ch.unpublish) await membership.unpublish(trx, affectedIds, ch.unpublish);
  await applyMemberships(trx, lock, GROUP_MEDIAS, affectedIds, ch.collections, ch.addCollections, ch.removeCollections);
  await applyPricing(trx, affectedIds, ch);
  return { deletedStorageKeys: [], affectedIds };
}

async function applyKeywords(trx: Db, ids: number[], ch: MediaChanges): Promise<void> {
  if (ch.keywords) {
    await trx.deleteFrom('media_keywords').where('media_id', 'in', ids).execute();
    const rows = ids.flatMap((media_id) => ch.keywords!.map((keyword, i) => ({ media_id, position: i + 1, keyword })));
    for (let i = 0; i < rows.length; i += INSERT_ROWS) await trx.insertInto('media_keywords').values(rows.slice(i, i + INSERT_ROWS)).execute();
  }
  // One statement per added keyword: appended after the media's last one unless it has it already (any case).
  for (const keyword of ch.addKeywords ?? []) {
    await sql`
      INSERT INTO media_keywords (media_id, position, keyword)
      SELECT m.id, (SELECT COALESCE(MAX(k.position), 0) FROM media_keywords k WHERE k.media_id = m.id) + 1, CAST(${keyword} AS text)
      FROM medias m
      WHERE m.id IN (${idList(ids)})
        AND NOT EXISTS (SELECT 1 FROM media_keywords d WHERE d.media_id = m.id AND LOWER(d.keyword) = LOWER(${keyword}))`.execute(trx);
  }
  if (ch.removeKeywords?.length) {
    await sql`
      DELETE FROM media_keywords
      WHERE media_id IN (${idList(ids)}) AND LOWER(keyword) IN (${sql.join(ch.removeKeywords.map((k) => sql`LOWER(${k})`))})`.execute(trx);
  }
}

interface MembershipTable {
  table: 'media_group_medias';
  target: 'group_id';
  /** The table of the targets, locked before appending to them. */
  targets: 'media_groups';
}
// Collections stay here: the groups feature builds on media, not the other way round.
const GROUP_MEDIAS: MembershipTable = { table: 'media_group_medias', target: 'group_id', targets: 'media_groups' };

/** Replace (exact set), add (appended at the end of each target's order) and remove. */
async function applyMemberships(
  trx: Db,
  lock: boolean,
  t: MembershipTable,
  ids: number[],
  exact: number[] | undefined,
  add: number[] | undefined,
  remove: number[] | undefined,
): Promise<void> {
  const table = sql.table(t.table);
  const target = sql.ref(t.target);
  if (exact) {
    await sql`
      DELETE FROM ${table} WHERE media_id IN (${idList(ids)})
      ${exact.length ? sql`AND ${target} NOT IN (${idList(exact)})` : sql``}`.execute(trx);
  }
  const toAdd = [...new Set([...(exact ?? []), ...(add ?? [])])];
  if (lock && toAdd.length) {
    await sql`SELECT id FROM ${sql.table(t.targets)} WHERE id IN (${idList(toAdd)}) ORDER BY id FOR UPDATE`.execute(trx);
  }
  for (const targetId of toAdd) {
    // Joined to its target: a gallery or collection deleted since the request was validated is skipped.
    await sql`
      INSERT INTO ${table} (${target}, media_id, position)
      SELECT t.id, m.id,
        (SELECT COALESCE(MAX(x.position), 0) FROM ${table} x WHERE x.${target} = ${targetId}) + ROW_NUMBER() OVER (ORDER BY m.id)
      FROM medias m JOIN ${sql.table(t.targets)} t ON t.id = ${targetId}
      WHERE m.id IN (${idList(ids)})
        AND NOT EXISTS (SELECT 1 FROM ${table} y WHERE y.${target} = ${targetId} AND y.media_id = m.id)`.execute(trx);
  }
  if (remove?.length) {
    await sql`DELETE FROM ${table} WHERE media_id IN (${idList(ids)}) AND ${target} IN (${idList(remove)})`.execute(trx);
  }
}

async function applyPricing(trx: Db, ids: number[], ch: MediaChanges): Promise<void> {
  for (const profileId of ch.addPricing ?? []) {
    await sql`
      INSERT INTO media_pricing_profiles (media_id, pricing_profile_id)
      SELECT m.id, p.id FROM medias m JOIN pricing_profiles p ON p.id = ${profileId}
      WHERE m.id IN (${idList(ids)})
        AND NOT EXISTS (SELECT 1 FROM media_pricing_profiles x WHERE x.media_id = m.id AND x.pricing_profile_id = ${profileId})`.execute(trx);
  }
  if (ch.removePricing?.length) {
    await trx.deleteFrom('media_pricing_profiles').where('media_id', 'in', ids).where('pricing_profile_id', 'in', ch.removePricing).execute();
  }
}
