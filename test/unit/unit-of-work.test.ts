// The unit of work (src/database/unit-of-work.ts) that the owner of a file's
// life (src/media/file-life.ts) and the job worker run on: what is written
// in it commits together, and what it leaves for after the commit runs only
// once the commit succeeded, never after a rollback. On a real database,
// SQLite and PostgreSQL.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrate, nowIso, openStore, type Store } from '../../src/database/db.js';
import { AfterCommitFailed, inUnit, unitOf } from '../../src/database/unit-of-work.js';
import { createPgDatabase, eachDatabase } from '../support/service.js';

eachDatabase((kind) => {
  let store: Store;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mps-unit-of-work-'));
    const pg = kind === 'postgres' ? await createPgDatabase() : undefined;
    store = openStore({ dataDir: dir, databaseUrl: pg?.url });
    await migrate(store);
    cleanup = async () => {
      await store.close();
      await pg?.drop();
      await rm(dir, { recursive: true, force: true });
    };
  });
  afterAll(() => cleanup());

  // A row of file_deletions stands for any write of a unit.
  const record = (key: string) => ({ storage_key: key, created_at: nowIso(), due_at: nowIso() });
  const recorded = async (key: string) => (await store.db.selectFrom('file_deletions').select('id').where('storage_key', '=', key).execute()).length;

  it('runs the after-commit actions once the commit succeeded, in order, and sees the committed rows', async () => {
    const seen: string[] = [];
    const value = await inUnit(store.db, async (unit) => {
      await unit.db.insertInto('file_deletions').values(record('uow-commit')).execute();
      unit.afterCommit(async () => void seen.push(`first saw ${await recorded('uow-commit')}`));
      unit.afterCommit(() => void seen.push('second'));
      // Not yet: the transaction is still open.
      expect(seen).toEqual([]);
      return 'done';
    });
    expect(value).toBe('done');
    expect(seen).toEqual(['first saw 1', 'second']);
  });

  it('never runs them after a rollback, and writes nothing', async () => {
    const seen: string[] = [];
    await expect(
      inUnit(store.db, async (unit) => {
        await unit.db.insertInto('file_deletions').values(record('uow-rollback')).execute();
        unit.afterCommit(() => void seen.push('ran'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(seen).toEqual([]);
    expect(await recorded('uow-rollback')).toBe(0);
  });

  it('runs every action even when one fails, then throws the first failure as AfterCommitFailed (the commit stands)', async () => {
    const seen: string[] = [];
    const failing = inUnit(store.db, async (unit) => {
      await unit.db.insertInto('file_deletions').values(record('uow-failing-action')).execute();
      unit.afterCommit(() => {
        throw new Error('first failure');
      });
      unit.afterCommit(() => {
        throw new Error('second failure');
      });
      unit.afterCommit(() => void seen.push('third'));
    });
    await expect(failing).rejects.toThrow('first failure');
    await expect(failing).rejects.toBeInstanceOf(AfterCommitFailed);
    expect(seen).toEqual(['third']);
    expect(await recorded('uow-failing-action')).toBe(1);
  });

  it('wraps a transaction opened elsewhere: the actions wait for its owner to say it committed', async () => {
    const seen: string[] = [];
    let committed: (() => Promise<void>) | undefined;
    await store.db.transaction().execute(async (trx) => {
      const chunk = unitOf(trx);
      committed = chunk.committed;
      await chunk.unit.db.insertInto('file_deletions').values(record('uow-outer')).execute();
      chunk.unit.afterCommit(() => void seen.push('ran'));
    });
    expect(seen).toEqual([]);
    await committed!();
    expect(seen).toEqual(['ran']);
    expect(await recorded('uow-outer')).toBe(1);
  });
});
