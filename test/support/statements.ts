// The reads one request sends, for the statement-count tests (a page costs what it shows, not what
// the library holds). On SQLite every statement the handle runs: the compile-once lookups
// (src/database/prepared.ts) run there directly, past the query builder, for lists of up to 16
// values, and through it for longer ones, so watching the builder alone would see a longer list as
// more statements. On PostgreSQL every query the builder executes.
import SQLite from 'better-sqlite3';
import type { DbKind } from './service.js';

/** Runs `send` and returns its answer with the SELECTs it sent (not the job worker's or the webhook dispatcher's polls). */
export async function readsOf<T>(kind: DbKind, db: { getExecutor(): unknown }, send: () => Promise<T>): Promise<{ answer: T; statements: string[] }> {
  const seen: string[] = [];
  const restore: Array<() => void> = [];
  if (kind === 'sqlite') {
    const probe = new SQLite(':memory:');
    const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<'all' | 'get' | 'iterate', (...a: unknown[]) => unknown>;
    probe.close();
    for (const name of ['all', 'get', 'iterate'] as const) {
      const orig = proto[name];
      proto[name] = function (this: { source: string }, ...a: unknown[]) {
        seen.push(this.source);
        return orig.apply(this, a);
      };
      restore.push(() => (proto[name] = orig));
    }
  } else {
    const ex = db.getExecutor() as { executeQuery: (...a: unknown[]) => Promise<unknown> };
    const orig = ex.executeQuery;
    ex.executeQuery = function (this: unknown, ...a: unknown[]) {
      seen.push((a[0] as { sql: string }).sql);
      return orig.apply(this, a);
    };
    restore.push(() => (ex.executeQuery = orig));
  }
  let answer: T;
  try {
    answer = await send();
  } finally {
    for (const r of restore) r();
  }
  return { answer, statements: seen.filter((q) => /^\s*(select|with)\b/i.test(q) && !/\b(jobs|webhook_\w+)\b/i.test(q)) };
}

/** A statement's shape: a list's length aside (`in ($1, $2…)`), the compile-once form of a row as JSON (prepared.ts) the same as the plain one. */
export const shapeOf = (qs: string[]): string[] =>
  qs
    .map((q) =>
      q
        .replace(/^with q\([^)]*\) as \(([\s\S]*)\) select json_array\([^)]*\) from q$/, '$1')
        .replace(/\((?:\$\d+|\?)(?:, (?:\$\d+|\?))*\)/g, '(…)')
        .replace(/\$\d+/g, '?'),
    )
    .sort();
