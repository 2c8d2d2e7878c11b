// Compile-once queries. Building and compiling a Kysely query costs several
// times what SQLite needs to run a keyed lookup, so the lookups every request
// makes are compiled on first use and later calls only swap their parameters.
import type SQLite from 'better-sqlite3';
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Database } from './schema.js';

// Not db.ts's Db: db.ts registers its SQLite handle here.
type Db = Kysely<Database>;
/** A value now (SQLite), or later (PostgreSQL), as db.ts's Sometimes. */
type Sometimes<T> = T | Promise<T>;

/** The SQLite handle under each SQLite Db (not its transactions), for the synchronous path. */
const sqliteOf = new WeakMap<Db, SQLite.Database>();

/**
 * Lets the compile-once queries on `db` run their statements on the SQLite
 * handle directly, without Kysely's connection queue: what a keyed lookup
 * costs is then mostly SQLite's own work.
 */
export function runDirectlyOn(db: Db, sqlite: SQLite.Database): void {
  sqliteOf.set(db, sqlite);
}

type Scalar = string | number;
type Arg = Scalar | readonly Scalar[];

/** Lists longer than this are compiled per call: each length is its own SQL text. */
const MAX_CACHED_LIST = 16;

interface Entry<R> {
  query: CompiledQuery<R>;
  /** The SQLite handle under the Db, and the statement on it: it answers rows as arrays, `toRow` makes them objects. */
  sqlite?: SQLite.Database;
  stmt?: SQLite.Statement;
  toRow?: (values: unknown[]) => R;
  /** For each compiled parameter: [argument index, element index or -1], or undefined for a constant. */
  slots: Array<readonly [number, number] | undefined>;
}

function marker(arg: number, element: number): string {
  return `\u0000prepared-${arg}-${element}\u0000`;
}

/**
 * Rows as better-sqlite3 builds them cost more than the lookup itself: each
 * one interns every column name and ends up a dictionary-mode object. The
 * statement answers arrays instead, and a function made once from its column
 * names (our own SQL's, quoted as JSON) builds each row as an object literal
 * of one fixed shape. Same keys, same order, the last of a repeated name wins.
 */
function rowMaker<R>(stmt: SQLite.Statement): (values: unknown[]) => R {
  stmt.raw(true);
  const fields = stmt.columns().map((c, i) => `${JSON.stringify(c.name)}: v[${i}]`);
  return new Function('v', `return { ${fields.join(', ')} };`) as (values: unknown[]) => R;
}

/** The cache key of an argument list: the length of each list, or 's' for a scalar. */
function shapeOf(args: readonly Arg[]): string {
  let shape = '';
  for (const a of args) shape += Array.isArray(a) ? `${a.length},` : 's,';
  return shape;
}

/**
 * Wraps a query whose arguments are used as plain parameters: scalars, or
 * lists (for `in`) whose length selects the compiled form. Nothing else may
 * depend on the values (no value may change the SQL text). `first`: only the
 * first row is wanted.
 */
function compileOnce<A extends Arg[], R>(build: (db: Db, ...args: A) => Compilable<R>, first: boolean) {
  const cache = new WeakMap<Db, Map<string, Entry<R>>>();
  const compile = (db: Db, args: A): Entry<R> => {
    const markers = args.map((a, i) => (Array.isArray(a) ? a.map((_, j) => marker(i, j)) : marker(i, -1))) as unknown as A;
    const query = build(db, ...markers).compile();
    const slots = query.parameters.map((p) => {
      const m = typeof p === 'string' ? /^\u0000prepared-(\d+)-(-?\d+)\u0000$/.exec(p) : null;
      return m ? ([Number(m[1]), Number(m[2])] as const) : undefined;
    });
    if (args.some((_, i) => !slots.some((s) => s?.[0] === i))) {
      throw new Error('prepared query: every argument must be used as a plain parameter');
    }
    const sqlite = sqliteOf.get(db);
    const stmt = sqlite?.prepare(query.sql);
    return { query, slots, sqlite, stmt, toRow: stmt?.reader ? rowMaker<R>(stmt) : undefined };
  };
  return (db: Db, args: A): Sometimes<R[]> => {
    if (args.some((a) => Array.isArray(a) && a.length > MAX_CACHED_LIST)) {
      return db.executeQuery(build(db, ...args).compile()).then((r) => r.rows);
    }
    const shape = shapeOf(args);
    let forDb = cache.get(db);
    if (!forDb) cache.set(db, (forDb = new Map()));
    let entry = forDb.get(shape);
    if (!entry) forDb.set(shape, (entry = compile(db, args)));
    const { query, slots, sqlite, stmt, toRow } = entry;
    const parameters = query.parameters.map((p, k) => {
      const slot = slots[k];
      if (!slot) return p;
      const a = args[slot[0]];
      return slot[1] < 0 ? a : (a as readonly Scalar[])[slot[1]];
    });
    // While a transaction is open on the handle (between its statements), the
    // read waits its turn in Kysely's queue: it must not see uncommitted rows.
    if (stmt && !sqlite!.inTransaction) {
      if (!toRow) return stmt.all(...parameters) as R[];
      if (!first) return (stmt.all(...parameters) as unknown[][]).map(toRow);
      const row = stmt.get(...parameters) as unknown[] | undefined;
      return row ? [toRow(row)] : [];
    }
    return db.executeQuery<R>({ ...query, parameters } as CompiledQuery<R>).then((r) => r.rows);
  };
}

/**
 * A compile-once query answering its first row: synchronously on SQLite (a
 * caller's await then costs one tick, not a chain of promises), a promise on
 * PostgreSQL.
 */
export function prepared<A extends Arg[], R>(build: (db: Db, ...args: A) => Compilable<R>): (db: Db, ...args: A) => Sometimes<R | undefined> {
  const run = compileOnce(build, true);
  return (db, ...args) => {
    const rows = run(db, args);
    return rows instanceof Promise ? rows.then((r) => r[0]) : rows[0];
  };
}

/** A compile-once query answering all its rows (synchronously on SQLite, as `prepared`). */
export function preparedAll<A extends Arg[], R>(build: (db: Db, ...args: A) => Compilable<R>): (db: Db, ...args: A) => Sometimes<R[]> {
  const run = compileOnce(build, false);
  return (db, ...args) => run(db, args);
}
