// The galleries feature's SQL (with membership-repository.ts): the gallery
// tree, its list positions, access lists, media counts and the order of the
// medias published in a gallery. Every read that serves a page of galleries
// is a fixed number of queries, whatever the page size or the depth of the
// tree; the lookups every request makes are compiled once.
import { sql, type Expression, type ExpressionBuilder, type Insertable, type SqlBool, type Updateable } from 'kysely';
import type { Db, Sometimes } from '../database/db.js';
import type { Dialect } from '../database/migration-helpers.js';
import { lockOwnerStamps } from '../database/page-stamp-lock-order.js';
import { prepared, preparedAll } from '../database/prepared.js';
import type { Database, GalleriesTable, GalleryAclTable, GalleryRow, WebsiteRow } from '../database/schema.js';
import { containsText } from '../database/text-match.js';
import { inUnit, type Unit } from '../database/unit-of-work.js';
import type { OrderableMedia } from './content-order.js';
import type { OverviewQuery, OverviewState } from './overview.js';
import { DEFAULT_ACL_EMAIL } from './acl.js';

/** Columns an update sets. */
export type GalleryChanges = Updateable<GalleriesTable>;

/** A gallery with the UUIDs of what it refers to, as replies show it. */
export interface GalleryRecord extends GalleryRow {
  parent_uuid: string | null;
  display_style_uuid: string | null;
  cover_media_uuid: string | null;
}

export interface MediaCounts {
  /** Live medias published in the gallery. */
  medias: number;
  /** Distinct live medias published in the gallery or any gallery below it. */
  full: number;
}

export interface AclEntry {
  position: number;
  email: string;
  read: boolean;
  compDownload: boolean;
  hiresDownload: boolean;
}

/** A media published in a gallery, with what the gallery's content orders sort on. */
/** A live media of a gallery with what orders it. */
export type PublishedMedia = OrderableMedia;

/** What replies show of a gallery (xml.ts), with what its details' follow-up reads need (id, orders). */
export type GalleryShown = Pick<
  GalleryRecord,
  | 'id'
  | 'uuid'
  | 'name'
  | 'url_path'
  | 'full_url_path'
  | 'description'
  | 'published_at'
  | 'parent_uuid'
  | 'display_style_uuid'
  | 'cover_media_uuid'
  | 'subgalleries_count'
  | 'hidden'
  | 'indexing'
  | 'pick_limit'
  | 'favourites'
  | 'favourite_lists'
  | 'expires_at'
  | 'download_pin'
  | 'download_limit'
  | 'download_size'
  | 'content_order'
  | 'content_order_direction'
  | 'order_subgalleries'
  | 'password_hash'
  | 'created_at'
  | 'updated_at'
>;

/** One gallery as its details show it, with its own media count and the size of its access list. */
export interface GalleryDetailsRow extends GalleryShown {
  own_medias: number;
  acl_entries: number;
}

/** CASE branches per statement when closing list gaps (keeps statements and parameter counts small). */
const RUNS_PER_STATEMENT = 200;
/** Rows per statement of a reorder or a bulk insert. */
const ROWS_PER_STATEMENT = 500;

/** Galleries with their references resolved; callers add the where clause. */
function galleryRecords(db: Db) {
  return db
    .selectFrom('galleries as g')
    .leftJoin('galleries as p', 'p.id', 'g.parent_id')
    .leftJoin('display_styles as ds', 'ds.id', 'g.display_style_id')
    .leftJoin('medias as cm', 'cm.id', 'g.cover_media_id')
    .selectAll('g')
    .select(['p.uuid as parent_uuid', 'ds.uuid as display_style_uuid', 'cm.uuid as cover_media_uuid']);
}

function liveMediasOf(db: Db) {
  return db.selectFrom('media_galleries as mg').innerJoin('medias as m', 'm.id', 'mg.media_id').where('m.status', '=', 'live');
}

/**
 * One gallery of a website the user may see, in one statement: the access
 * check, the record, its own media count and whether it has an access list
 * (so the list is read only when there is one). The details of a gallery are
 * the most frequent read of the API.
 */
const galleryDetailsQuery = prepared((db: Db, userId: number, urlname: string, uuid: string) =>
  db
    .selectFrom('galleries as g')
    .innerJoin('websites as w', 'w.id', 'g.website_id')
    .leftJoin('galleries as p', 'p.id', 'g.parent_id')
    .leftJoin('display_styles as ds', 'ds.id', 'g.display_style_id')
    .leftJoin('medias as cm', 'cm.id', 'g.cover_media_id')
    // Only what the reply shows: each column read costs as much as a step of the lookup.
    .select([
      'g.id',
      'g.uuid',
      'g.name',
      'g.url_path',
      'g.full_url_path',
      'g.description',
      'g.published_at',
      'p.uuid as parent_uuid',
      'ds.uuid as display_style_uuid',
      'cm.uuid as cover_media_uuid',
      'g.subgalleries_count',
      'g.hidden',
      'g.indexing',
      'g.pick_limit',
      'g.favourites',
      'g.favourite_lists',
      'g.expires_at',
      'g.download_pin',
      'g.download_limit',
      'g.download_size',
      'g.content_order',
      'g.content_order_direction',
      'g.order_subgalleries',
      'g.password_hash',
      'g.created_at',
      'g.updated_at',
    ])
    .select((eb) => [
      eb
        .selectFrom('media_galleries as mg')
        .innerJoin('medias as m', 'm.id', 'mg.media_id')
        .whereRef('mg.gallery_id', '=', 'g.id')
        .where('m.status', '=', 'live')
        .select(eb.fn.countAll<number>().as('n'))
        .as('own_medias'),
      eb.selectFrom('gallery_acl as a').whereRef('a.gallery_id', '=', 'g.id').select(eb.fn.countAll<number>().as('n')).as('acl_entries'),
    ])
    .where('w.urlname', '=', urlname)
    .where('g.uuid', '=', uuid)
    .where((eb) =>
      eb.or([
        eb('w.owner_id', '=', userId),
        eb('w.id', 'in', eb.selectFrom('website_members').select('website_id').where('user_id', '=', userId)),
      ]),
    ),
  // Text, integers and nulls only.
  { json: true },
);

