// Which better-sqlite3 this Node can run: 12 (ObjectWrap) aborts the process on Node 24, 13 (Node-API,
// installed as `better-sqlite3-napi`) crashes Node 20 as it loads; both are installed and only the one
// that fits is loaded. 13 stays at 13.0.3: later ones bundle SQLite 3.54, which compiles a join again
// on every run (test/unit/sqlite-driver.test.ts; docs/testing.md, "The SQLite drivers, pinned").
import { createRequire } from 'node:module';
import type SQLite from 'better-sqlite3';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

export const SQLITE_DRIVER = NODE_MAJOR >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';

export const SQLiteDatabase: typeof SQLite = createRequire(import.meta.url)(SQLITE_DRIVER);
