// galleries.list_pos: a dense 1..n position per website, so that page N of
// the gallery list is an index range. New galleries go last; a delete closes
// the gaps it leaves, in a few statements whatever the number of rows moved.
import { sql } from 'kysely';
import type { Db } from '../store/db.js';

/** CASE branches per statement when closing gaps (keeps statements and parameter counts small). */
const RUNS_PER_STATEMENT = 200;

export async function nextListPos(db: Db, websiteId: number): Promise<number> {
  const row = await db.selectFrom('galleries').select((eb) => eb.fn.max('list_pos').as('max')).where('website_id', '=', websiteId).executeTakeFirst();
  return Number(row?.max ?? 0) + 1;
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

/**
 * After the galleries at `removed` positions were deleted, moves every later
 * gallery down by the number of removed positions before it. Rows first go to
 * negative positions so the unique (website_id, list_pos) index never sees
 * two rows on the same position mid-statement.
 */
export async function closeListGaps(db: Db, websiteId: number, removed: readonly number[]): Promise<void> {
  if (removed.length === 0) return;
  const runs = runsOf([...removed].sort((a, b) => a - b));
  for (let i = 0; i < runs.length; i += RUNS_PER_STATEMENT) {
    const group = runs.slice(i, i + RUNS_PER_STATEMENT);
    const next = runs[i + RUNS_PER_STATEMENT];
    const branches = [...group].reverse().map((r) => sql`WHEN list_pos > ${r.end} THEN CAST(${r.removedSoFar} AS INTEGER)`);
    const upper = next ? sql` AND list_pos < ${next.start}` : sql``;
    await sql`UPDATE galleries SET list_pos = -(list_pos - CASE ${sql.join(branches, sql` `)} ELSE 0 END)
      WHERE website_id = ${websiteId} AND list_pos > ${group[0].end}${upper}`.execute(db);
  }
  await sql`UPDATE galleries SET list_pos = -list_pos WHERE website_id = ${websiteId} AND list_pos < 0`.execute(db);
}