function countsAsNumbers(row: (Omit<GalleryDetailsRow, 'own_medias' | 'acl_entries'> & { own_medias: unknown; acl_entries: unknown }) | undefined): GalleryDetailsRow | undefined {
  if (!row) return undefined;
  row.own_medias = Number(row.own_medias);
  row.acl_entries = Number(row.acl_entries);
  return row as GalleryDetailsRow;
}

const galleryRecordByUuid = prepared((db: Db, websiteId: number, uuid: string) =>
  galleryRecords(db).where('g.website_id', '=', websiteId).where('g.uuid', '=', uuid),
);

const galleryByUuid = prepared((db: Db, websiteId: number, uuid: string) =>
  db.selectFrom('galleries').selectAll().where('website_id', '=', websiteId).where('uuid', '=', uuid),
);

const ownMediaCounts = preparedAll((db: Db, galleryIds: readonly number[]) =>
  liveMediasOf(db)
    .select((eb) => ['mg.gallery_id', eb.fn.countAll<number>().as('n')])
    .where('mg.gallery_id', 'in', galleryIds)
    .groupBy('mg.gallery_id'),
);

const aclRows = preparedAll((db: Db, galleryIds: readonly number[]) =>
  db
    .selectFrom('gallery_acl')
    .select(['gallery_id', 'position', 'email', 'can_read', 'comp_download', 'hires_download'])
    .where('gallery_id', 'in', galleryIds)
    .orderBy('gallery_id')
    .orderBy('position'),
);

/**
 * Sub-tree of every given gallery (the gallery itself included) as
 * (top_id, id) pairs: a recursive CTE, usable as a subquery.
 */
function subtreeCte(ids: readonly number[]) {
  return sql`WITH RECURSIVE sub(top_id, id) AS (
      SELECT id, id FROM galleries WHERE id IN (${sql.join(ids)})
      UNION ALL
      SELECT sub.top_id, g.id FROM galleries g JOIN sub ON g.parent_id = sub.id
    )`;
}

/** The caller's live medias published in the sub-tree: the ones a delete counts and may delete. */
function subtreeMediasSql(galleryId: number, ownerId: number) {
  return sql<{ id: number }>`${subtreeCte([galleryId])}
    SELECT DISTINCT m.id FROM sub
    CROSS JOIN media_galleries mg
    CROSS JOIN medias m
    WHERE mg.gallery_id = sub.id AND m.id = mg.media_id AND m.status = 'live' AND m.owner_id = ${ownerId}`;
}

interface Run {
  start: number;
  end: number;
  /** Positions removed up to and including this run. */
  removedSoFar: number;
}

function runsOf(sortedPositions: readonly number[]): Run[] {
  const runs: Run[] = [];
  for (const p of sortedPositions) {
    const last = runs[runs.length - 1];
    if (last && p === last.end + 1) {
      last.end = p;
      last.removedSoFar++;
    } else {
      runs.push({ start: p, end: p, removedSoFar: (last?.removedSoFar ?? 0) + 1 });
    }
  }
  return runs;
}

/** One gallery of the overview (GalleriesRepository.overview). */
export interface OverviewRow {
  id: number;
  uuid: string;
  name: string;
  parent_id: number | null;
  subgalleries_count: number;
  hidden: number;
  expires_at: string | null;
  parent_name: string | null;
  /** The parent's parent: null when the parent is the website's home gallery. */
  grandparent_id: number | null;
  /** Its own password and access list (a client gallery: the card's Proofing link). */
  locked: boolean;
  access_list: boolean;
  /** What an anonymous visitor meets at its page, its ancestors' protections included (effectiveStates). */
  state: OverviewState;
  /** The ancestor that state comes from; null when it is the gallery's own (or public). */
  state_from: string | null;
  /** Hidden itself or below a hidden gallery (left out of the website's navigation). */
  hidden_effective: boolean;
  /** The hidden ancestor; null when the gallery is hidden itself or not at all. */
  hidden_from: string | null;
}

/** A boolean column: PostgreSQL's true, SQLite's 1. */
const truthy = (v: unknown) => v === true || Number(v) === 1;

