// The compile-once reads of one event-loop turn share one SQLite read
// transaction (src/store/read-turn.ts): what they see, and that nothing
// Kysely runs, and nothing after the turn, is held up by it. The other
// connection stands for another process on the same database (the admin
// command line).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { migrate, nowIso, openStore, type Db, type Store } from '../../src/store/db.js';
import { prepared } from '../../src/store/prepared.js';

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
  other = new SQLite(join(dir, 'media-portfolio.sqlite3'));
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

// Lookups marked `remember` keep their rows while the database is unchanged
// (a commit by another connection, or a statement of this handle's that may
// write, makes them stale).
const rememberedName = prepared((db: Db, uuid: string) => db.selectFrom('users').select(['first_name', 'last_name']).where('uuid', '=', uuid), { json: true, remember: true });
const remembered = (uuid = 'u-turn') => {
  const row = rememberedName(store.db, uuid);
  if (row instanceof Promise) throw new Error('expected a synchronous read on SQLite');
  return row;
};

it('a remembered row is a new object each time: a caller changing it changes nothing for the next', async () => {
  const first = remembered()!;
  expect(first).toEqual({ first_name: 'Ann', last_name: 'T' });
  first.first_name = 'Changed by a caller';
  await nextTurn();
  expect(remembered()).toEqual({ first_name: 'Ann', last_name: 'T' });
  expect(remembered('no-such-user')).toBeUndefined();
});

it('a remembered row is read again once another process has committed a change, from the next turn', async () => {
  expect(remembered()?.first_name).toBe('Ann');
  await nextTurn();
  expect(remembered()?.first_name).toBe('Ann');
  renameElsewhere('Hal');
  await nextTurn();
  expect(remembered()?.first_name).toBe('Hal');
  // A change elsewhere to another table makes it stale too (SQLite tells that something changed, not what).
  await nextTurn();
  other.prepare("update users set last_name = 'Q' where uuid = 'u-turn'").run();
  await nextTurn();
  expect(remembered()).toEqual({ first_name: 'Hal', last_name: 'Q' });
  other.prepare("update users set last_name = 'T' where uuid = 'u-turn'").run();
});

it('a remembered row is read again after a write of this handle, at once in the same turn, and after a Kysely transaction commits', async () => {
  expect(remembered()?.first_name).toBe('Ann');
  await store.db.updateTable('users').set({ first_name: 'Ida' }).where('uuid', '=', 'u-turn').execute();
  expect(remembered()?.first_name).toBe('Ida');
  await nextTurn();
  expect(remembered()?.first_name).toBe('Ida');
  await store.db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ first_name: 'Jo' }).where('uuid', '=', 'u-turn').execute();
    await trx.updateTable('users').set({ last_name: 'K' }).where('uuid', '=', 'u-turn').execute();
  });
  expect(remembered()).toEqual({ first_name: 'Jo', last_name: 'K' });
  await store.db.updateTable('users').set({ last_name: 'T' }).where('uuid', '=', 'u-turn').execute();
  expect(remembered()).toEqual({ first_name: 'Jo', last_name: 'T' });
});

it('remembered rows are kept per argument list: names that would join to the same text stay apart', async () => {
  const pair = prepared((db: Db, a: string, b: string) => db.selectFrom('users').select('first_name').where('uuid', '=', a).where('email', '=', b), { json: true, remember: true });
  expect(pair(store.db, 'u-turn', 'turn@example.com')).toEqual({ first_name: 'Ann' });
  // 'u-tur' + 'nturn@…' would concatenate to the same text as 'u-turn' + 'turn@…'.
  expect(pair(store.db, 'u-tur', 'nturn@example.com')).toBeUndefined();
  expect(pair(store.db, 'u-turn', 'turn@example.com')).toEqual({ first_name: 'Ann' });
});
