// One SQLite read transaction per event-loop turn for the compile-once reads.
//
// Outside a transaction every statement opens and closes a read transaction
// of its own: in WAL mode that is a lock and an unlock of a read mark in the
// -shm file (two fcntl calls), the WAL header check and a fresh look at the
// database header, which cost more than a keyed lookup itself. Under load a
// turn of the event loop serves many requests (about nine of ten busy
// connections in `npm run bench`); their reads now share one transaction,
// opened by the first read and committed in the check phase that ends the
// turn, before the loop waits for I/O again.
//
// What it means for what a read sees: the reads of one turn see the database
// as it was at the first of them, as if they had all run at that moment.
// Every statement Kysely runs (a write, a transaction, any other read) ends
// the shared transaction first (db.ts), so a request that writes and then
// reads sees its write, and a Kysely transaction never starts inside it. A
// write by another process (the admin command line) is seen from the next turn.
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
