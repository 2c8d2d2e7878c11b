// Compile-once queries. Building and compiling a Kysely query costs several
// times what SQLite needs to run a keyed lookup, so the lookups every request
// makes are compiled on first use and later calls only swap their parameters.
import type SQLite from 'better-sqlite3';
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Database } from './schema.js';

// Not db.ts's Db: db.ts registers its SQLite handle here.
type Db = Kysely<Database>;

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
  /** The statement on the SQLite handle, when the Db has one. */
  stmt?: SQLite.Statement;
  /** For each compiled parameter: [argument index, element index or -1], or undefined for a constant. */
  slots: Array<readonly [number, number] | undefined>;
}

function marker(arg: number, element: number): string {
  return `\u0000prepared-${arg}-${element}\u0000`;
}

/**
 * Wraps a query whose arguments are used as plain parameters: scalars, or
 * lists (for `in`) whose length selects the compiled form. Nothing else may
 * depend on the values (no value may change the SQL text).
 */
function compileOnce<A extends Arg[], R>(build: (db: Db, ...args: A) => Compilable<R>) {
  const cache = new WeakMap<Db, Map<string, Entry<R>>>();
  return async (db: Db, args: A): Promise<R[]> => {
    if (args.some((a) => Array.isArray(a) && a.length > MAX_CACHED_LIST)) {
      return (await db.executeQuery(build(db, ...args).compile())).rows;
    }
    const shape = args.map((a) => (Array.isArray(a) ? a.length : 's')).join(',');
    let forDb = cache.get(db);
    if (!forDb) cache.set(db, (forDb = new Map()));
    let entry = forDb.get(shape);
    if (!entry) {
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
      entry = { query, slots, stmt: sqlite?.prepare(query.sql) };
      forDb.set(shape, entry);
    }
    const { query, slots, stmt } = entry;
    const parameters = query.parameters.map((p, k) => {
      const slot = slots[k];
      if (!slot) return p;
      const a = args[slot[0]];
      return slot[1] < 0 ? a : (a as readonly Scalar[])[slot[1]];
    });
    // While a transaction is open on the handle (between its statements), the
    // read waits its turn in Kysely's queue: it must not see uncommitted rows.
    if (stmt && !sqliteOf.get(db)!.inTransaction) return stmt.all(...parameters) as R[];
    return (await db.executeQuery<R>({ ...query, parameters } as CompiledQuery<R>)).rows;
  };
}

/** A compile-once query answering its first row. */
export function prepared<A extends Arg[], R>(build: (db: Db, ...args: A) => Compilable<R>): (db: Db, ...args: A) => Promise<R | undefined> {
  const run = compileOnce(build);
  return async (db, ...args) => (await run(db, args))[0];
}

/** A compile-once query answering all its rows. */
export function preparedAll<A extends Arg[], R>(build: (db: Db, ...args: A) => Compilable<R>): (db: Db, ...args: A) => Promise<R[]> {
  const run = compileOnce(build);
  return (db, ...args) => run(db, args);
}