/** A gallery `c` past its expiry at `now`. */
const expiredSql = (now: string) => sql<SqlBool>`(c.expires_at IS NOT NULL AND c.expires_at <= ${now})`;
/** A gallery `c` whose access list refuses a visitor who gives no address (decide: no DEFAULT entry that reads). */
const refusingSql = sql<SqlBool>`(EXISTS (SELECT 1 FROM gallery_acl a WHERE a.gallery_id = c.id) AND NOT EXISTS (SELECT 1 FROM gallery_acl a WHERE a.gallery_id = c.id AND a.email = ${DEFAULT_ACL_EMAIL} AND a.can_read = 1))`;

/**
 * The website's access rule for an anonymous visitor (src/site/access.ts, `closedBy` and `decide`
 * over the chain from the root down), in SQL, once: `eff` walks a website's tree from its home and
 * carries, for each gallery, the first expired gallery on its way (closedBy), the first one whose
 * password or access list stops the visitor (decide: a gallery's password before its list) and
 * how, and the first hidden one. test/studio/studio-gallery-grid-find-http.test.ts holds it to
 * what the website answers.
 */
function effectiveCte(db: Db, websiteId: number, now: string) {
  const expired = expiredSql(now);
  return db.withRecursive('eff(id, closed_id, gate_id, gate_kind, hidden_id)', (q) =>
    q
      .selectFrom('galleries as c')
      .where('c.website_id', '=', websiteId)
      .where('c.parent_id', 'is', null)
      .select([
        'c.id',
        sql<number | null>`CASE WHEN ${expired} THEN c.id END`.as('closed_id'),
        sql<number | null>`CASE WHEN c.password_hash IS NOT NULL OR ${refusingSql} THEN c.id END`.as('gate_id'),
        sql<number | null>`CASE WHEN c.password_hash IS NOT NULL THEN 1 WHEN ${refusingSql} THEN 2 END`.as('gate_kind'),
        sql<number | null>`CASE WHEN c.hidden = 1 THEN c.id END`.as('hidden_id'),
      ])
      .unionAll(
        q
          .selectFrom('galleries as c')
          .innerJoin('eff as p', 'p.id', 'c.parent_id')
          .select([
            'c.id',
            sql<number | null>`COALESCE(p.closed_id, CASE WHEN ${expired} THEN c.id END)`.as('closed_id'),
            sql<number | null>`COALESCE(p.gate_id, CASE WHEN c.password_hash IS NOT NULL OR ${refusingSql} THEN c.id END)`.as('gate_id'),
            sql<number | null>`CASE WHEN p.gate_id IS NOT NULL THEN p.gate_kind WHEN c.password_hash IS NOT NULL THEN 1 WHEN ${refusingSql} THEN 2 END`.as('gate_kind'),
            sql<number | null>`COALESCE(p.hidden_id, CASE WHEN c.hidden = 1 THEN c.id END)`.as('hidden_id'),
          ]),
      ),
  );
}

/** A gallery's state from its `eff` row aliased `e`: closed first, then what stops the visitor first. */
const effectiveStateSql = sql<OverviewState>`CASE WHEN e.closed_id IS NOT NULL THEN 'expired' WHEN e.gate_kind = 1 THEN 'password' WHEN e.gate_kind = 2 THEN 'access-list' ELSE 'public' END`;

/**
 * The overview's filter on a website's galleries aliased `g` (joined with their `eff` rows as `e`):
 * the name holds the search, and the state is the one its card shows, the website's (effectiveCte).
 */
function overviewCondition(eb: ExpressionBuilder<Database & { g: GalleriesTable }, 'g'>, websiteId: number, f: OverviewQuery) {
  const all: Expression<SqlBool>[] = [eb('g.website_id', '=', websiteId)];
  if (f.search) all.push(containsText(eb.ref('g.name'), f.search));
  if (f.state === 'hidden') all.push(sql<SqlBool>`e.hidden_id IS NOT NULL`);
  else if (f.state) all.push(sql<SqlBool>`${effectiveStateSql} = ${f.state}`);
  return eb.and(all);
}

export class GalleriesRepository {
  constructor(
    readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  /** Runs `fn` in one unit of work, with a repository bound to its transaction (and the unit, for the owner of files' life). */
  inTransaction<T>(fn: (repo: GalleriesRepository, unit: Unit) => Promise<T>): Promise<T> {
    return inUnit(this.db, (unit) => fn(new GalleriesRepository(unit.db, this.dialect), unit));
  }

  // ---- reads

  /** See galleryDetailsQuery; undefined when the website is not the user's or the gallery not the website's. */
  details(userId: number, urlname: string, uuid: string): Sometimes<GalleryDetailsRow | undefined> {
    const row = galleryDetailsQuery(this.db, userId, urlname, uuid);
    return row instanceof Promise ? row.then(countsAsNumbers) : countsAsNumbers(row);
  }

  record(websiteId: number, uuid: string): Sometimes<GalleryRecord | undefined> {
    return galleryRecordByUuid(this.db, websiteId, uuid);
  }

  find(websiteId: number, uuid: string): Sometimes<GalleryRow | undefined> {
    return galleryByUuid(this.db, websiteId, uuid);
  }

  findById(id: number): Promise<GalleryRow | undefined> {
    return this.db.selectFrom('galleries').selectAll().where('id', '=', id).executeTakeFirst();
  }

  byIds(ids: readonly number[]): Promise<GalleryRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return galleryRecords(this.db).where('g.id', 'in', ids).execute();
  }

