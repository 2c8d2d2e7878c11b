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
  /** `remember`: rows' values already read, by parameters, valid while the turn's generation is `generation`. */
  remembered?: Map<string, unknown[]>;
  generation: number;
}

/** At most this many rows remembered per query (then all are forgotten), each at most MAX_REMEMBERED_TEXT characters of JSON: a few MiB. */
const MAX_REMEMBERED = 1024;
const MAX_REMEMBERED_TEXT = 2048;

function readValues(json: SQLite.Statement, parameters: unknown[]): unknown[] | undefined {
  const text = json.get(...parameters) as string | undefined;
  return text === undefined ? undefined : (JSON.parse(text) as unknown[]);
}

/**
 * The row's values as last read with these parameters, while the database is
 * unchanged since (the turn's generation); read and remembered otherwise.
 * Callers get a new object made from them each time (toRow).
 */
function rememberedValues(direct: Direct<unknown>, json: SQLite.Statement, parameters: unknown[]): unknown[] | undefined {
  const remembered = direct.remembered!;
  if (direct.generation !== direct.turn.generation) {
    remembered.clear();
    direct.generation = direct.turn.generation;
  }
  const key = keyOf(parameters);
  const known = remembered.get(key);
  if (known) return known;
  // Misses are not remembered: a client asking for what does not exist must not fill the memory.
  const text = json.get(...parameters) as string | undefined;
  if (text === undefined) return undefined;
  const values = JSON.parse(text) as unknown[];
  if (remembered.size >= MAX_REMEMBERED) remembered.clear();
  if (text.length <= MAX_REMEMBERED_TEXT) remembered.set(key, values);
  return values;
}

/** An unambiguous key of a parameter list (texts may hold any character). */
function keyOf(parameters: readonly unknown[]): string {
  let key = '';
  for (const p of parameters) key += typeof p === 'string' ? `s${p.length}:${p}` : `n${String(p)};`;
  return key;
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
function compileOnce<A extends Arg[], R>(build: (db: Db, ...args: A) => Compilable<R>, first: boolean, json = false, remember = false) {
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
    const direct: Direct<R> = {
      turn,
      stmt,
      json: json ? asJsonArray(turn.sqlite, query.sql, names.length) : undefined,
      toRow: rowMaker<R>(names),
      remembered: remember && json ? new Map() : undefined,
      generation: -1,
    };
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
        const values = direct.remembered ? rememberedValues(direct, direct.json, parameters) : readValues(direct.json, parameters);
        return values === undefined ? [] : [toRow(values)];
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
  options: {
    /** Row as JSON on SQLite (asJsonArray): for hot lookups whose columns hold no BLOB and no REAL needing more than 15 digits. */
    json?: boolean;
    /**
     * With json: on SQLite, rows are remembered while the database is
     * unchanged (read-turn.ts tells), so a repeated lookup costs no statement.
     * Only for a query whose answer depends on its parameters and the data
     * alone (no clock, no random) and whose rows are small.
     */
    remember?: boolean;
  } = {},
): (db: Db, ...args: A) => Sometimes<R | undefined> {
  if (options.remember && !options.json) throw new Error('prepared query: remember needs json');
  const run = compileOnce(build, true, options.json, options.remember);
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
