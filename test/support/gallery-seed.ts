// Many sub-galleries under one parent in a few statements, for test and
// benchmark fixtures only (no route creates galleries in bulk): same rules
// as one create (unique url paths, dense list positions, the 1000
// sub-galleries limit, the tree limits), without a request per gallery.
import { randomUUID } from 'node:crypto';
import { checkDepth, checkFullUrlPathLength, levelOf, MAX_GALLERIES_PER_WEBSITE } from '../../src/galleries/limits.js';
import { invalid } from '../../src/core/errors.js';
import { MAX_SUBGALLERIES } from '../../src/galleries/service.js';
import { baseUrlPath, childFullUrlPath, uniqueUrlPath } from '../../src/galleries/url-path.js';
import type { Db } from '../../src/database/db.js';
import type { GalleryRow } from '../../src/database/schema.js';

const ROWS_PER_INSERT = 200;

/** The next free list position of a website (positions are dense 1..n). */
export async function nextListPos(db: Db, websiteId: number): Promise<number> {
  const row = await db.selectFrom('galleries').select((eb) => eb.fn.max('list_pos').as('max')).where('website_id', '=', websiteId).executeTakeFirst();
  return Number(row?.max ?? 0) + 1;
}

/** Inserts children named `names` under `parent`; returns their ids in order. Run it in a transaction. */
export async function insertChildren(db: Db, parent: GalleryRow, names: readonly string[], now: string): Promise<number[]> {
  await db.updateTable('websites').set({ updated_at: now }).where('id', '=', parent.website_id).execute();
  const current = await db.selectFrom('galleries').select(['subgalleries_count']).where('id', '=', parent.id).executeTakeFirstOrThrow();
  if (current.subgalleries_count + names.length > MAX_SUBGALLERIES) {
    throw invalid(`gallery ${parent.uuid} would hold more than ${MAX_SUBGALLERIES} sub-galleries`);
  }
  checkDepth(levelOf(parent.full_url_path) + 1, parent.uuid);
  let listPos = await nextListPos(db, parent.website_id);
  if (listPos - 1 + names.length > MAX_GALLERIES_PER_WEBSITE) throw invalid(`gallery[parent]: the website would hold more than ${MAX_GALLERIES_PER_WEBSITE} galleries`);
  const style = await db.selectFrom('display_styles').select('id').where('website_id', '=', parent.website_id).orderBy('is_default', 'desc').orderBy('id').executeTakeFirst();
  const taken = new Set((await db.selectFrom('galleries').select('url_path').where('parent_id', '=', parent.id).execute()).map((r) => r.url_path));
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
