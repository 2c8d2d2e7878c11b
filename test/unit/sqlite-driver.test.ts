// Which better-sqlite3 runs, and the SQLite inside it. SQLite 3.54 marks each
// `col = ?` term of a join "compile again when bound", and better-sqlite3
// clears a statement's bindings after every run: from 3.54 on, every run of
// such a statement is compiled again (one gallery's details read: 47 µs
// instead of 4 on Node 26). Both drivers are pinned to versions that bundle
// an older SQLite (package.json) until one of the two changes.
import { expect, it } from 'vitest';
import { SQLITE_DRIVER, SQLiteDatabase } from '../../src/database/sqlite-driver.js';

it('loads the driver this Node can run: 12 on Node 20, 13 (Node-API) from Node 22', () => {
  const major = Number(process.versions.node.split('.')[0]);
  expect(SQLITE_DRIVER).toBe(major >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3');
});

it('runs a SQLite older than 3.54 (whose bindings reset recompiles joins on every run)', () => {
  const db = new SQLiteDatabase(':memory:');
  const { v } = db.prepare('select sqlite_version() as v').get() as { v: string };
  db.close();
  const [major, minor] = v.split('.').map(Number);
  expect(major).toBe(3);
  expect(minor, `SQLite ${v}`).toBeLessThan(54);
});
