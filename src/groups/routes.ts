// The /medias_groups routes (spec 4.6): collections and smart collections.
import { userOf, type RequestContext } from '../http/context.js';
import { choice, fields, flag, int, optionalText, pagination, specInput } from '../http/input.js';
import { totalPages } from '../http/params.js';
import { route, type RouteSpec } from '../http/router.js';
import { xmlArray, type XmlObject } from '../http/xml.js';
import { NO_RELATIONS } from '../media/service.js';
import { mediaXml } from '../media/xml.js';
import { GROUP_API, GROUP_CREATE_FIELDS, GROUP_FIELDS } from './fields.js';
import type { GroupDetails, GroupsService } from './service.js';
import { groupLocation, groupType, groupXml } from './xml.js';

export const GROUPS_MAX_PER_PAGE = 500;


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
  // What a /medias_groups/<uuid> path names: one of the user's groups.
  const found = (ctx: RequestContext) => groups.get(userOf(ctx), ctx.path.uuid, false);
  return [
    route({
      method: 'GET',
      path: '/medias_groups.xml',
      input: fields({ view: choice('view', ['list', 'details'] as const, 'list'), artist: optionalText('artist_id'), page: pagination(GROUPS_MAX_PER_PAGE, GROUPS_MAX_PER_PAGE) }),
      handler: async (ctx, { view, artist, page }) => {
        const r = await groups.list(userOf(ctx), artist, { limit: page.perPage, offset: (page.page - 1) * page.perPage }, view !== 'list');
        return {
          'medias-groups': xmlArray('medias-group', r.groups.map((g) => groupXml(g, r.counts.get(g.id) ?? 0, view))),
          page: page.page,
          'total-pages': totalPages(r.total, page.perPage),
        };
      },
    }),
    route({
      method: 'GET',
      path: '/medias_groups/:uuid.xml',
      input: choice('view', ['details', 'details_with_medias'] as const, 'details'),
      found,
      handler: async (ctx, view) => {
        const r = await groups.get(userOf(ctx), ctx.path.uuid, view === 'details_with_medias');
        const element = groupXml(r.group, r.mediasCount, 'details');
        if (r.medias) element.medias = xmlArray('media', r.medias.map((m) => mediaXml(m, NO_RELATIONS, 'list')));
        return { 'medias-group': element };
      },
    }),
    route({
      method: 'POST',
      path: '/medias_groups.xml',
      input: specInput(GROUP_CREATE_FIELDS, GROUP_API),
      handler: async (ctx, input) => {
        const d = await groups.create(userOf(ctx), input);
        return kindReply(d, d.group.kind === 'smart' ? 'smart collection created' : 'collection created');
      },
    }),
    route({
      method: 'PUT',
      path: '/medias_groups/:uuid.xml',
      input: specInput(GROUP_FIELDS, GROUP_API),
      found,
      handler: async (ctx, input) => kindReply(await groups.update(userOf(ctx), ctx.path.uuid, input), 'group updated'),
    }),
    route({
      method: 'DELETE',
      path: '/medias_groups/:uuid.xml',
      input: fields({ deleteMedias: flag('delete_medias'), expectedCount: int('medias_count', { min: 0 }) }),
      found,
      handler: async (ctx, { deleteMedias, expectedCount }) => {
        await groups.delete(userOf(ctx), ctx.path.uuid, { deleteMedias: deleteMedias === true, expectedCount });
        return { message: deleteMedias === true ? 'group and its medias deleted' : 'group deleted' };
      },
    }),
  ];
}
