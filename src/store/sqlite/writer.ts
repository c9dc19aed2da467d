/**
 * The embedded store's writer: every write, as data in and data out (write-ops.ts), so it can run
 * on whichever thread owns the write connection: a worker thread for a database file
 * (write-worker.ts), the main thread for an in-memory or read-only database. Each aggregate applies
 * its own ops (accounts.ts, ledger.ts, commit.ts, sessions.ts, people.ts); this file batches them.
 *
 * Writes arrive in batches (all the writes issued while the previous batch was being written).
 * A batch is one IMMEDIATE transaction: one WAL append for all of them, the pages they share
 * (the account row, the tails of the append-only tables) written once. Ops do not get a savepoint
 * each (a savepoint costs a statement journal per op); instead the one failure the request path
 * expects, a session swept while its call ran, is detected before that op writes anything, and any
 * other error rolls the whole batch back and replays its ops one transaction each, so only the op
 * that failed fails.
 */
import type Database from "better-sqlite3";
import { ApiError } from "../../errors.ts";
import { Statements } from "./access.ts";
import { applyAccountWrite } from "./accounts.ts";
import { applyCommit } from "./commit.ts";
import { applyLedgerWrite } from "./ledger.ts";
import { applyPeopleWrite } from "./people.ts";
import { applySessionWrite } from "./sessions.ts";
import { toWireError, type WriteOp, type WriteOutcome } from "./write-ops.ts";

export class SqliteWriter {
  private readonly statements: Statements;

  constructor(private readonly db: Database.Database) {
    this.statements = new Statements(db);
  }

  /**
   * Run a batch in one IMMEDIATE transaction. Throws only when the transaction could not start
   * (SQLITE_BUSY: another connection holds the write lock; read-only file; ...), in which case
   * nothing was written and the caller decides whether to wait and retry.
   */
  applyBatch(ops: readonly WriteOp[]): WriteOutcome[] {
    this.db.exec("BEGIN IMMEDIATE");
    const outcomes: WriteOutcome[] = [];
    try {
      for (const op of ops) {
        try {
          outcomes.push({ ok: true, value: this.apply(op) });
        } catch (error) {
          // An ApiError is thrown before its op wrote anything (see applyCommit, commit.ts); the batch goes on.
          if (!(error instanceof ApiError)) throw error;
          outcomes.push({ ok: false, error: toWireError(error) });
        }
      }
      this.db.exec("COMMIT");
      return outcomes;
    } catch (error) {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      // A batch of one fails as itself; otherwise replay one op per transaction so only the
      // op that fails fails.
      if (ops.length === 1) return [{ ok: false, error: toWireError(error) }];
      return ops.map((op) => this.applyAlone(op));
    }
  }

  private applyAlone(op: WriteOp): WriteOutcome {
    try {
      this.db.exec("BEGIN IMMEDIATE");
      const value = this.apply(op);
      this.db.exec("COMMIT");
      return { ok: true, value };
    } catch (error) {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      return { ok: false, error: toWireError(error) };
    }
  }

  /** One op, by its aggregate (each applies its own writes on this connection's statements). */
  private apply(op: WriteOp): unknown {
    switch (op.t) {
      case "createAccount":
      case "updateAccount":
      case "rollPeriod":
      case "createKey":
      case "setKeyLimit":
      case "revokeKey":
        return applyAccountWrite(this.statements, op);
      case "reserve":
      case "release":
      case "releaseBefore":
        return applyLedgerWrite(this.statements, op);
      case "commit":
        return applyCommit(this.statements, op.commit);
      case "sweep":
        return applySessionWrite(this.statements, op);
      case "people":
        return applyPeopleWrite(this.statements, op.op);
    }
  }
}
