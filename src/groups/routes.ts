// The /medias_groups routes (spec 4.6): collections and smart collections.
import type { Params } from '../http/params.js';
import { userOf } from '../http/context.js';
import { pageParams, PAGINATION_PARAMS, totalPages } from '../http/params.js';
import type { RouteSpec } from '../http/router.js';
import { xmlArray, type XmlObject } from '../http/xml.js';
import { NO_RELATIONS } from '../media/service.js';
import { mediaXml } from '../media/xml.js';
import { ruleParams, readRules } from './rules.js';
import { COLLECTION, SMART, type GroupDetails, type GroupInput, type GroupsService } from './service.js';
import { groupLocation, groupType, groupXml, type GroupView } from './xml.js';

export const GROUPS_MAX_PER_PAGE = 500;

const NAME_PARAMS = [`${COLLECTION}[name]`, `${SMART}[name]`];

function readGroupInput(p: Params): GroupInput {
  return { collectionName: p.str(`${COLLECTION}[name]`), smartName: p.str(`${SMART}[name]`), rules: readRules(p, SMART) };
}

/** The reply of a create or update: the UUID element and the group under its kind's name. */
function kindReply(d: GroupDetails, message: string): XmlObject {
  const stem = groupType(d.group).replace(/_/g, '-');
  return {
    [`${stem}-uuid`]: d.group.uuid,
    [stem]: groupXml(d.group, d.mediasCount, 'details'),
    location: groupLocation(d.group),
    message,
  };
}

export function groupRoutes(groups: GroupsService): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/medias_groups.xml',
      params: ['view', 'artist_id', ...PAGINATION_PARAMS],
      handler: async (ctx) => {
        const view: GroupView = ctx.params.oneOf('view', ['list', 'details'] as const) ?? 'list';
        const page = pageParams(ctx.params, GROUPS_MAX_PER_PAGE, GROUPS_MAX_PER_PAGE);
        const r = await groups.list(userOf(ctx), ctx.params.str('artist_id') || undefined, { limit: page.perPage, offset: (page.page - 1) * page.perPage }, view !== 'list');
        return {
          'medias-groups': xmlArray('medias-group', r.groups.map((g) => groupXml(g, r.counts.get(g.id) ?? 0, view))),
          page: page.page,
          'total-pages': totalPages(r.total, page.perPage),
        };
      },
    },
    {
      method: 'GET',
      path: '/medias_groups/:uuid.xml',
      params: ['view'],
      handler: async (ctx) => {
        const view = ctx.params.oneOf('view', ['details', 'details_with_medias'] as const) ?? 'details';
        const r = await groups.get(userOf(ctx), ctx.path.uuid, view === 'details_with_medias');
        const element = groupXml(r.group, r.mediasCount, 'details');
        if (r.medias) element.medias = xmlArray('media', r.medias.map((m) => mediaXml(m, NO_RELATIONS, 'list')));
        return { 'medias-group': element };
      },
    },
    {
      method: 'POST',
      path: '/medias_groups.xml',
      params: [...NAME_PARAMS, 'artist_id', ...ruleParams(SMART)],
      handler: async (ctx) => {
        const d = await groups.create(userOf(ctx), { ...readGroupInput(ctx.params), artist: ctx.params.str('artist_id') });
        return kindReply(d, d.group.kind === 'smart' ? 'smart collection created' : 'collection created');
      },
    },
    {
      method: 'PUT',
      path: '/medias_groups/:uuid.xml',
      params: [...NAME_PARAMS, ...ruleParams(SMART)],
      handler: async (ctx) => kindReply(await groups.update(userOf(ctx), ctx.path.uuid, readGroupInput(ctx.params)), 'group updated'),
    },
    {
      method: 'DELETE',
      path: '/medias_groups/:uuid.xml',
      params: ['delete_medias', 'medias_count'],
      handler: async (ctx) => {
        const deleteMedias = ctx.params.flag('delete_medias') === true;
        await groups.delete(userOf(ctx), ctx.path.uuid, { deleteMedias, expectedCount: ctx.params.int('medias_count', { min: 0 }) });
        return { message: deleteMedias ? 'group and its medias deleted' : 'group deleted' };
      },
    },
  ];
}
