// Which better-sqlite3 this Node can run. 12 is built on Node's own ObjectWrap:
// on Node 24 its statements' finalizers abort the process (`Assertion failed:
// (env) != nullptr` in RemoveEnvironmentCleanupHook, at start or at exit).
// 13 is built on Node-API and fixes that, but needs Node 22 and crashes
// Node 20 as it loads. Both are installed (13 as `better-sqlite3-napi`); only
// the one that fits is loaded. The API is the same. 13 stays at 13.0.3: later
// ones bundle SQLite 3.54, which compiles a join again on every run once
// better-sqlite3 clears its bindings (test/unit/sqlite-driver.test.ts).
import { createRequire } from 'node:module';
import type SQLite from 'better-sqlite3';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

export const SQLITE_DRIVER = NODE_MAJOR >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';

export const SQLiteDatabase: typeof SQLite = createRequire(import.meta.url)(SQLITE_DRIVER);
