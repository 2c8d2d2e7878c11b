// All SQL of medias: records and relations, which medias a listing, batch or group is about (a smart
// collection's rules come compiled by the groups feature), change sets, and the statements of a
// file's life, which file-life.ts runs in its units. Gallery membership is the galleries feature's, in
// the same transactions (docs/architecture.md, "Contracts between features", "A file's life").
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { MembershipRepository } from '../galleries/membership-repository.js';
import { nowIso, type Db } from '../database/db.js';
import { inUnit, type Unit } from '../database/unit-of-work.js';
import type { Dialect } from '../database/migration-helpers.js';
import type { MediaRow } from '../database/schema.js';
import type { MediaFacts } from '../uploads/media-facts.js';
import { clientBits, fromFile } from './file-fields.js';
import type { MediaChanges } from './metadata.js';

/** A media row with the UUIDs of the rows it points at. */
export interface MediaRecord extends MediaRow {
  artist_uuid: string;
  watermark_uuid: string | null;
}

export interface MediaRelations {
  keywords: string[];
  galleries: string[];
  collections: string[];
  pricingProfiles: string[];
}

export const NO_RELATIONS: MediaRelations = { keywords: [], galleries: [], collections: [], pricingProfiles: [] };

/**
 * A media group as a scope of medias, as the groups feature gives it: a
 * collection by its id, a smart collection by its rules compiled to one
 * condition on the medias table aliased `m` (src/groups/smart-repository.ts).
 */
export type GroupScope =
  | { id: number; kind: 'collection'; artistId: number | null }
  | {
      id: number;
      kind: 'smart';
      artistId: number | null;
      condition: RawBuilder<SqlBool>;
      /** The stored rule set as text, read by nobody here: it keys the memo of the group's ids, so a changed set never serves the old ones. */
      rulesText: string;
    };

/** Which of a user's live medias: narrowed by library, gallery, lightbox or group. */
export interface MediaScope {
  artistId?: number;
  galleryId?: number;
  lightboxId?: number;
  group?: GroupScope;
}

/** A verified file a media goes live with (the uploads feature's VerifiedFile). */
export interface LiveFile {
  storageKey: string;
  size: number;
  mimeType: string;
  fileName: string;
  facts: MediaFacts;
  /** The file's content probe (src/uploads/probe.ts), when the upload path computed it. */
  contentProbe?: string;
}

export interface NewMedia {
  ownerId: number;
  artistId: number;
  uuid: string;
  fileName: string;
}

/** Rows per multi-row INSERT: stays under every database's bound-parameter limit. */
const INSERT_ROWS = 1000;

const idList = (ids: readonly number[]) => sql.join(ids.map((id) => sql`${id}`));

export class MediaRepository {
  private readonly membership: MembershipRepository;

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {
    this.membership = new MembershipRepository(dialect);
  }

  private inTransaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  byId(id: number, tx: Db = this.db): Promise<MediaRow | undefined> {
    return tx.selectFrom('medias').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The latest media of the library with this file name: the one media[replace] replaces. */
  latestByFileName(ownerId: number, artistId: number, fileName: string): Promise<MediaRow | undefined> {
    return this.db
      .selectFrom('medias')
      .selectAll()
      .where('owner_id', '=', ownerId)
      .where('artist_id', '=', artistId)
      .where('file_name', '=', fileName)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** The owner's live medias whose content probe is one of `probes` (at most a few hundred per call). */
  byProbes(ownerId: number, probes: readonly string[]): Promise<Array<{ uuid: string; content_probe: string | null; file_size: number | null; storage_key: string | null }>> {
    if (probes.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('medias')
      .select(['uuid', 'content_probe', 'file_size', 'storage_key'])
      .where('owner_id', '=', ownerId)
      .where('status', '=', 'live')
      .where('content_probe', 'in', probes)
      .execute();
  }

  /**
   * The owner's live images whose title or file name holds `text` (any case), the latest first,
   * at most `limit`: the studio's pickers' search. One query over the owner's rows.
   */
  async searchImages(ownerId: number, text: string, limit: number): Promise<number[]> {
    const like = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = await this.db
      .selectFrom('medias')
      .select('id')
      .where('owner_id', '=', ownerId)
      .where('status', '=', 'live')
      .where('mime_type', 'like', 'image/%')
      .where((eb) => eb.or([sql<SqlBool>`lower(coalesce(title, '')) like ${like} escape '\\'`, sql<SqlBool>`lower(file_name) like ${like} escape '\\'`]))
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  /** Records of `ids`, in the order of `ids`. */
  async records(ids: readonly number[]): Promise<MediaRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('medias as m')
      .innerJoin('artists as a', 'a.id', 'm.artist_id')
      .leftJoin('watermarks as w', 'w.id', 'm.watermark_id')
      .selectAll('m')
      .select(['a.uuid as artist_uuid', 'w.uuid as watermark_uuid'])
      .where('m.id', 'in', ids)
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r as MediaRecord]));
    return ids.map((id) => byId.get(id)).filter((r): r is MediaRecord => r !== undefined);
  }

