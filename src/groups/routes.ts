// The /medias_groups routes (spec 4.6): collections and smart collections.
import { randomUUID } from 'node:crypto';
import type { RouteSpec } from '../http/router.js';
import { userOf, type RequestContext } from '../http/context.js';
import { conflict, invalid } from '../http/errors.js';
import { pageParams, PAGINATION_PARAMS, totalPages, type Params } from '../http/params.js';
import { xmlArray, type XmlObject } from '../http/xml.js';
import { applyMediaChanges } from '../media/apply.js';
import { loadMediaRecords, NO_RELATIONS } from '../media/queries.js';
import { countCollections, countMedias, countSmartGroups, mediaIds } from '../media/selection.js';
import { dropFilesOfDeletedMedias } from '../media/pending-uploads.js';
import { removeStoredFiles } from '../media/service.js';
import { filterArtistId, ownedArtistId } from '../media/targets.js';
import { mediaXml } from '../media/xml.js';
import { nowIso, type Db } from '../store/db.js';
import { groupScope, requireOwnedGroup, type GroupKind } from './queries.js';
import type { GroupRow } from '../store/schema.js';
import { EMPTY_RULES, readRules, ruleParams } from './rules.js';
import { groupLocation, groupType, groupXml, type GroupView } from './xml.js';

export const GROUPS_MAX_PER_PAGE = 500;
/** details_with_medias lists at most this many medias. */
export const GROUP_MEDIAS_CAP = 5000;
const MAX_NAME = 255;

const COLLECTION = 'medias_collection';
const SMART = 'medias_smart_collection';
const NAME_PARAMS = [`${COLLECTION}[name]`, `${SMART}[name]`];

type GroupWithArtist = GroupRow & { artist_uuid: string | null };

function withArtist(db: Db) {
  return db.selectFrom('media_groups as g').leftJoin('artists as a', 'a.id', 'g.artist_id').selectAll('g').select('a.uuid as artist_uuid');
}

async function loadGroup(db: Db, id: number): Promise<GroupWithArtist> {
  return withArtist(db).where('g.id', '=', id).executeTakeFirstOrThrow();
}

/** medias-count of each group: one statement for the collections, one for the smart ones. */
async function mediasCounts(db: Db, ownerId: number, groups: readonly GroupRow[]): Promise<Map<number, number>> {
  const [plain, smart] = await Promise.all([
    countCollections(db, ownerId, groups.filter((g) => g.kind !== 'smart').map((g) => g.id)),
    countSmartGroups(db, ownerId, groups.filter((g) => g.kind === 'smart').map(groupScope)),
  ]);
  return new Map([...plain, ...smart]);
}

function readName(p: Params, param: string): string | undefined {
  const v = p.str(param);
  if (v === undefined) return undefined;
  const name = v.trim();
  if (name === '') throw invalid(`${param} must not be blank`);
  if (name.length > MAX_NAME) throw invalid(`${param} is longer than ${MAX_NAME} characters`);
  return name;
}

/** The reply of a create or update: the UUID element and the group under its kind's name. */
async function kindReply(db: Db, ownerId: number, id: number, message: string): Promise<XmlObject> {
  const g = await loadGroup(db, id);
  const counts = await mediasCounts(db, ownerId, [g]);
  const stem = groupType(g).replace(/_/g, '-');
  return {
    [`${stem}-uuid`]: g.uuid,
    [stem]: groupXml(g, counts.get(g.id) ?? 0, 'details'),
    location: groupLocation(g),
    message,
  };
}

