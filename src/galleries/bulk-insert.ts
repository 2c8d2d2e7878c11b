// Many sub-galleries under one parent in a few statements (imports, test and
// benchmark fixtures): same rules as one create (unique url paths, dense
// list positions, the 1000 sub-galleries limit, the tree limits of
// limits.ts), without a query per gallery.
import { randomUUID } from 'node:crypto';
import { invalid } from '../http/errors.js';
import type { Db } from '../store/db.js';
import { checkDepth, checkFullUrlPathLength, checkWebsiteRoom, levelOf } from './limits.js';
import { nextListPos } from './list-positions.js';
import type { GalleryRow } from '../store/schema.js';
import { baseUrlPath, childFullUrlPath, uniqueUrlPath } from './url-path.js';
import { lockWebsite, MAX_SUBGALLERIES } from './write.js';

const ROWS_PER_INSERT = 200;

/** Inserts children named `names` under `parent`; returns their ids in order. Run it in a transaction. */
export async function insertChildren(db: Db, parent: GalleryRow, names: readonly string[], now: string): Promise<number[]> {
  await lockWebsite(db, parent.website_id, now);
  const current = await db.selectFrom('galleries').select(['subgalleries_count']).where('id', '=', parent.id).executeTakeFirstOrThrow();
  if (current.subgalleries_count + names.length > MAX_SUBGALLERIES) {
    throw invalid(`gallery ${parent.uuid} would hold more than ${MAX_SUBGALLERIES} sub-galleries`);
  }
  checkDepth(levelOf(parent.full_url_path) + 1, parent.uuid);
  await checkWebsiteRoom(db, parent.website_id, names.length);
  const style = await db.selectFrom('display_styles').select('id').where('website_id', '=', parent.website_id).orderBy('is_default', 'desc').orderBy('id').executeTakeFirst();
  const taken = new Set((await db.selectFrom('galleries').select('url_path').where('parent_id', '=', parent.id).execute()).map((r) => r.url_path));
  let listPos = await nextListPos(db, parent.website_id);
  const rows = names.map((name) => {
    const urlPath = uniqueUrlPath(baseUrlPath(undefined, name), taken);
    taken.add(urlPath);
    const fullUrlPath = childFullUrlPath(parent.full_url_path, urlPath);
    checkFullUrlPathLength(fullUrlPath.length, `gallery[name] ${JSON.stringify(name)}`);
    return {
      uuid: randomUUID(),
      website_id: parent.website_id,
      parent_id: parent.id,
      list_pos: listPos++,
      name,
      url_path: urlPath,
      full_url_path: fullUrlPath,
      description: null,
      display_style_id: style?.id ?? null,
      published_at: now,
      created_at: now,
      updated_at: now,
    };
  });
  const ids: number[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const inserted = await db.insertInto('galleries').values(rows.slice(i, i + ROWS_PER_INSERT)).returning('id').execute();
    ids.push(...inserted.map((r) => r.id));
  }
  await db
    .updateTable('galleries')
    .set((eb) => ({ subgalleries_count: eb('subgalleries_count', '+', names.length) }))
    .where('id', '=', parent.id)
    .execute();
  return ids;
}