  /** Keywords, galleries, collections and pricing profiles of `ids`: one query each. */
  async relations(ids: readonly number[]): Promise<Map<number, MediaRelations>> {
    const out = new Map<number, MediaRelations>();
    if (ids.length === 0) return out;
    const db = this.db;
    const [keywords, galleries, collections, pricing] = await Promise.all([
      db.selectFrom('media_keywords').select(['media_id', 'keyword']).where('media_id', 'in', ids).orderBy('media_id').orderBy('position').execute(),
      db
        .selectFrom('media_galleries as mg')
        .innerJoin('galleries as g', 'g.id', 'mg.gallery_id')
        .select(['mg.media_id', 'g.uuid'])
        .where('mg.media_id', 'in', ids)
        .orderBy('mg.media_id')
        .orderBy('mg.published_at')
        .orderBy('g.id')
        .execute(),
      db
        .selectFrom('media_group_medias as gm')
        .innerJoin('media_groups as mg', 'mg.id', 'gm.group_id')
        .select(['gm.media_id', 'mg.uuid'])
        .where('gm.media_id', 'in', ids)
        .orderBy('gm.media_id')
        .orderBy('mg.id')
        .execute(),
      db
        .selectFrom('media_pricing_profiles as mp')
        .innerJoin('pricing_profiles as p', 'p.id', 'mp.pricing_profile_id')
        .select(['mp.media_id', 'p.uuid'])
        .where('mp.media_id', 'in', ids)
        .orderBy('mp.media_id')
        .orderBy('p.id')
        .execute(),
    ]);
    const k = byMedia(ids, keywords, (r) => r.keyword);
    const g = byMedia(ids, galleries, (r) => r.uuid);
    const c = byMedia(ids, collections, (r) => r.uuid);
    const p = byMedia(ids, pricing, (r) => r.uuid);
    for (const id of ids) out.set(id, { keywords: k.get(id)!, galleries: g.get(id)!, collections: c.get(id)!, pricingProfiles: p.get(id)! });
    return out;
  }

