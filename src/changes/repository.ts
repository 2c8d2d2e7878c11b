// SQL of the change feed: one keyset page of an owner's change_log (migration 028) after a cursor,
// over the (owner_id, xid, seq) index. On PostgreSQL only rows older than every running transaction
// (xid below the snapshot's xmin) are final, so a page reads them and that horizon in one snapshot.
import { sql } from 'kysely';
import type { Db } from '../database/db.js';
import type { Dialect } from '../database/migration-helpers.js';
import type { Cursor } from './cursor.js';

export interface ChangeRow {
  xid: string;
  seq: number;
  kind: string;
  uuid: string;
  action: string;
}

export interface ChangeRows {
  rows: ChangeRow[];
  /** PostgreSQL: the snapshot's xmin, below which every row is final; undefined on SQLite. */
  horizon?: string;
}

export class ChangesRepository {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  /** At most `limit` rows of `ownerId` after `after`, in feed order. */
  async after(ownerId: number, after: Cursor, limit: number): Promise<ChangeRows> {
    if (this.dialect === 'sqlite') {
      // One writer at a time: xid is always 0 and seq order is commit order.
      if (after.xid !== '0') return { rows: [] };
      // INDEXED BY: at cursor 0 the planner otherwise took the rowid range and sorted the whole log (bench/changes.ts).
      const r = await sql<Omit<ChangeRow, 'xid'>>`SELECT seq, kind, uuid, action FROM change_log INDEXED BY change_log_feed
        WHERE owner_id = ${ownerId} AND xid = 0 AND seq > ${after.seq} ORDER BY seq LIMIT ${limit}`.execute(this.db);
      return { rows: r.rows.map((row) => ({ ...row, xid: '0' })) };
    }
    const r = await sql<ChangeRow & { horizon: string }>`WITH h AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS horizon)
      SELECT h.horizon::text AS horizon, c.xid::text AS xid, c.seq, c.kind, c.uuid, c.action
      FROM h LEFT JOIN LATERAL (
        SELECT xid, seq, kind, uuid, action FROM change_log
        WHERE owner_id = ${ownerId} AND (xid, seq) > (${after.xid}::xid8, ${after.seq}::bigint) AND xid < h.horizon
        ORDER BY xid, seq LIMIT ${limit}
      ) c ON true
      ORDER BY c.xid, c.seq`.execute(this.db);
    return { rows: r.rows.filter((x) => x.xid !== null), horizon: r.rows[0]!.horizon };
  }

  /** Where a client starting now begins: after every row already final. */
  async now(ownerId: number): Promise<Cursor> {
    if (this.dialect === 'sqlite') {
      const r = await sql<{ seq: number | null }>`SELECT max(seq) AS seq FROM change_log WHERE owner_id = ${ownerId} AND xid = 0`.execute(this.db);
      return { xid: '0', seq: r.rows[0]?.seq ?? 0 };
    }
    const r = await sql<{ horizon: string }>`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon`.execute(this.db);
    return { xid: r.rows[0]!.horizon, seq: 0 };
  }
}