  /** Number of galleries of a website: list positions are dense, so the highest one (an index lookup). */
  async total(websiteId: number): Promise<number> {
    const row = await this.db
      .selectFrom('galleries')
      .select((eb) => eb.fn.max('list_pos').as('total'))
      .where('website_id', '=', websiteId)
      .executeTakeFirst();
    return Number(row?.total ?? 0);
  }

  /** Galleries at list positions first..last (an index range, never an OFFSET scan). */
  byListPos(websiteId: number, first: number, last: number): Promise<GalleryRecord[]> {
    return galleryRecords(this.db)
      .where('g.website_id', '=', websiteId)
      .where('g.list_pos', '>=', first)
      .where('g.list_pos', '<=', last)
      .orderBy('g.list_pos')
      .execute();
  }

  /** The gallery's ancestors, root first (its full url path's prefixes), in one query. */
  ancestors(g: GalleryRow): Promise<GalleryRecord[]> {
    if (g.parent_id === null) return Promise.resolve([]);
    const segments = g.full_url_path.split('/');
    const prefixes = [''];
    for (let i = 1; i < segments.length; i++) prefixes.push(segments.slice(0, i).join('/'));
    return galleryRecords(this.db)
      .where('g.website_id', '=', g.website_id)
      .where('g.full_url_path', 'in', prefixes)
      .execute()
      .then((rows) => rows.sort((a, b) => a.full_url_path.length - b.full_url_path.length));
  }

  /**
   * Direct children (id, name, list position) in list order: creation order unless they were
   * reordered (gallery[position], an extension), the order the website's navigation shows too.
   * At most 1000 per gallery.
   */
  children(galleryId: number): Promise<Array<{ id: number; name: string; list_pos: number }>> {
    return this.db.selectFrom('galleries').select(['id', 'name', 'list_pos']).where('parent_id', '=', galleryId).orderBy('list_pos').orderBy('id').execute();
  }

  /** The urlname of the website a gallery belongs to. */
  async urlnameOf(galleryId: number): Promise<string | undefined> {
    const row = await this.db.selectFrom('galleries as g').innerJoin('websites as w', 'w.id', 'g.website_id').select('w.urlname').where('g.id', '=', galleryId).executeTakeFirst();
    return row?.urlname;
  }

  /** Live medias published in each gallery (absent: none). */
  async ownMediaCounts(galleryIds: readonly number[]): Promise<Map<number, number>> {
    if (galleryIds.length === 0) return new Map();
    const rows = await ownMediaCounts(this.db, galleryIds);
    return new Map(rows.map((r) => [r.gallery_id, Number(r.n)]));
  }

  /**
   * Distinct live medias of each gallery's sub-tree. CROSS JOIN keeps SQLite
   * walking from the sub-tree into media_galleries (without statistics it
   * would rather scan all of media_galleries); PostgreSQL plans it as an
   * ordinary join.
   */
  async fullMediaCounts(ids: readonly number[]): Promise<Map<number, number>> {
    if (ids.length === 0) return new Map();
    const { rows } = await sql<{ id: number; full_count: number | string }>`
      ${subtreeCte(ids)}
      SELECT sub.top_id AS id, COUNT(DISTINCT mg.media_id) AS full_count
      FROM sub
      CROSS JOIN media_galleries mg
      CROSS JOIN medias m
      WHERE mg.gallery_id = sub.id AND m.id = mg.media_id AND m.status = 'live'
      GROUP BY sub.top_id`.execute(this.db);
    return new Map(rows.map((r) => [Number(r.id), Number(r.full_count)]));
  }

  /**
   * A thumbnail for each gallery (by UUID) of the websites `userId` may see: its cover when it is
   * a live photo of theirs, else their latest live photo in its sub-tree. Three queries, none per gallery.
   */
  async coverUuids(userId: number, galleryUuids: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (galleryUuids.length === 0) return out;
    const galleries = await this.db
      .selectFrom('galleries as g')
      .innerJoin('websites as w', 'w.id', 'g.website_id')
      .select(['g.id', 'g.uuid', 'g.cover_media_id'])
      .where('g.uuid', 'in', galleryUuids)
      .where((eb) => eb.or([eb('w.owner_id', '=', userId), eb('w.id', 'in', eb.selectFrom('website_members').select('website_id').where('user_id', '=', userId))]))
      .execute();
    if (galleries.length === 0) return out;
    const chosen = new Map(galleries.flatMap((g) => (g.cover_media_id === null ? [] : [[g.id, g.cover_media_id] as const])));
    const rest = galleries.filter((g) => !chosen.has(g.id)).map((g) => g.id);
    const { rows: latest } = rest.length
      ? await sql<{ id: number; media_id: number }>`
      ${subtreeCte(rest)}
      SELECT sub.top_id AS id, MAX(m.id) AS media_id
      FROM sub
      CROSS JOIN media_galleries mg
      CROSS JOIN medias m
      WHERE mg.gallery_id = sub.id AND m.id = mg.media_id AND m.status = 'live' AND m.renditions_state = 'ready' AND m.owner_id = ${userId}
      GROUP BY sub.top_id`.execute(this.db)
      : { rows: [] };
    const pick = new Map<number, number>([...chosen, ...latest.map((r) => [Number(r.id), Number(r.media_id)] as const)]);
    if (pick.size === 0) return out;
    const medias = await this.db
      .selectFrom('medias')
      .select(['id', 'uuid'])
      .where('id', 'in', [...new Set(pick.values())])
      .where('status', '=', 'live')
      .where('renditions_state', '=', 'ready')
      .where('owner_id', '=', userId)
      .execute();
    const uuidOf = new Map(medias.map((m) => [m.id, m.uuid]));
    for (const g of galleries) {
      const media = uuidOf.get(pick.get(g.id) ?? -1);
      if (media) out.set(g.uuid, media);
    }
    return out;
  }

