// The change feed's cursor (docs/integrations.md, "Change feed"): opaque to clients, here a
// transaction id and a sequence number, `<xid>.<seq>`, or `0` for the log's start. Bounded and
// checked before any query; a malformed one is the 422 naming `since`.
import { invalid } from '../core/errors.js';

export interface Cursor {
  /** PostgreSQL's xid8 as decimal text (64 bits); always '0' on SQLite. */
  xid: string;
  seq: number;
}

export const START: Cursor = { xid: '0', seq: 0 };
const XID_MAX = (1n << 63n) - 1n;

export function encodeCursor(c: Cursor): string {
  return c.xid === '0' && c.seq === 0 ? '0' : `${c.xid}.${c.seq}`;
}

export function decodeCursor(text: string, name = 'since'): Cursor {
  if (text === '0') return START;
  const m = /^(0|[1-9]\d{0,19})\.(0|[1-9]\d{0,15})$/.exec(text);
  const seq = m ? Number(m[2]) : NaN;
  if (!m || BigInt(m[1]) > XID_MAX || !Number.isSafeInteger(seq)) throw invalid(`${name} is not a cursor this service gave: start from 0 or from a next-cursor`);
  return { xid: m[1], seq };
}

/** Order of two cursors (xid first, as 64-bit integers). */
export function compareCursors(a: Cursor, b: Cursor): number {
  const x = BigInt(a.xid) - BigInt(b.xid);
  return x !== 0n ? (x < 0n ? -1 : 1) : a.seq - b.seq;
}
