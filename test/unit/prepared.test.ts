// Compile-once queries must answer exactly what the query built afresh answers.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrate, nowIso, openStore, type Db, type Store } from '../../src/database/db.js';
import { prepared, preparedAll } from '../../src/database/prepared.js';
import { UsersRepository } from '../../src/users/repository.js';

let store: Store;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mps-prepared-'));
  store = openStore({ dataDir: dir });
  await migrate(store);
  const now = nowIso();
  await store.db
    .insertInto('users')
    .values(['a', 'b', 'c', 'd'].map((n, i) => ({ uuid: `u-${n}`, email: `${n}@example.com`, password_hash: 'x', first_name: n.toUpperCase(), last_name: String(i), created_at: now })))
    .execute();
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const byEmailOrName = prepared((db: Db, email: string, name: string) =>
  db.selectFrom('users').select('uuid').where((eb) => eb.or([eb('email', '=', email), eb('first_name', '=', name)])).where('last_name', '!=', '9').orderBy('id'),
);
const byUuids = preparedAll((db: Db, uuids: readonly string[], minLast: string) =>
  db.selectFrom('users').select('email').where('uuid', 'in', uuids).where('last_name', '>=', minLast).orderBy('email'),
);

it('swaps parameters on every call and keeps the constants', async () => {
  expect(await byEmailOrName(store.db, 'b@example.com', 'nobody')).toEqual({ uuid: 'u-b' });
  expect(await byEmailOrName(store.db, 'nobody', 'C')).toEqual({ uuid: 'u-c' });
  expect(await byEmailOrName(store.db, 'nobody', 'nobody')).toBeUndefined();
});

it('compiles one form per list length, and answers like a fresh query', async () => {
  expect(await byUuids(store.db, ['u-a'], '0')).toEqual([{ email: 'a@example.com' }]);
  expect(await byUuids(store.db, ['u-d', 'u-b'], '0')).toEqual([{ email: 'b@example.com' }, { email: 'd@example.com' }]);
  expect(await byUuids(store.db, ['u-d', 'u-b'], '2')).toEqual([{ email: 'd@example.com' }]);
  expect(await byUuids(store.db, ['u-c'], '0')).toEqual([{ email: 'c@example.com' }]);
  const many = Array.from({ length: 40 }, (_, i) => `u-${'abcd'[i % 4]}`);
  expect(await byUuids(store.db, many, '0')).toHaveLength(4);
});

it('builds rows with the keys, order and values a fresh query gives, nulls and repeated names included', async () => {
  const build = (db: Db, email: string) =>
    db
      .selectFrom('users as u')
      .leftJoin('users as other', 'other.email', 'u.first_name')
      .selectAll('u')
      .select(['other.uuid as other_uuid', 'u.last_name as first_name'])
      .where('u.email', '=', email);
  const compiled = prepared(build);
  const fresh = await build(store.db, 'c@example.com').executeTakeFirstOrThrow();
  const row = await compiled(store.db, 'c@example.com');
  expect(row).toEqual(fresh);
  expect(Object.keys(row!)).toEqual(Object.keys(fresh));
  expect(row!.other_uuid).toBeNull();
  // The later column of a repeated name wins, as in better-sqlite3's own rows.
  expect(row!.first_name).toBe('2');
});

it('answers a row carried as JSON exactly as a fresh query: text with quotes, escapes and non-ASCII, integers, nulls, repeated names', async () => {
  const odd = 'Zoë "quoted" \\ back\nline\ttab \u0001 \u{1F4F7}';
  await store.db.insertInto('users').values({ uuid: 'u-odd', email: 'odd@example.com', password_hash: 'x', first_name: odd, last_name: '12345678901234', created_at: nowIso() }).execute();
  const build = (db: Db, email: string) =>
    db
      .selectFrom('users as u')
      .leftJoin('users as other', 'other.email', 'u.first_name')
      .selectAll('u')
      .select((eb) => ['other.uuid as other_uuid', 'u.last_name as first_name', eb.fn.countAll<number>().over().as('n'), eb.lit(9007199254740991).as('big')])
      .where('u.email', '=', email);
  const plain = prepared(build);
  const json = prepared(build, { json: true });
  for (const email of ['odd@example.com', 'c@example.com']) {
    const fresh = await build(store.db, email).executeTakeFirstOrThrow();
    const row = await json(store.db, email);
    expect(row).toEqual(fresh);
    expect(Object.keys(row!)).toEqual(Object.keys(fresh));
    expect(row).toEqual(await plain(store.db, email));
  }
  expect((await json(store.db, 'odd@example.com'))!.first_name).toBe('12345678901234');
  expect(await json(store.db, 'nobody@example.com')).toBeUndefined();
});

it('refuses a query that does not use an argument as a parameter', async () => {
  const broken = prepared((db: Db, _unused: string) => db.selectFrom('users').select('uuid'));
  // Compiled on the first call, which throws at once (a mistake in our code, not a runtime condition).
  expect(() => broken(store.db, 'x')).toThrow(/every argument/);
});

/**
 * What `read` answers when asked while a transaction that inserted a user
 * with `email` is open between its statements; the transaction then rolls back.
 */
async function readDuringOpenTransaction<R>(email: string, read: () => R | Promise<R>): Promise<R> {
  let inserted!: () => void;
  const didInsert = new Promise<void>((resolve) => (inserted = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const tx = store.db
    .transaction()
    .execute(async (trx) => {
      await trx.insertInto('users').values({ uuid: `u-${email}`, email, password_hash: 'x', first_name: 'Tx', last_name: '0', created_at: nowIso() }).execute();
      inserted();
      await gate;
      throw new Error('rolled back on purpose');
    })
    .catch((err: Error) => err.message);
  await didInsert;
  const answer = Promise.resolve(read());
  release();
  expect(await tx).toBe('rolled back on purpose');
  return answer;
}

it('runs on the SQLite handle directly, yet never reads what an open transaction has not committed', async () => {
  // Seen through the direct path: a row committed a moment ago.
  expect(await byEmailOrName(store.db, 'nobody', 'D')).toEqual({ uuid: 'u-d' });
  // Asked while the transaction is open between its statements: it waits, and sees the end state.
  expect(await readDuringOpenTransaction('tx@example.com', () => byEmailOrName(store.db, 'tx@example.com', 'nobody'))).toBeUndefined();
});

it('the session lookup every request makes answers at once on SQLite, its user and the session times in one row', async () => {
  const users = new UsersRepository(store.db);
  const user = await store.db.selectFrom('users').selectAll().where('uuid', '=', 'u-a').executeTakeFirstOrThrow();
  await users.createSession({ token_hash: 'h-a', user_id: user.id, created_at: nowIso(), last_seen_at: '2026-01-02T00:00:00.000Z', expires_at: '2026-02-01T00:00:00.000Z' });
  const found = users.findSession('h-a');
  expect(found).not.toBeInstanceOf(Promise);
  expect(found).toEqual({ ...user, last_seen_at: '2026-01-02T00:00:00.000Z', expires_at: '2026-02-01T00:00:00.000Z' });
  expect(users.findSession('h-none')).toBeUndefined();
  // While a transaction is open, it waits for it like every compile-once read.
  expect(await readDuringOpenTransaction('session@example.com', () => users.findSession('h-a'))).toEqual(found);
});
