// Opens the database named by the configuration: a SQLite file in DATA_DIR
// (WAL) by default, PostgreSQL when DATABASE_URL is a postgres:// URL.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';
import type pgModule from 'pg';
import { MemoryCache } from '../ops/cache.js';
import { ensurePrivateDir, ensurePrivateFile, tightenIfPresent } from '../core/private-files.js';
import type { Database } from './schema.js';
import type { Dialect } from './migration-helpers.js';
import { migrationsFor } from './migrations/index.js';
import { runDirectlyOn } from './prepared.js';
import { ReadTurn } from './read-turn.js';
import { SQLiteDatabase } from './sqlite-driver.js';

export type Db = Kysely<Database>;

export interface Store {
  db: Db;
  dialect: Dialect;
  /** PostgreSQL's pool counts (metrics); absent on SQLite. */
  poolStats?(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

export type { Sometimes } from './prepared.js';

let pgLoaded: typeof pgModule | undefined;

/** pg, loaded for PostgreSQL only: a process on SQLite (the admin command line's default) starts without it. */
function loadPg(): typeof pgModule {
  if (!pgLoaded) {
    pgLoaded = createRequire(import.meta.url)('pg') as typeof pgModule;
    // COUNT(*) and bigint columns arrive as strings from pg; our values fit in a double.
    pgLoaded.types.setTypeParser(20, (v) => Number(v));
  }
  return pgLoaded;
}

export function openStore(opts: { dataDir: string; databaseUrl?: string }): Store {
  if (opts.databaseUrl && /^postgres(ql)?:\/\//.test(opts.databaseUrl)) {
    // JIT compilation costs ~40 ms on the tree queries and gains nothing on short OLTP ones.
    const pg = loadPg();
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10, options: '-c jit=off' });
    // An idle connection dropped by the server (restart, failover) must not crash the process;
    // the pool replaces it on the next checkout.
    pool.on('error', () => {});
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      dialect: 'postgres',
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      close: () => db.destroy(),
    };
  }
  if (opts.databaseUrl) throw new Error(`DATABASE_URL must be a postgres:// URL, got ${opts.databaseUrl.split(':')[0]}:…`);
  // The database holds API and TOTP secrets: private before SQLite opens it.
  // SQLite creates the -wal and -shm files with the database file's mode.
  ensurePrivateDir(opts.dataDir);
  const file = join(opts.dataDir, 'media-portfolio.sqlite3');
  ensurePrivateFile(file);
  tightenIfPresent(`${file}-wal`);
  tightenIfPresent(`${file}-shm`);
  const sqlite = new SQLiteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 10000');
  // The compile-once reads of one event-loop turn share a read transaction (read-turn.ts).
  const turn = new ReadTurn(sqlite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite, turn) }) });
  runDirectlyOn(db, turn);
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

/**
 * Kysely prepares every query anew; preparing costs more than running a
 * primary-key lookup, so statements are kept by SQL text. Kysely's SQLite
 * driver runs one query at a time, so a cached statement is never shared.
 * Kysely asks for its statement right before running it: the turn's shared
 * read transaction ends there, so what Kysely runs (a write, a transaction)
 * runs outside it. The service's own queries are a few hundred texts; the
 * bound is for lists whose length shapes the text.
 */
const STATEMENT_CACHE_ENTRIES = 2000;

function withStatementCache(sqlite: SQLite.Database, turn: ReadTurn): SqliteDatabase {
  const cache = new MemoryCache<string, SQLite.Statement>({ entries: STATEMENT_CACHE_ENTRIES, ttlMs: Infinity });
  return {
    close: () => {
      turn.end();
      sqlite.close();
    },
    prepare(sql: string) {
      turn.end();
      let stmt = cache.get(sql);
      if (!stmt) {
        stmt = sqlite.prepare(sql);
        cache.set(sql, stmt);
      }
      return stmt as unknown as SqliteStatement;
    },
  };
}

/** Applies every migration not yet applied; safe to call from several processes. */
export async function migrate(store: Store): Promise<void> {
  const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => migrationsFor(store.dialect) } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? error}`, { cause: error });
  }
}

export function nowIso(): string {
  return new Date().toISOString();
}
