// The compile-once reads of one event-loop turn share one SQLite read
// transaction (src/database/read-turn.ts): what they see, and that nothing
// Kysely runs, and nothing after the turn, is held up by it. The other
// connection stands for another process on the same database (the admin
// command line).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type SQLite from 'better-sqlite3';
import { SQLiteDatabase } from '../../src/database/sqlite-driver.js';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { migrate, nowIso, openStore, type Db, type Store } from '../../src/database/db.js';
import { prepared } from '../../src/database/prepared.js';

let dir: string;
let store: Store;
let other: SQLite.Database;

const nameOf = prepared((db: Db, uuid: string) => db.selectFrom('users').select('first_name').where('uuid', '=', uuid));
const name = (uuid = 'u-turn') => {
  const row = nameOf(store.db, uuid);
  if (row instanceof Promise) throw new Error('expected a synchronous read on SQLite');
  return row?.first_name;
};
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const renameElsewhere = (to: string) => other.prepare("update users set first_name = ? where uuid = 'u-turn'").run(to);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mps-read-turn-'));
  store = openStore({ dataDir: dir });
  await migrate(store);
  await store.db.insertInto('users').values({ uuid: 'u-turn', email: 'turn@example.com', password_hash: 'x', first_name: 'Ann', last_name: 'T', created_at: nowIso() }).execute();
  other = new SQLiteDatabase(join(dir, 'media-portfolio.sqlite3'));
  other.pragma('busy_timeout = 0');
});
beforeEach(async () => {
  await nextTurn();
  renameElsewhere('Ann');
});
afterAll(async () => {
  other.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

it('the reads of one turn see the database as it was at the first of them; the next turn sees what another process wrote meanwhile', async () => {
  expect(name()).toBe('Ann');
  renameElsewhere('Bea');
  expect(name()).toBe('Ann');
  await nextTurn();
  expect(name()).toBe('Bea');
});

it('a statement Kysely runs ends the shared read first: a write and then a read in the same turn see the write', async () => {
  expect(name()).toBe('Ann');
  await store.db.updateTable('users').set({ first_name: 'Cy' }).where('uuid', '=', 'u-turn').execute();
  expect(name()).toBe('Cy');
  // A plain read through Kysely also ends it, so the turn's next read sees another process's write.
  renameElsewhere('Dot');
  await store.db.selectFrom('users').select('id').where('uuid', '=', 'u-turn').execute();
  expect(name()).toBe('Dot');
});

it('a Kysely transaction starts right after a read of the turn, and reads during it wait for its commit', async () => {
  expect(name()).toBe('Ann');
  let during: Promise<string | undefined> | undefined;
  await store.db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ first_name: 'Eve' }).where('uuid', '=', 'u-turn').execute();
    during = Promise.resolve(nameOf(store.db, 'u-turn')).then((r) => r?.first_name);
  });
  expect(await during).toBe('Eve');
  expect(name()).toBe('Eve');
});

it('holds nothing once the turn is over: another process checkpoints the whole log and writes at once', async () => {
  for (let i = 0; i < 20; i++) renameElsewhere(`N${i}`);
  expect(name()).toBe('N19');
  // During the turn, the shared read holds its snapshot: a checkpoint cannot reset the log under it.
  expect(other.pragma('wal_checkpoint(TRUNCATE)')).toEqual([{ busy: 1, log: expect.any(Number), checkpointed: expect.any(Number) }]);
  await nextTurn();
  expect(other.pragma('wal_checkpoint(TRUNCATE)')).toEqual([{ busy: 0, log: 0, checkpointed: 0 }]);
  renameElsewhere('Fay');
  expect(name()).toBe('Fay');
});

it('a store closed during a turn closes cleanly, and the end of that turn finds nothing to do', async () => {
  const second = openStore({ dataDir: dir });
  expect(await nameOf(second.db, 'u-turn')).toEqual({ first_name: 'Ann' });
  await second.close();
  // An error thrown at the end of the turn would surface as an unhandled error and fail the run.
  await nextTurn();
  expect(name()).toBe('Ann');
});

it('a compile-once write (UPDATE … RETURNING) never runs in the shared read: it is committed before it answers', async () => {
  const rename = prepared((db: Db, uuid: string, to: string) => db.updateTable('users').set({ first_name: to }).where('uuid', '=', uuid).returning('first_name'));
  expect(name()).toBe('Ann');
  expect(await rename(store.db, 'u-turn', 'Gus')).toEqual({ first_name: 'Gus' });
  expect(other.prepare("select first_name from users where uuid = 'u-turn'").pluck().get()).toBe('Gus');
});