  /** A new pending media with its attributes, in one transaction. */
  create(media: NewMedia, changes: MediaChanges, now: string): Promise<MediaRow> {
    return this.inTransaction(async (trx) => {
      const row = await trx
        .insertInto('medias')
        .values({ uuid: media.uuid, owner_id: media.ownerId, artist_id: media.artistId, status: 'pending', file_name: media.fileName, created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      await this.apply(trx, media.ownerId, [row.id], changes, now);
      return (await this.byId(row.id, trx))!;
    });
  }

  /** The media of a refused upload: it must not exist (its relations go with it). */
  async remove(id: number): Promise<void> {
    await this.db.deleteFrom('medias').where('id', '=', id).execute();
  }

  async setFileName(id: number, fileName: string, now: string): Promise<void> {
    await this.db.updateTable('medias').set({ file_name: fileName, updated_at: now }).where('id', '=', id).execute();
  }

  /**
   * Applies a change set to one media in its own transaction; `then` runs in it with the galleries
   * whose medias changed (their gallery.updated).
   */
  async update(ownerId: number, id: number, changes: MediaChanges, now: string, then?: (unit: Unit, galleries: number[]) => Promise<void>): Promise<void> {
    await inUnit(this.db, async (unit) => {
      const applied = await this.apply(unit.db, ownerId, [id], changes, now);
      if (then && applied.galleries.length > 0) await then(unit, applied.galleries);
    });
  }

  /**
   * Applies a validated change set (not a deletion: src/media/file-life.ts
   * deletes) to medias of `ownerId` among `ids` (others are skipped), with a
   * fixed number of statements whatever their number, so one media (PUT) and
   * a chunk of a batch update run the same code. Call inside a transaction.
   * On PostgreSQL the medias, then the galleries and collections they join,
   * are locked in id order: concurrent updates of the same rows wait for each
   * other instead of computing the same "next position". SQLite has one
   * writer anyway. Returns the ids that were found (owned by the user) and changed, and the
   * galleries that gained or lost one of them.
   */
  async apply(trx: Db, ownerId: number, ids: readonly number[], ch: MediaChanges, now: string): Promise<{ ids: number[]; galleries: number[] }> {
    const affectedIds = (await this.lockOwned(trx, ownerId, ids)).map((r) => r.id);
    if (affectedIds.length === 0) return { ids: affectedIds, galleries: [] };
    const lock = this.dialect === 'postgres';

    // The fields a file may fill that this change names are the client's from now on.
    const bits = clientBits(ch);
    await trx
      .updateTable('medias')
      .set({ ...ch.columns, ...(bits ? { client_meta: sql<number>`client_meta | ${bits}` } : {}), updated_at: now })
      .where('id', 'in', affectedIds)
      .execute();
    await applyKeywords(trx, affectedIds, ch);
    // Gallery membership is the galleries feature's (where a media goes in a gallery's order).
    const galleries = new Set<number>();
    const changed = (ids: number[]) => ids.forEach((g) => galleries.add(g));
    if (ch.galleries) changed(await this.membership.setGalleries(trx, affectedIds, ch.galleries, now));
    if (ch.publish) changed(await this.membership.publish(trx, affectedIds, ch.publish, now));
    if (ch.unpublish) changed(await this.membership.unpublish(trx, affectedIds, ch.unpublish));
    await applyCollections(trx, lock, affectedIds, ch.collections, ch.addCollections, ch.removeCollections);
    await applyPricing(trx, affectedIds, ch);
    return { ids: affectedIds, galleries: [...galleries] };
  }

  /** The galleries that show any of the medias: published there, or as a cover (MembershipRepository.galleriesShowing). */
  galleriesShowing(trx: Db, ids: readonly number[]): Promise<number[]> {
    return this.membership.galleriesShowing(trx, ids);
  }

  /** The medias of `ownerId` among `ids`, with their files' keys, by id; locked in that order on PostgreSQL (see apply). */
  lockOwned(trx: Db, ownerId: number, ids: readonly number[]): Promise<Array<{ id: number; storage_key: string | null }>> {
    if (ids.length === 0) return Promise.resolve([]);
    const q = trx.selectFrom('medias').select(['id', 'storage_key']).where('id', 'in', ids).where('owner_id', '=', ownerId).orderBy('id');
    return (this.dialect === 'postgres' ? q.forUpdate() : q).execute();
  }

  /** Deletes the medias `ids` (their gallery memberships, covers and relations go with them). */
  async deleteRows(trx: Db, ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.membership.forgetMedias(trx, ids);
    await trx.deleteFrom('medias').where('id', 'in', ids).execute();
  }

  /**
   * In the transaction that makes the media live with `file` (already at its
   * final key): its columns take the file's. Returns what it held before
   * (the file it no longer points to, its owner), or undefined when it is gone.
   */
  async goLive(trx: Db, mediaId: number, file: LiveFile): Promise<{ storageKey: string | null; ownerId: number; wasLive: boolean } | undefined> {
    // Locked (PostgreSQL): two files published at once for one media would both read the same previous
    // key, and the earlier new file would be replaced without being recorded for deletion. The media's
    // row first, as every media write takes it (page-stamp-lock-order.ts).
    const q = trx.selectFrom('medias').select(['storage_key', 'client_meta', 'owner_id', 'status']).where('id', '=', mediaId);
    const current = await (this.dialect === 'postgres' ? q.forUpdate() : q).executeTakeFirst();
    if (!current) return undefined;
    // What the file says fills the fields no client has set (file-fields.ts, docs/media.md).
    const described = fromFile(current.client_meta, file.facts.shotAt, file.facts.described);
    await trx
      .updateTable('medias')
      .set({
        status: 'live',
        file_name: file.fileName,
        file_size: file.size,
        mime_type: file.mimeType,
        storage_key: file.storageKey,
        // A file from the API has none: the probe always describes the current file.
        content_probe: file.contentProbe ?? null,
        width: file.facts.width ?? null,
        height: file.facts.height ?? null,
        // Always the current file's: no client sets it.
        camera: file.facts.camera ? JSON.stringify(file.facts.camera) : null,
        ...described.columns,
        updated_at: nowIso(),
      })
      .where('id', '=', mediaId)
      .execute();
    if (described.keywords) await applyKeywords(trx, [mediaId], { columns: {}, keywords: described.keywords });
    return { storageKey: current.storage_key, ownerId: current.owner_id, wasLive: current.status === 'live' };
  }

  /** Medias that stayed pending since `cutoff` without any upload (a refused or failed file). */
  async staleNeverLive(cutoff: string, limit: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('medias')
      .select('id')
      .where('status', '=', 'pending')
      .where('created_at', '<=', cutoff)
      // The uploads table is the uploads feature's; this is a read of it, in one statement.
      .where((eb) => eb.not(eb.exists(eb.selectFrom('uploads').select('uploads.id').whereRef('uploads.media_id', '=', 'medias.id'))))
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * Deletes the never-live medias among `ids` (clearing covers that point at
   * them); a live one is left alone. Returns how many went and their files'
   * keys, to record for deletion in the same transaction.
   */
  async deleteNeverLive(trx: Db, ids: readonly number[]): Promise<{ count: number; keys: Array<string | null> }> {
    if (ids.length === 0) return { count: 0, keys: [] };
    // Locked before the covers' clearing takes the owners' stamps (src/database/page-stamp-lock-order.ts): an
    // update holding one of them waits for its stamp, and the sweep must not hold that stamp then.
    const q = trx.selectFrom('medias').select(['id', 'storage_key']).where('id', 'in', ids).where('status', '=', 'pending').orderBy('id');
    const doomed = await (this.dialect === 'postgres' ? q.forUpdate() : q).execute();
    if (doomed.length === 0) return { count: 0, keys: [] };
    const doomedIds = doomed.map((m) => m.id);
    await this.membership.forgetMedias(trx, doomedIds);
    await trx.deleteFrom('medias').where('id', 'in', doomedIds).where('status', '=', 'pending').execute();
    return { count: doomed.length, keys: doomed.map((m) => m.storage_key) };
  }

  // ---- scopes: which medias a listing, a batch update or a group is about

  /**
   * The owner's stamps, in one primary-key lookup: `stamp` moves with every change of which medias a
   * list scope holds, or their order (migration 010); `rule` with every other write a smart rule reads
   * (a rule field of a media, a keyword: migration 019).
   */
  async stamps(ownerId: number): Promise<{ stamp: number; rule: number }> {
    const r = await this.db.selectFrom('media_stamps').select(['stamp', 'rule_stamp']).where('owner_id', '=', ownerId).executeTakeFirst();
    return { stamp: Number(r?.stamp ?? 0), rule: Number(r?.rule_stamp ?? 0) };
  }

  async count(ownerId: number, scope: MediaScope, tx: Db = this.db): Promise<number> {
    const s = scopeSql(ownerId, scope);
    const r = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${s.from} WHERE ${s.where}`.execute(tx);
    return Number(r.rows[0]?.n ?? 0);
  }

  /** Ids in the scope's order; a page when given. */
  async ids(ownerId: number, scope: MediaScope, page?: { limit: number; offset: number }, tx: Db = this.db): Promise<number[]> {
    const s = scopeSql(ownerId, scope);
    const limit = page ? sql`LIMIT ${page.limit} OFFSET ${page.offset}` : sql``;
    const r = await sql<{ id: number }>`SELECT m.id FROM ${s.from} WHERE ${s.where} ORDER BY ${s.order} ${limit}`.execute(tx);
    return r.rows.map((row) => Number(row.id));
  }

  /** Counts of several smart collections in one statement. */
  async countSmartGroups(ownerId: number, groups: readonly GroupScope[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    if (groups.length === 0) return out;
    const parts = groups.map((g) => {
      const s = scopeSql(ownerId, { group: g });
      return sql`SELECT ${sql.lit(g.id)} AS group_id, COUNT(*) AS n FROM ${s.from} WHERE ${s.where}`;
    });
    const r = await sql<{ group_id: number; n: number }>`${sql.join(parts, sql` UNION ALL `)}`.execute(this.db);
    for (const row of r.rows) out.set(Number(row.group_id), Number(row.n));
    return out;
  }

  /** Counts of live members of several collections in one statement. */
  async countCollections(ownerId: number, groupIds: readonly number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>(groupIds.map((id) => [id, 0]));
    if (groupIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('media_group_medias as c')
      .innerJoin('medias as m', 'm.id', 'c.media_id')
      .select(['c.group_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('c.group_id', 'in', groupIds)
      .where('m.owner_id', '=', ownerId)
      .where('m.status', '=', 'live')
      .groupBy('c.group_id')
      .execute();
    for (const r of rows) out.set(r.group_id, Number(r.n));
    return out;
  }
}

function byMedia<T extends { media_id: number }>(ids: readonly number[], rows: readonly T[], value: (r: T) => string): Map<number, string[]> {
  const out = new Map<number, string[]>(ids.map((id) => [id, []]));
  for (const r of rows) out.get(r.media_id)?.push(value(r));
  return out;
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

/**
 * Collection membership: replace (exact set), add (appended at the end of
 * each collection's order) and remove. Collections stay here: the groups
 * feature builds on media, not the other way round.
 */
async function applyCollections(
  trx: Db,
  lock: boolean,
  ids: number[],
  exact: number[] | undefined,
  add: number[] | undefined,
  remove: number[] | undefined,
): Promise<void> {
  if (exact) {
    await sql`
      DELETE FROM media_group_medias WHERE media_id IN (${idList(ids)})
      ${exact.length ? sql`AND group_id NOT IN (${idList(exact)})` : sql``}`.execute(trx);
  }
  const toAdd = [...new Set([...(exact ?? []), ...(add ?? [])])];
  if (lock && toAdd.length) {
    await sql`SELECT id FROM media_groups WHERE id IN (${idList(toAdd)}) ORDER BY id FOR UPDATE`.execute(trx);
  }
  for (const targetId of toAdd) {
    // Joined to its collection: one deleted since the request was validated is skipped.
    await sql`
      INSERT INTO media_group_medias (group_id, media_id, position)
      SELECT t.id, m.id,
        (SELECT COALESCE(MAX(x.position), 0) FROM media_group_medias x WHERE x.group_id = ${targetId}) + ROW_NUMBER() OVER (ORDER BY m.id)
      FROM medias m JOIN media_groups t ON t.id = ${targetId}
      WHERE m.id IN (${idList(ids)})
        AND NOT EXISTS (SELECT 1 FROM media_group_medias y WHERE y.group_id = ${targetId} AND y.media_id = m.id)`.execute(trx);
  }
  if (remove?.length) {
    await sql`DELETE FROM media_group_medias WHERE media_id IN (${idList(ids)}) AND group_id IN (${idList(remove)})`.execute(trx);
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

interface ScopeSql {
  from: RawBuilder<unknown>;
  where: RawBuilder<unknown>;
  order: RawBuilder<unknown>;
}

/**
 * The user's live medias in a scope (docs/media.md, "Listing"). The first
 * container named (gallery, then collection, then lightbox) gives the order
 * and is joined; any other one is an EXISTS condition.
 */
function scopeSql(ownerId: number, f: MediaScope): ScopeSql {
  const where: RawBuilder<unknown>[] = [sql`m.owner_id = ${ownerId}`, sql`m.status = 'live'`];
  if (f.artistId !== undefined) where.push(sql`m.artist_id = ${f.artistId}`);
  let from: RawBuilder<unknown> = sql`medias m`;
  let order: RawBuilder<unknown> = sql`m.id`;
  const containers: Array<{ table: string; column: string; id: number }> = [];
  if (f.galleryId !== undefined) containers.push({ table: 'media_galleries', column: 'gallery_id', id: f.galleryId });
  if (f.group?.kind === 'collection') containers.push({ table: 'media_group_medias', column: 'group_id', id: f.group.id });
  if (f.lightboxId !== undefined) containers.push({ table: 'lightbox_medias', column: 'lightbox_id', id: f.lightboxId });
  containers.forEach((c, i) => {
    const t = sql.table(c.table);
    const col = sql.ref(c.column);
    if (i === 0) {
      from = sql`${t} c JOIN medias m ON m.id = c.media_id`;
      where.push(sql`c.${col} = ${c.id}`);
      order = sql`c.position, m.id`;
    } else {
      where.push(sql`EXISTS (SELECT 1 FROM ${t} x WHERE x.media_id = m.id AND x.${col} = ${c.id})`);
    }
  });
  if (f.group?.kind === 'smart') {
    where.push(f.group.condition);
    if (f.group.artistId !== null) where.push(sql`m.artist_id = ${f.group.artistId}`);
  }
  return { from, where: sql.join(where, sql` AND `), order };
}