  /**
   * The galleries of a website that pass the overview's query (overview.ts): how many, and the
   * page `offset`..`offset + limit` in its order, each with its parent's name and whether it has
   * an access list. Two statements whatever the page size: the name, the state and the order are
   * SQL (`now` tells what has expired); the most-photos order counts each candidate's sub-tree in
   * the page's statement (a recursive CTE over the candidates, as fullMediaCounts).
   */
  async overview(websiteId: number, f: OverviewQuery, now: string, limit: number, offset: number): Promise<{ total: number; rows: OverviewRow[] }> {
    const passes = (eb: ExpressionBuilder<Database & { g: GalleriesTable }, 'g'>) => overviewCondition(eb, websiteId, f);
    const columns = (q: ReturnType<typeof this.overviewFrom>) =>
      q
        .leftJoin('galleries as p', 'p.id', 'g.parent_id')
        // The ancestor a state comes from, when it is not the gallery itself.
        .leftJoin('galleries as sf', (j) => j.on(sql<SqlBool>`sf.id = COALESCE(e.closed_id, e.gate_id) AND sf.id <> g.id`))
        .leftJoin('galleries as hf', (j) => j.on(sql<SqlBool>`hf.id = e.hidden_id AND hf.id <> g.id`))
        .select(['g.id', 'g.uuid', 'g.name', 'g.parent_id', 'g.subgalleries_count', 'g.hidden', 'g.expires_at', 'p.name as parent_name', 'p.parent_id as grandparent_id', 'sf.name as state_from', 'hf.name as hidden_from'])
        .select((eb) => [
          eb('g.password_hash', 'is not', null).as('locked'),
          eb.exists(eb.selectFrom('gallery_acl as a').select('a.gallery_id').whereRef('a.gallery_id', '=', 'g.id')).as('access_list'),
          effectiveStateSql.as('state'),
          sql<SqlBool>`e.hidden_id IS NOT NULL`.as('hidden_effective'),
        ])
        .limit(limit)
        .offset(offset);
    const page =
      f.sort === 'photos'
        ? effectiveCte(this.db, websiteId, now)
            .withRecursive('sub(top_id, id)', (db) =>
              db
                .selectFrom('galleries as g')
                .innerJoin('eff as e', 'e.id', 'g.id')
                .where(passes)
                .select(['g.id as top_id', 'g.id'])
                .unionAll(db.selectFrom('galleries as c').innerJoin('sub', 'sub.id', 'c.parent_id').select(['sub.top_id', 'c.id'])),
            )
            // CROSS JOIN keeps SQLite walking from the sub-tree into media_galleries (fullMediaCounts).
            // MATERIALIZED: counted once; PostgreSQL without statistics (a young database) would
            // otherwise count every gallery's sub-tree again for each candidate (2 s at 300 galleries).
            .with((cte) => cte('photo_counts').materialized(), (db) =>
              db
                .selectFrom('sub')
                .crossJoin('media_galleries as mg')
                .crossJoin('medias as m')
                .whereRef('mg.gallery_id', '=', 'sub.id')
                .whereRef('m.id', '=', 'mg.media_id')
                .where('m.status', '=', 'live')
                .select((eb) => ['sub.top_id', eb.fn.count('mg.media_id').distinct().as('n')])
                .groupBy('sub.top_id'),
            )
            .selectFrom('galleries as g')
            .innerJoin('eff as e', 'e.id', 'g.id')
            .where(passes)
            .leftJoin('photo_counts as pc', 'pc.top_id', 'g.id')
            .orderBy(sql`COALESCE(pc.n, 0)`, 'desc')
            .orderBy(sql`LOWER(g.name)`)
            .orderBy('g.id', 'desc')
        : this.overviewFrom(websiteId, now, passes, f.sort);
    const [count, rows] = await Promise.all([
      effectiveCte(this.db, websiteId, now)
        .selectFrom('galleries as g')
        .innerJoin('eff as e', 'e.id', 'g.id')
        .where(passes)
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirst(),
      // The most-photos order's CTEs add tables, not columns: the same columns are read.
      columns(page as unknown as ReturnType<typeof this.overviewFrom>).execute(),
    ]);
    return {
      total: Number(count?.n ?? 0),
      rows: rows.map((r) => ({ ...r, locked: truthy(r.locked), access_list: truthy(r.access_list), hidden_effective: truthy(r.hidden_effective) })),
    };
  }

