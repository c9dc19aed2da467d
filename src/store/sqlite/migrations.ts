/**
 * The embedded store's schema: the migrations (migrations/sqlite/) this file lacks, applied in one
 * IMMEDIATE transaction, so that two processes starting at once apply them in turn; a file newer
 * than this code is refused (sql-common.ts, refuseNewerSchema). An up-to-date file, even a
 * read-only one, is only read.
 */
import type Database from "better-sqlite3";
import { loadMigrations, num, type Raw, refuseNewerSchema } from "../sql-common.ts";

const SQL = {
  migrationsTable:
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)",
  hasMigrationsTable: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
  appliedVersions: "SELECT version FROM schema_migrations",
  recordMigration: "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
} as const;

/** Apply the migrations `db` lacks (run under the connection's guard: a lock is waited out). */
export function applyMigrations(db: Database.Database): void {
  const migrations = loadMigrations("sqlite");
  const pending = (): typeof migrations => {
    if (!db.prepare(SQL.hasMigrationsTable).get()) return migrations;
    const applied = new Set(
      (db.prepare(SQL.appliedVersions).all() as Raw[]).map((r) => num(r.version)),
    );
    refuseNewerSchema(applied, migrations, "embedded");
    return migrations.filter((m) => !applied.has(m.version));
  };
  // Read first: an up-to-date database (even a read-only one) needs no write transaction.
  if (pending().length === 0) return;
  // IMMEDIATE takes the write lock up front, so two processes starting at once apply in turn.
  db
    .transaction(() => {
      db.exec(SQL.migrationsTable);
      for (const migration of pending()) {
        db.exec(migration.sql);
        db.prepare(SQL.recordMigration).run(migration.version, Date.now());
      }
    })
    .immediate();
}
