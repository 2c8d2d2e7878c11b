// GET /artists/<uuid>/watermarks.xml: the watermarks of a media library the
// user owns (client-compat: uuid, text, file-name, width, height, strength,
// position, tile, default).
import type { RouteSpec } from '../http/router.js';
import { userOf } from '../http/context.js';
import { notFound } from '../http/errors.js';
import { pageParams, PAGINATION_PARAMS, totalPages } from '../http/params.js';
import { xmlArray, type XmlObject } from '../http/xml.js';

export const WATERMARKS_MAX_PER_PAGE = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function watermarkRoutes(): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/artists/:uuid/watermarks.xml',
      params: ['view', ...PAGINATION_PARAMS],
      handler: async (ctx) => {
        const { db } = ctx.services;
        const uuid = ctx.path.uuid;
        const artist = UUID.test(uuid)
          ? await db.selectFrom('artists').select('id').where('uuid', '=', uuid.toLowerCase()).where('owner_id', '=', userOf(ctx).id).executeTakeFirst()
          : undefined;
        if (!artist) throw notFound(`media library ${uuid}`);
        const view = ctx.params.oneOf('view', ['list', 'details'] as const) ?? 'list';
        const page = pageParams(ctx.params, WATERMARKS_MAX_PER_PAGE, WATERMARKS_MAX_PER_PAGE);
        const [{ total }] = await db
          .selectFrom('watermarks')
          .select((eb) => eb.fn.countAll<number>().as('total'))
          .where('artist_id', '=', artist.id)
          .execute();
        const rows = await db
          .selectFrom('watermarks')
          .selectAll()
          .where('artist_id', '=', artist.id)
          .orderBy('id')
          .limit(page.perPage)
          .offset((page.page - 1) * page.perPage)
          .execute();
        const items = rows.map((w): XmlObject => {
          const list: XmlObject = { uuid: w.uuid, text: w.text, 'file-name': w.file_name, default: w.is_default === 1 };
          if (view === 'list') return list;
          return {
            uuid: w.uuid,
            text: w.text,
            'file-name': w.file_name,
            width: w.width,
            height: w.height,
            strength: w.strength,
            position: w.position,
            tile: w.tile === 1,
            default: w.is_default === 1,
            'created-at': new Date(w.created_at),
          };
        });
        return { watermarks: xmlArray('watermark', items), 'total-pages': totalPages(Number(total), page.perPage) };
      },
    },
  ];
}