  /**
   * Every gallery's state of a website as the overview's cards show it (what an anonymous visitor
   * meets at its page, effectiveCte), by id, with the ancestor it comes from: one statement.
   */
  async effectiveStates(websiteId: number, now: string): Promise<Map<number, { state: OverviewState; from: string | null; hidden: boolean; hiddenFrom: string | null }>> {
    const rows = await effectiveCte(this.db, websiteId, now)
      .selectFrom('eff as e')
      .innerJoin('galleries as g', 'g.id', 'e.id')
      .leftJoin('galleries as sf', (j) => j.on(sql<SqlBool>`sf.id = COALESCE(e.closed_id, e.gate_id) AND sf.id <> g.id`))
      .leftJoin('galleries as hf', (j) => j.on(sql<SqlBool>`hf.id = e.hidden_id AND hf.id <> g.id`))
      .select(['g.id', 'sf.name as state_from', 'hf.name as hidden_from'])
      .select([effectiveStateSql.as('state'), sql<SqlBool>`e.hidden_id IS NOT NULL`.as('hidden')])
      .execute();
    return new Map(rows.map((r) => [r.id, { state: r.state, from: r.state_from, hidden: truthy(r.hidden), hiddenFrom: r.hidden_from }]));
  }

  /** The overview's candidates, joined with their states (effectiveCte), in one of the orders that need no count. */
  private overviewFrom(websiteId: number, now: string, passes: (eb: ExpressionBuilder<Database & { g: GalleriesTable }, 'g'>) => ReturnType<typeof overviewCondition>, sort: OverviewQuery['sort']) {
    const q = effectiveCte(this.db, websiteId, now).selectFrom('galleries as g').innerJoin('eff as e', 'e.id', 'g.id').where(passes);
    if (sort === 'name') return q.orderBy(sql`LOWER(g.name)`).orderBy('g.id');
    // Created in the same millisecond: the later id is the newer.
    if (sort === 'oldest') return q.orderBy('g.created_at').orderBy('g.id');
    return q.orderBy('g.created_at', 'desc').orderBy('g.id', 'desc');
  }

  /** Access lists of several galleries in one query, entries in position order. */
  async acls(galleryIds: readonly number[]): Promise<Map<number, AclEntry[]>> {
    const out = new Map<number, AclEntry[]>();
    if (galleryIds.length === 0) return out;
    for (const r of await aclRows(this.db, galleryIds)) {
      let list = out.get(r.gallery_id);
      if (!list) out.set(r.gallery_id, (list = []));
      list.push({ position: r.position, email: r.email, read: r.can_read === 1, compDownload: r.comp_download === 1, hiresDownload: r.hires_download === 1 });
    }
    return out;
  }

  /** The live medias of a gallery, unordered (the service sorts them). */
  publishedMedias(galleryId: number): Promise<PublishedMedia[]> {
    return liveMediasOf(this.db)
      .select(['mg.media_id', 'm.uuid', 'mg.position', 'm.file_name', 'mg.published_at as mg_published_at', 'm.shot_at', 'm.created_at', 'm.updated_at', 'm.artist_rating'])
      .where('mg.gallery_id', '=', galleryId)
      .execute();
  }

  /** Every media published in a gallery (live or not) in its manual order. */
  manualOrder(galleryId: number): Promise<Array<{ media_id: number; uuid: string; position: number }>> {
    return this.db
      .selectFrom('media_galleries as mg')
      .innerJoin('medias as m', 'm.id', 'mg.media_id')
      .select(['mg.media_id', 'm.uuid', 'mg.position'])
      .where('mg.gallery_id', '=', galleryId)
      .orderBy('mg.position')
      .orderBy('mg.media_id')
      .execute();
  }

  /** Ids and list positions of a gallery and everything below it. */
  async subtree(galleryId: number): Promise<Array<{ id: number; list_pos: number }>> {
    const { rows } = await sql<{ id: number; list_pos: number }>`
      ${subtreeCte([galleryId])}
      SELECT g.id, g.list_pos FROM sub JOIN galleries g ON g.id = sub.id ORDER BY g.list_pos`.execute(this.db);
    return rows.map((r) => ({ id: Number(r.id), list_pos: Number(r.list_pos) }));
  }

  /** The deepest and the longest full url path of a sub-tree: (number of '/', length). */
  async subtreeExtent(galleryId: number): Promise<{ slashes: number; longest: number } | undefined> {
    const { rows } = await sql<{ longest: number | string | null; slashes: number | string | null }>`${subtreeCte([galleryId])}
      SELECT MAX(LENGTH(g.full_url_path)) AS longest,
        MAX(LENGTH(g.full_url_path) - LENGTH(REPLACE(g.full_url_path, '/', ''))) AS slashes
      FROM sub JOIN galleries g ON g.id = sub.id`.execute(this.db);
    const row = rows[0];
    if (row?.longest === null || row?.longest === undefined || row.slashes === null) return undefined;
    return { slashes: Number(row.slashes), longest: Number(row.longest) };
  }

  /** Ids of the caller's live medias published in the gallery or below it. */
  async subtreeMediaIds(galleryId: number, ownerId: number): Promise<number[]> {
    const { rows } = await subtreeMediasSql(galleryId, ownerId).execute(this.db);
    return rows.map((r) => Number(r.id));
  }

  async siblingUrlPaths(parentId: number, exceptId?: number): Promise<Set<string>> {
    let q = this.db.selectFrom('galleries').select('url_path').where('parent_id', '=', parentId);
    if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
    return new Set((await q.execute()).map((r) => r.url_path));
  }

