// A unit of work: one transaction handed to repositories, with the work that must follow its commit
// (removing stored files, waking the job worker), run only once the commit succeeded. After-commit
// actions are not durable: what must survive a crash is written in the transaction (file_deletions,
// jobs), and the action only does it sooner (docs/architecture.md, "A file's life").
import type { Db } from './db.js';

export type AfterCommit = () => Promise<void> | void;

export interface Unit {
  /** The transaction: for repositories only (services build no SQL, test/unit/architecture.test.ts). */
  readonly db: Db;
  /** Runs `action` once this unit's transaction committed; never after a rollback. */
  afterCommit(action: AfterCommit): void;
}

/**
 * An after-commit action failed: the transaction DID commit. Its own class so
 * that a caller undoing work on a failed transaction (removing a file nothing
 * points to) does not undo a committed one.
 */
export class AfterCommitFailed extends Error {
  constructor(readonly failure: unknown) {
    super(`after the commit: ${failure instanceof Error ? failure.message : String(failure)}`, { cause: failure });
  }
}

/**
 * Runs `work` in a new transaction on `db`, then, once it committed, the
 * after-commit actions it registered, in order. Each action runs even when an
 * earlier one failed; the first failure is thrown afterwards as
 * AfterCommitFailed (the actions registered today never throw:
 * FileDeletions.remove and waking the worker).
 */
export async function inUnit<T>(db: Db, work: (unit: Unit) => Promise<T>): Promise<T> {
  const actions: AfterCommit[] = [];
  const value = await db.transaction().execute((trx) => work({ db: trx, afterCommit: (action) => void actions.push(action) }));
  await runAfterCommit(actions);
  return value;
}

/**
 * A unit around a transaction opened by someone else (the job worker's chunk
 * transaction, which also moves the job's cursor): the owner of that
 * transaction calls `committed()` after its commit.
 */
export function unitOf(trx: Db): { unit: Unit; committed(): Promise<void> } {
  const actions: AfterCommit[] = [];
  return { unit: { db: trx, afterCommit: (action) => void actions.push(action) }, committed: () => runAfterCommit(actions) };
}

async function runAfterCommit(actions: readonly AfterCommit[]): Promise<void> {
  let failure: { err: unknown } | undefined;
  for (const action of actions) {
    try {
      await action();
    } catch (err) {
      failure ??= { err };
    }
  }
  if (failure) throw new AfterCommitFailed(failure.err);
}
