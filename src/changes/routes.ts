// The change feed's endpoint (API extension, docs/api.md, docs/integrations.md "Change feed"):
// without `since` the current cursor alone; with it, the user's own changes after it, a page at a time.
import { userOf } from '../http/context.js';
import { fields, input } from '../http/input.js';
import { route, type RouteSpec } from '../http/router.js';
import { decodeCursor } from './cursor.js';
import { CHANGES_DEFAULT_PER_PAGE, CHANGES_MAX_PER_PAGE, type ChangesService } from './service.js';
import { changesXml, cursorXml } from './xml.js';

export function changeRoutes(changes: ChangesService): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/changes.xml',
      input: fields({
        since: input(['since'], (p) => {
          const s = p.str('since');
          return s === undefined ? undefined : decodeCursor(s.trim());
        }, [{ name: 'since', kind: 'text' }]),
        perPage: input(['per_page'], (p) => p.int('per_page', { min: 1, max: CHANGES_MAX_PER_PAGE }) ?? CHANGES_DEFAULT_PER_PAGE, [
          { name: 'per_page', kind: 'int', min: 1, max: CHANGES_MAX_PER_PAGE, default: String(CHANGES_DEFAULT_PER_PAGE) },
        ]),
      }),
      handler: async (ctx, { since, perPage }) => {
        const user = userOf(ctx);
        if (since === undefined) return cursorXml(await changes.current(user));
        return changesXml(await changes.since(user, since, perPage));
      },
    }),
  ];
}