  /** The style's id; null asks for the website's default style. undefined: no such style. */
  async displayStyleId(websiteId: number, uuid: string | null): Promise<number | undefined> {
    let q = this.db.selectFrom('display_styles').select('id').where('website_id', '=', websiteId);
    q = uuid === null ? q.orderBy('is_default', 'desc').orderBy('id') : q.where('uuid', '=', uuid);
    return (await q.executeTakeFirst())?.id;
  }

  /** A media of the website's owner (a member editing the website uses the owner's library). */
  async ownerMediaId(website: Pick<WebsiteRow, 'owner_id'>, uuid: string): Promise<number | undefined> {
    return (await this.db.selectFrom('medias').select('id').where('uuid', '=', uuid).where('owner_id', '=', website.owner_id).executeTakeFirst())?.id;
  }

  // ---- writes (in a transaction)

  /** Serialises writes to one website's tree (a row lock on PostgreSQL, the write lock on SQLite). */
  async lockWebsite(websiteId: number, now: string): Promise<void> {
    await this.db.updateTable('websites').set({ updated_at: now }).where('id', '=', websiteId).execute();
  }

  async nextListPos(websiteId: number): Promise<number> {
    const row = await this.db.selectFrom('galleries').select((eb) => eb.fn.max('list_pos').as('max')).where('website_id', '=', websiteId).executeTakeFirst();
    return Number(row?.max ?? 0) + 1;
  }

  async insert(values: Insertable<GalleriesTable>): Promise<number> {
    return (await this.db.insertInto('galleries').values(values).returning('id').executeTakeFirstOrThrow()).id;
  }

  /** What an invitation needs of a gallery: its website (id, uuid, owner) and its place in it. */
  invitationTarget(galleryId: number): Promise<{ id: number; uuid: string; name: string; full_url_path: string; website_id: number; website_uuid: string; owner_id: number } | undefined> {
    return this.db
      .selectFrom('galleries as g')
      .innerJoin('websites as w', 'w.id', 'g.website_id')
      .select(['g.id', 'g.uuid', 'g.name', 'g.full_url_path', 'g.website_id', 'w.uuid as website_uuid', 'w.owner_id'])
      .where('g.id', '=', galleryId)
      .executeTakeFirst();
  }

  /** Galleries closing within (now, until] whose clients were not reminded of that expiry yet, with their website. */
  dueExpiryReminders(now: string, until: string, limit: number) {
    return this.db
      .selectFrom('galleries as g')
      .innerJoin('websites as w', 'w.id', 'g.website_id')
      .select(['g.id', 'g.website_id', 'g.name', 'g.full_url_path', 'g.expires_at', 'w.urlname', 'w.hostname', 'w.title', 'w.contact_email'])
      .where('g.expires_at', '>', now)
      .where('g.expires_at', '<=', until)
      .where((eb) => eb.or([eb('g.expiry_reminded_for', 'is', null), eb('g.expiry_reminded_for', '<>', eb.ref('g.expires_at'))]))
      .orderBy('g.expires_at')
      .limit(limit)
      .execute();
  }

