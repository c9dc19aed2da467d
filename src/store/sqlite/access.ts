/**
 * What an aggregate of the embedded store runs on. On the event loop (SqliteAccess, implemented by
 * connection.ts): the reading connection's statements, `guard` (a read a lock blocks is retried
 * until the busy timeout, then answered 503), `write` (an op sent to the write connection, settled
 * once its transaction committed), and the credit holds this process keeps in memory. On the write
 * connection: its prepared statements (Statements), which the aggregates' writes run on.
 */
import type Database from "better-sqlite3";
import type { Raw } from "../sql-common.ts";
import type { MemoryHolds } from "./memory-holds.ts";
import type { WriteOp } from "./write-ops.ts";

export interface SqliteAccess {
  guard<T>(work: () => T): Promise<T>;
  row(sql: string, ...params: unknown[]): Raw | undefined;
  rows(sql: string, ...params: unknown[]): Raw[];
  write<T>(op: WriteOp): Promise<T>;
  /** Credit holds of the calls in flight, in memory when this process serves the file alone. */
  readonly holds: MemoryHolds | null;
}

/** Statements of one connection, prepared on first use (tables exist only after migrate) and reused. */
export class Statements {
  private readonly cache = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  get(sql: string): Database.Statement {
    let statement = this.cache.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.cache.set(sql, statement);
    }
    return statement;
  }

  row(sql: string, ...params: unknown[]): Raw | undefined {
    return this.get(sql).get(...params) as Raw | undefined;
  }

  rows(sql: string, ...params: unknown[]): Raw[] {
    return this.get(sql).all(...params) as Raw[];
  }

  run(sql: string, ...params: unknown[]): { changes: number } {
    return this.get(sql).run(...params);
  }

  clear(): void {
    this.cache.clear();
  }
}
