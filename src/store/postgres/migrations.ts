/**
 * The PostgreSQL store's schema: the migrations (migrations/postgres/) applied in order under an
 * advisory lock, so that processes starting together apply them once and in turn; a database newer
 * than this code is refused (sql-common.ts, refuseNewerSchema). Also the schema tests isolate
 * themselves in, and this database's identity, which calls in doubt carry.
 */
import { loadMigrations, num, refuseNewerSchema } from "../sql-common.ts";
import type { PgAccess } from "./access.ts";

/** Advisory lock key ("QUAR") serializing migrations across processes that start at once. */
const MIGRATION_LOCK = 0x51554152;

/** Create `schema` if missing (a name PgPool.create has checked). */
export async function createSchema(db: PgAccess, schema: string): Promise<void> {
  // Under the migration lock: CREATE SCHEMA IF NOT EXISTS races with itself across processes.
  await db.transaction(async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  });
}

/** Apply the migrations this database lacks; returns its identity (table store_identity). */
export async function applyMigrations(db: PgAccess): Promise<string> {
  const migrations = loadMigrations("postgres");
  return db.transaction(async (client) => {
    // Transaction-scoped lock: a second process waits here, then sees the versions the first recorded.
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version INT PRIMARY KEY, applied_at BIGINT NOT NULL)",
    );
    const applied = new Set(
      (await db.rows("SELECT version FROM schema_migrations", [], client)).map((r) => num(r.version)),
    );
    refuseNewerSchema(applied, migrations, "PostgreSQL");
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      // No parameters: the simple protocol runs a multi-statement file in one call.
      await client.query(migration.sql);
      await client.query("INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)", [
        migration.version,
        Date.now(),
      ]);
    }
    // This database's identity (calls in doubt carry it): made once, here under the lock, so
    // processes starting together agree on it; made again only should the row have been deleted.
    await client.query(
      "INSERT INTO store_identity (id, created_at) SELECT gen_random_uuid()::text, $1::bigint" +
        " WHERE NOT EXISTS (SELECT 1 FROM store_identity)",
      [Date.now()],
    );
    return String(
      (await db.row("SELECT id FROM store_identity ORDER BY created_at, id LIMIT 1", [], client))!.id,
    );
  });
}
