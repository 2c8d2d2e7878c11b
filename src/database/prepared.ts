// Compile-once queries. Building and compiling a Kysely query costs several
// times what SQLite needs to run a keyed lookup, so the lookups every request
// makes are compiled on first use and later calls only swap their parameters.
import type SQLite from 'better-sqlite3';
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { ReadTurn } from './read-turn.js';
import type { Database } from './schema.js';

// Not db.ts's Db: db.ts registers its SQLite handle (as its ReadTurn) here.
type Db = Kysely<Database>;
/** A value now (SQLite), or later (PostgreSQL): hot paths await only the latter. db.ts re-exports it. */
export type Sometimes<T> = T | Promise<T>;

/** The SQLite handle under each SQLite Db (not its transactions), with its shared read transaction, for the synchronous path. */
const turnOf = new WeakMap<Db, ReadTurn>();

/**
 * Lets the compile-once queries on `db` run their statements on the SQLite
 * handle directly, without Kysely's connection queue, inside the turn's
 * shared read transaction: what a keyed lookup costs is then mostly SQLite's
 * own work.
 */
export function runDirectlyOn(db: Db, turn: ReadTurn): void {
  turnOf.set(db, turn);
}

type Scalar = string | number;
type Arg = Scalar | readonly Scalar[];

/** Lists longer than this are compiled per call: each length is its own SQL text. */
const MAX_CACHED_LIST = 16;

interface Entry<R> {
  query: CompiledQuery<R>;
  /** For each compiled parameter: [argument index, element index or -1], or undefined for a constant. */
  slots: Array<readonly [number, number] | undefined>;
  /** On SQLite, for a read: what runs it on the handle directly. */
  direct?: Direct<R>;
}

interface Direct<R> {
  /** The handle's shared read transaction (read-turn.ts). */
  turn: ReadTurn;
  /** The statement on the handle: it answers rows as arrays, `toRow` makes them objects. */
  stmt: SQLite.Statement;
  /** The statement answering its first row as JSON text (see asJsonArray), when asked for. */
  json?: SQLite.Statement;
  toRow: (values: unknown[]) => R;
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
function rowMaker<R>(names: readonly string[]): (values: unknown[]) => R {
  const fields = names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`);
  return new Function('v', `return { ${fields.join(', ')} };`) as (values: unknown[]) => R;
}

/**
 * The same query answering its row as one JSON array (SQLite's json_array):
 * one string crosses into JavaScript instead of a value per column, which
 * JSON.parse turns into the array faster than the binding fills one. The CTE
 * names the columns by position, so repeated names stay apart.
 */
function asJsonArray(sqlite: SQLite.Database, sql: string, columns: number): SQLite.Statement {
  const names = Array.from({ length: columns }, (_, i) => `c${i}`).join(', ');
  return sqlite.prepare(`with q(${names}) as (${sql}) select json_array(${names}) from q`).pluck(true);
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
function compileOnce<A extends Arg[], R>(build: (db: Db, ...args: A) => Compilable<R>, first: boolean, json = false) {
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
    const turn = turnOf.get(db);
    const stmt = turn?.sqlite.prepare(query.sql);
    // Only reads run directly: a write in the turn's read transaction would be committed after the reply.
    if (!turn || !stmt?.reader || !stmt.readonly) return { query, slots };
    const names = stmt.columns().map((c) => c.name);
    stmt.raw(true);
    const direct = { turn, stmt, json: json ? asJsonArray(turn.sqlite, query.sql, names.length) : undefined, toRow: rowMaker<R>(names) };
    return { query, slots, direct };
  };
  // Queries without list arguments (most of them) have one form: found without building a shape key.
  const scalarOnly = new WeakMap<Db, Entry<R>>();
  return (db: Db, args: A): Sometimes<R[]> => {
    let lists = false;
    for (const a of args) {
      if (!Array.isArray(a)) continue;
      if (a.length > MAX_CACHED_LIST) return db.executeQuery(build(db, ...args).compile()).then((r) => r.rows);
      lists = true;
    }
    let entry: Entry<R> | undefined;
    if (!lists) {
      entry = scalarOnly.get(db);
      if (!entry) scalarOnly.set(db, (entry = compile(db, args)));
    } else {
      const shape = shapeOf(args);
      let forDb = cache.get(db);
      if (!forDb) cache.set(db, (forDb = new Map()));
      entry = forDb.get(shape);
      if (!entry) forDb.set(shape, (entry = compile(db, args)));
    }
    const { query, slots, direct } = entry;
    const given = query.parameters;
    const parameters = new Array<unknown>(given.length);
    for (let k = 0; k < given.length; k++) {
      const slot = slots[k];
      if (!slot) {
        parameters[k] = given[k];
        continue;
      }
      const a = args[slot[0]];
      parameters[k] = slot[1] < 0 ? a : (a as readonly Scalar[])[slot[1]];
    }
    // While a transaction of Kysely's is open on the handle (between its
    // statements), the read waits in Kysely's queue: it must not see uncommitted rows.
    if (direct && direct.turn.enter()) {
      const { stmt, toRow } = direct;
      if (!first) return (stmt.all(...parameters) as unknown[][]).map(toRow);
      if (direct.json) {
        const text = direct.json.get(...parameters) as string | undefined;
        return text === undefined ? [] : [toRow(JSON.parse(text) as unknown[])];
      }
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
export function prepared<A extends Arg[], R>(
  build: (db: Db, ...args: A) => Compilable<R>,
  options: { /** Row as JSON on SQLite (asJsonArray): for hot lookups whose columns hold no BLOB and no REAL needing more than 15 digits. */ json?: boolean } = {},
): (db: Db, ...args: A) => Sometimes<R | undefined> {
  const run = compileOnce(build, true, options.json);
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