async function createGroup(ctx: RequestContext): Promise<XmlObject> {
  const user = userOf(ctx);
  const { db } = ctx.services;
  const p = ctx.params;
  const collectionName = readName(p, `${COLLECTION}[name]`);
  const smartName = readName(p, `${SMART}[name]`);
  if (collectionName !== undefined && smartName !== undefined) throw invalid(`give either ${COLLECTION}[name] or ${SMART}[name], not both`);
  if (collectionName === undefined && smartName === undefined) throw invalid(`${COLLECTION}[name] or ${SMART}[name] is required`);
  const kind: GroupKind = smartName !== undefined ? 'smart' : 'collection';
  const rules = await readRules(db, user.id, p, SMART);
  if (rules && kind !== 'smart') throw invalid(`${SMART}[rules] apply to smart collections only`);
  const artist = p.str('artist_id');
  const artistId = artist ? await ownedArtistId(db, user.id, artist, 'artist_id') : null;
  const now = nowIso();
  const row = await db
    .insertInto('media_groups')
    .values({
      uuid: randomUUID(),
      owner_id: user.id,
      artist_id: artistId,
      kind,
      name: (smartName ?? collectionName)!,
      rules: kind === 'smart' ? JSON.stringify(rules ?? EMPTY_RULES) : null,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return kindReply(db, user.id, row.id, kind === 'smart' ? 'smart collection created' : 'collection created');
}

async function updateGroup(ctx: RequestContext): Promise<XmlObject> {
  const user = userOf(ctx);
  const { db } = ctx.services;
  const p = ctx.params;
  const g = await requireOwnedGroup(db, user.id, ctx.path.uuid);
  const own = g.kind === 'smart' ? SMART : COLLECTION;
  const other = g.kind === 'smart' ? COLLECTION : SMART;
  if (p.has(`${other}[name]`)) throw invalid(`${other}[name] does not apply to this group; use ${own}[name]`);
  const name = readName(p, `${own}[name]`);
  const rules = await readRules(db, user.id, p, SMART);
  if (rules && g.kind !== 'smart') throw invalid(`${SMART}[rules] apply to smart collections only`);
  if (name !== undefined || rules !== undefined) {
    await db
      .updateTable('media_groups')
      .set({ ...(name !== undefined ? { name } : {}), ...(rules !== undefined ? { rules: JSON.stringify(rules) } : {}), updated_at: nowIso() })
      .where('id', '=', g.id)
      .execute();
  }
  return kindReply(db, user.id, g.id, 'group updated');
}

async function deleteGroup(ctx: RequestContext): Promise<XmlObject> {
  const user = userOf(ctx);
  const { db } = ctx.services;
  const p = ctx.params;
  const g = await requireOwnedGroup(db, user.id, ctx.path.uuid);
  const deleteMedias = p.flag('delete_medias') === true;
  const expected = p.int('medias_count', { min: 0 });
  const scope = { group: groupScope(g) };
  const keys = await db.transaction().execute(async (trx) => {
    if (expected !== undefined) {
      const actual = await countMedias(trx, user.id, scope);
      if (actual !== expected) throw conflict(`medias_count is ${expected} but the group holds ${actual} medias: nothing was done`, 'count_mismatch');
    }
    const deleted: string[] = [];
    if (deleteMedias) {
      const ids = await mediaIds(trx, user.id, scope);
      const now = nowIso();
      for (let i = 0; i < ids.length; i += 500) {
        const r = await applyMediaChanges(trx, ctx.services.store.dialect, user.id, ids.slice(i, i + 500), { columns: {}, delete: true }, now);
        deleted.push(...(await dropFilesOfDeletedMedias(trx, r.affectedIds, r.deletedStorageKeys)));
      }
    }
    await trx.deleteFrom('media_groups').where('id', '=', g.id).execute();
    return deleted;
  });
  await removeStoredFiles(ctx, keys);
  return { message: deleteMedias ? 'group and its medias deleted' : 'group deleted' };
}

export function groupRoutes(): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/medias_groups.xml',
      params: ['view', 'artist_id', ...PAGINATION_PARAMS],
      handler: async (ctx) => {
        const user = userOf(ctx);
        const { db } = ctx.services;
        const view: GroupView = ctx.params.oneOf('view', ['list', 'details'] as const) ?? 'list';
        const page = pageParams(ctx.params, GROUPS_MAX_PER_PAGE, GROUPS_MAX_PER_PAGE);
        const artist = ctx.params.str('artist_id');
        const artistId = artist ? await filterArtistId(db, user.id, artist) : undefined;
        let q = withArtist(db).where('g.owner_id', '=', user.id);
        if (artistId !== undefined) q = q.where('g.artist_id', '=', artistId);
        const [{ total }] = await q.clearSelect().select((eb) => eb.fn.countAll<number>().as('total')).execute();
        const rows = await q.orderBy('g.id').limit(page.perPage).offset((page.page - 1) * page.perPage).execute();
        const counts = view === 'list' ? new Map<number, number>() : await mediasCounts(db, user.id, rows);
        return {
          'medias-groups': xmlArray('medias-group', rows.map((g) => groupXml(g, counts.get(g.id) ?? 0, view))),
          page: page.page,
          'total-pages': totalPages(Number(total), page.perPage),
        };
      },
    },
    {
      method: 'GET',
      path: '/medias_groups/:uuid.xml',
      params: ['view'],
      handler: async (ctx) => {
        const user = userOf(ctx);
        const { db } = ctx.services;
        const view = ctx.params.oneOf('view', ['details', 'details_with_medias'] as const) ?? 'details';
        const found = await requireOwnedGroup(db, user.id, ctx.path.uuid);
        const g = await loadGroup(db, found.id);
        const counts = await mediasCounts(db, user.id, [g]);
        const element = groupXml(g, counts.get(g.id) ?? 0, 'details');
        if (view === 'details_with_medias') {
          const ids = await mediaIds(db, user.id, { group: groupScope(g) }, { limit: GROUP_MEDIAS_CAP, offset: 0 });
          const records = await loadMediaRecords(db, ids);
          element.medias = xmlArray('media', records.map((m) => mediaXml(m, NO_RELATIONS, 'list')));
        }
        return { 'medias-group': element };
      },
    },
    {
      method: 'POST',
      path: '/medias_groups.xml',
      params: [...NAME_PARAMS, 'artist_id', ...ruleParams(SMART)],
      handler: createGroup,
    },
    {
      method: 'PUT',
      path: '/medias_groups/:uuid.xml',
      params: [...NAME_PARAMS, ...ruleParams(SMART)],
      handler: updateGroup,
    },
    {
      method: 'DELETE',
      path: '/medias_groups/:uuid.xml',
      params: ['delete_medias', 'medias_count'],
      handler: deleteGroup,
    },
  ];
}