  /** Marks the gallery's clients reminded of this expiry; false when another run did, or the expiry moved meanwhile. */
  async claimExpiryReminder(galleryId: number, expiresAt: string): Promise<boolean> {
    const r = await this.db
      .updateTable('galleries')
      .set({ expiry_reminded_for: expiresAt })
      .where('id', '=', galleryId)
      .where('expires_at', '=', expiresAt)
      .where((eb) => eb.or([eb('expiry_reminded_for', 'is', null), eb('expiry_reminded_for', '<>', expiresAt)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async insertAcl(rows: ReadonlyArray<Insertable<GalleryAclTable>>): Promise<void> {
    if (rows.length > 0) await this.db.insertInto('gallery_acl').values([...rows]).execute();
  }

  /** Replaces a gallery's access list (the caller inserts the new entries). */
  async deleteAcl(galleryId: number): Promise<void> {
    await this.db.deleteFrom('gallery_acl').where('gallery_id', '=', galleryId).execute();
  }

  /**
   * New list positions for some galleries of a website (a permutation of the positions they
   * hold, so the list stays dense): rows first go to negative positions so the unique
   * (website_id, list_pos) index never sees two rows on one position mid-statement.
   */
  async setListPositions(websiteId: number, changes: ReadonlyArray<{ id: number; list_pos: number }>): Promise<void> {
    if (changes.length === 0) return;
    for (let i = 0; i < changes.length; i += ROWS_PER_STATEMENT) {
      const chunk = changes.slice(i, i + ROWS_PER_STATEMENT);
      const branches = chunk.map((c) => sql`WHEN ${c.id} THEN CAST(${-c.list_pos} AS INTEGER)`);
      await sql`UPDATE galleries SET list_pos = CASE id ${sql.join(branches, sql` `)} END
        WHERE website_id = ${websiteId} AND id IN (${sql.join(chunk.map((c) => c.id))})`.execute(this.db);
    }
    await sql`UPDATE galleries SET list_pos = -list_pos WHERE website_id = ${websiteId} AND list_pos < 0`.execute(this.db);
  }

  async update(galleryId: number, changes: GalleryChanges): Promise<void> {
    await this.db.updateTable('galleries').set(changes).where('id', '=', galleryId).execute();
  }

  /** Takes one of the parent's sub-gallery places if fewer than `max` are taken; false when full. */
  async takeSubgallerySlot(parentId: number, max: number): Promise<boolean> {
    const result = await this.db
      .updateTable('galleries')
      .set((eb) => ({ subgalleries_count: eb('subgalleries_count', '+', 1) }))
      .where('id', '=', parentId)
      .where('subgalleries_count', '<', max)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async releaseSubgallerySlot(parentId: number): Promise<void> {
    await this.db
      .updateTable('galleries')
      .set((eb) => ({ subgalleries_count: eb('subgalleries_count', '-', 1) }))
      .where('id', '=', parentId)
      .execute();
  }

  /** Every gallery below `oldPath` gets `newPath` as its prefix instead: one statement. */
  async rewriteDescendantPaths(websiteId: number, oldPath: string, newPath: string): Promise<void> {
    const oldPrefix = `${oldPath}/`;
    const newPrefix = `${newPath}/`;
    await sql`UPDATE galleries
      SET full_url_path = ${newPrefix} || substr(full_url_path, ${oldPrefix.length + 1})
      WHERE website_id = ${websiteId} AND substr(full_url_path, 1, ${oldPrefix.length}) = ${oldPrefix}`.execute(this.db);
  }

  /** New manual positions of medias in a gallery: a few statements whatever their number. */
  async setPositions(galleryId: number, changes: ReadonlyArray<{ id: number; position: number }>): Promise<void> {
    for (let i = 0; i < changes.length; i += ROWS_PER_STATEMENT) {
      const chunk = changes.slice(i, i + ROWS_PER_STATEMENT);
      const branches = chunk.map((c) => sql`WHEN ${c.id} THEN CAST(${c.position} AS INTEGER)`);
      await sql`UPDATE media_galleries SET position = CASE media_id ${sql.join(branches, sql` `)} END
        WHERE gallery_id = ${galleryId} AND media_id IN (${sql.join(chunk.map((c) => c.id))})`.execute(this.db);
    }
  }

  /**
   * Before a sub-tree is deleted, on PostgreSQL: the locks its delete takes, in the page stamps' order
   * (src/database/page-stamp-lock-order.ts). With `mediasOf`, that user's medias published in the sub-tree (those a
   * delete with its medias removes, and pending ones: a superset is harmless, a media left out would be
   * locked after the stamps), then the stamps of every owner of a media published there (a shared
   * website's sub-tree may hold several owners' medias). The delete's statements then lock galleries
   * (covers cleared, the sub-tree's rows) and write those stamps through their cascades, and find them
   * taken: a media published into the sub-tree meanwhile, which holds its owner's stamp while it waits
   * for the gallery, goes first instead of failing one of the two with "deadlock detected".
   */
  async lockForDelete(galleryId: number, mediasOf: number | undefined): Promise<void> {
    if (this.dialect !== 'postgres') return;
    const published = sql`SELECT mg.media_id FROM media_galleries mg WHERE mg.gallery_id IN (SELECT id FROM sub)`;
    if (mediasOf !== undefined) {
      // Locked in a subquery: one row back, however many medias.
      await sql`${subtreeCte([galleryId])} SELECT COUNT(*) AS n FROM (
          SELECT m.id FROM medias m WHERE m.owner_id = ${mediasOf} AND m.id IN (${published}) ORDER BY m.id FOR UPDATE
        ) locked`.execute(this.db);
    }
    await lockOwnerStamps(this.db, this.dialect, sql`${subtreeCte([galleryId])} SELECT m.owner_id FROM medias m WHERE m.id IN (${published})`);
  }

  /** Deletes a gallery and everything below it in one statement, so the parent_id foreign key only sees the end state. */
  async deleteSubtree(galleryId: number): Promise<void> {
    await sql`${subtreeCte([galleryId])} DELETE FROM galleries WHERE id IN (SELECT id FROM sub)`.execute(this.db);
  }

  /**
   * After the galleries at `removed` positions were deleted, moves every later
   * gallery down by the number of removed positions before it. Rows first go to
   * negative positions so the unique (website_id, list_pos) index never sees
   * two rows on the same position mid-statement.
   */
  async closeListGaps(websiteId: number, removed: readonly number[]): Promise<void> {
    if (removed.length === 0) return;
    const runs = runsOf([...removed].sort((a, b) => a - b));
    for (let i = 0; i < runs.length; i += RUNS_PER_STATEMENT) {
      const group = runs.slice(i, i + RUNS_PER_STATEMENT);
      const next = runs[i + RUNS_PER_STATEMENT];
      const branches = [...group].reverse().map((r) => sql`WHEN list_pos > ${r.end} THEN CAST(${r.removedSoFar} AS INTEGER)`);
      const upper = next ? sql` AND list_pos < ${next.start}` : sql``;
      await sql`UPDATE galleries SET list_pos = -(list_pos - CASE ${sql.join(branches, sql` `)} ELSE 0 END)
        WHERE website_id = ${websiteId} AND list_pos > ${group[0].end}${upper}`.execute(this.db);
    }
    await sql`UPDATE galleries SET list_pos = -list_pos WHERE website_id = ${websiteId} AND list_pos < 0`.execute(this.db);
  }
}
