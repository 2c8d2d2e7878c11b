// One SQLite read transaction per event-loop turn for the compile-once reads: opening one per
// statement (a WAL read-mark lock and unlock, header checks) cost more than a keyed lookup. The
// turn's reads see the database as at the first of them, and any statement Kysely runs ends the
// shared transaction first (docs/architecture.md, "How a request flows" step 5, "The database floor").
import type SQLite from 'better-sqlite3';

export class ReadTurn {
  /** Whether the shared read transaction is open. */
  private open = false;
  private readonly begin: SQLite.Statement;
  private readonly commit: SQLite.Statement;
  private readonly rollback: SQLite.Statement;
  private readonly endOfTurn = (): void => {
    try {
      this.end();
    } catch {
      // Nothing to report to: the next statement Kysely runs ends it again and fails there if it must.
    }
  };

  /** `sqlite`: the handle whose compile-once reads share the turn's transaction (prepared.ts runs them on it). */
  constructor(readonly sqlite: SQLite.Database) {
    this.begin = sqlite.prepare('BEGIN');
    this.commit = sqlite.prepare('COMMIT');
    this.rollback = sqlite.prepare('ROLLBACK');
  }

  /**
   * Whether a compile-once read may run on the handle now, inside the shared
   * transaction (opened here when needed). false while a transaction of
   * Kysely's is open: the read then waits for it in Kysely's queue, as it
   * must not see uncommitted rows.
   */
  enter(): boolean {
    if (this.open) return true;
    if (this.sqlite.inTransaction) return false;
    this.begin.run();
    this.open = true;
    setImmediate(this.endOfTurn);
    return true;
  }

  /** Ends the shared read transaction, if open: before any statement of Kysely's, and at the end of the turn. */
  end(): void {
    if (!this.open) return;
    try {
      this.commit.run();
    } catch (err) {
      // A read-only transaction has nothing to lose: roll it back rather than leave it open.
      if (this.sqlite.inTransaction) this.rollback.run();
      if (this.sqlite.inTransaction) throw err;
    }
    this.open = false;
  }
}
