/**
 * PostgresStore: the store contract in a fresh schema of DATABASE_URL (skipped without it), plus
 * concurrent migration, connection faults mapping to 503, and surviving a dropped idle connection.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import pg from "pg";
import { ApiError } from "../../errors.ts";
import { randomBase62 } from "../../ids.ts";
import { openStore } from "../open-store.ts";
import { POOL_END_GRACE_MS } from "./pool.ts";
import { PostgresStore } from "./store.ts";
import { loadMigrations } from "../sql-common.ts";
import { runStoreContract } from "../store-contract.test-suite.ts";

const url = process.env.DATABASE_URL ?? "";

describe("PostgresStore", { skip: !process.env.DATABASE_URL ? "DATABASE_URL not set" : false }, () => {
  const schemas: string[] = [];
  const freshSchema = (): string => {
    const schema = `quarry_test_${randomBase62(12).toLowerCase()}`;
    schemas.push(schema);
    return schema;
  };

  async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }

  /** The schema's migrations table lists every migration the project ships, once each. */
  async function assertEveryMigrationApplied(schema: string): Promise<void> {
    const versions = await admin(
      async (client) => (await client.query(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`)).rows,
    );
    assert.deepEqual(
      versions,
      loadMigrations("postgres").map((m) => ({ version: m.version })),
    );
  }

  after(async () => {
    if (schemas.length === 0) return;
    await admin(async (client) => {
      for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    });
  });

  runStoreContract(
    "postgres store contract",
    async () => {
      const store = await PostgresStore.open(url, { schema: freshSchema() });
      await store.migrate();
      return store;
    },
    { undoInDoubt: (store, op, periodEnd) => (store as PostgresStore).undoForTests(op, periodEnd) },
  );

  test("reservations are stamped and aged by the database's clock, whatever the instance's clock says", async () => {
    const store = await PostgresStore.open(url, { schema: freshSchema() });
    try {
      await store.migrate();
      const a = await store.createAccount({
        id: `acct_${randomBase62(16)}`,
        name: "skew",
        planId: "free",
        status: "free",
        cadence: null,
        creditsCap: 100,
        periodEnd: null,
        periodAnchor: null,
        sharpenStage: "off",
        createdAt: Date.now(),
      });
      // An instance whose clock runs 150 s behind (its holds would look old) and one 150 s ahead.
      const behind = { id: `rsv_${randomBase62(16)}`, accountId: a.id, amount: 4, createdAt: Date.now() - 150_000 };
      const ahead = { id: `rsv_${randomBase62(16)}`, accountId: a.id, amount: 5, createdAt: Date.now() + 150_000 };
      for (const r of [behind, ahead]) assert.equal((await store.reserve(r)).ok, true);
      // A sweeper freeing holds older than 2 minutes frees neither: both were made just now.
      assert.equal(await store.releaseReservationsOlderThan(120_000), 0);
      assert.equal((await store.getAccount(a.id))?.creditsReserved, 9);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(await store.releaseReservationsOlderThan(10), 2);
      assert.equal((await store.getAccount(a.id))?.creditsReserved, 0);
    } finally {
      await store.close();
    }
  });

  test("two stores migrating one schema at once both succeed; migrate again is a no-op", async () => {
    const schema = freshSchema();
    const [a, b] = await Promise.all([
      PostgresStore.open(url, { schema }),
      PostgresStore.open(url, { schema }),
    ]);
    try {
      await Promise.all([a.migrate(), b.migrate()]);
      await a.migrate();
      // One identity for the database (calls in doubt carry it), whichever process made it.
      const identities = async () =>
        (
          await admin(async (client) => (await client.query(`SELECT id FROM ${schema}.store_identity`)).rows)
        ).map((r: { id: string }) => r.id);
      const [identity] = await identities();
      assert.deepEqual(await identities(), [identity]);
      assert.match(identity!, /^[0-9a-f-]{36}$/);
      // Deleted by hand: the next migrate makes a new one (the old calls in doubt become foreign).
      await admin((client) => client.query(`DELETE FROM ${schema}.store_identity`));
      await b.migrate();
      const [remade] = await identities();
      assert.ok(remade && remade !== identity, "remade && remade !== identity");
      assert.deepEqual(await identities(), [remade]);
      await assertEveryMigrationApplied(schema);
      await a.createAccount({
        id: "acct_shared",
        name: "Shared",
        planId: "free",
        status: "free",
        cadence: null,
        creditsCap: 5,
        periodEnd: null,
        periodAnchor: null,
        sharpenStage: null,
        createdAt: 1,
      });
      assert.equal((await b.getAccount("acct_shared"))?.creditsCap, 5);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test("a schema a newer Quarry migrated is refused", async () => {
    const schema = freshSchema();
    const first = await PostgresStore.open(url, { schema });
    await first.migrate();
    await first.close();
    await admin((client) => client.query(`INSERT INTO ${schema}.schema_migrations VALUES (999, 0)`));
    const store = await PostgresStore.open(url, { schema });
    try {
      await assert.rejects(store.migrate(), /migrated by a newer version of Quarry \(schema version 999; this version knows up to \d+\)/);
    } finally {
      await store.close();
    }
  });

  test("a schema at migration 3 upgrades in place: every account's period anchor is its creation", async () => {
    const schema = freshSchema();
    const created = Date.UTC(2025, 0, 31, 8, 0);
    await admin(async (client) => {
      await client.query(`CREATE SCHEMA ${schema}`);
      await client.query(`SET search_path TO ${schema}`);
      await client.query("CREATE TABLE schema_migrations (version INT PRIMARY KEY, applied_at BIGINT NOT NULL)");
      for (const migration of loadMigrations("postgres").filter((m) => m.version <= 3)) {
        await client.query(migration.sql);
        await client.query("INSERT INTO schema_migrations VALUES ($1, 0)", [migration.version]);
      }
      const insert = `INSERT INTO accounts (id, name, plan_id, status, cadence, credits_used, credits_cap, period_end, created_at)
        VALUES ($1, 'o', $2, $3, $4, $5, $6, $7, $8)`;
      await client.query(insert, ["acct_old_free", "free", "free", null, 40, 1000, null, 5]);
      await client.query(insert, ["acct_old_pro", "pro", "active", "monthly", 70, 20000, Date.UTC(2025, 1, 28, 8, 0), created]);
    });
    const store = await PostgresStore.open(url, { schema });
    try {
      await store.migrate();
      const free = await store.getAccount("acct_old_free");
      assert.equal(free?.periodAnchor, 5);
      assert.equal(free?.creditsUsed, 40);
      const pro = await store.getAccount("acct_old_pro");
      assert.equal(pro?.periodAnchor, created);
      assert.equal(pro?.periodEnd, Date.UTC(2025, 1, 28, 8, 0), "the current period is not moved");
      assert.equal(pro?.creditsUsed, 70);
      assert.equal((await store.updateAccount("acct_old_pro", { periodAnchor: 9 }))?.periodAnchor, 9);
      await assertEveryMigrationApplied(schema);
    } finally {
      await store.close();
    }
  });

  test("a closed port rejects ping with service_unavailable quickly", async () => {
    const store = await PostgresStore.open("postgres://127.0.0.1:1/x");
    const started = Date.now();
    try {
      await assert.rejects(
        store.ping(),
        (error: unknown) => error instanceof ApiError && error.code === "service_unavailable",
      );
      await assert.rejects(
        store.getAccount("acct_x"),
        (error: unknown) => error instanceof ApiError && error.code === "service_unavailable",
      );
      assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
    } finally {
      await store.close();
    }
  });

  test("an idle connection killed by the server does not crash the process; the next query reconnects", async () => {
    const appName = `quarry_kill_${randomBase62(8).toLowerCase()}`;
    const target = new URL(url);
    target.searchParams.set("application_name", appName);
    const store = await PostgresStore.open(target.toString(), { schema: freshSchema(), max: 1 });
    try {
      await store.migrate();
      await store.ping();
      // pg_terminate_backend only signals the backend; with a timeout it waits until the backend has
      // exited (so its FATAL reply has been sent). On a loaded machine that can take a while.
      const killed = await admin(
        async (client) =>
          (
            await client.query(
              "SELECT pg_terminate_backend(pid, 20000) AS ok FROM pg_stat_activity WHERE application_name = $1",
              [appName],
            )
          ).rows,
      );
      assert.deepEqual(killed, [{ ok: true }]);
      // The idle client sees the termination (a pool 'error') and the pool drops it. The ping below
      // must open a fresh connection, not race the dead one's FATAL.
      const pool = (store as unknown as { db: { pool: pg.Pool } }).db.pool;
      const deadline = Date.now() + 20_000;
      while (pool.totalCount > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(pool.totalCount, 0, "the pool dropped the terminated connection");
      await store.ping();
      assert.equal(await store.countAccounts(), 0);
    } finally {
      await store.close();
    }
  });

  test("openStore with a database URL opens PostgreSQL, migrated", async () => {
    const store = await openStore({ databaseUrl: url, dataDir: "/nonexistent", pgSchema: freshSchema() });
    try {
      assert.equal(store.kind, "postgres");
      assert.equal(await store.countAccounts(), 0);
    } finally {
      await store.close();
    }
  });

  test("close ends the pool even with a connection whose query never answers (it is closed after the grace)", async () => {
    const store = await PostgresStore.open(url, { schema: freshSchema() });
    await store.migrate();
    // A connection in use, its query waiting far past the grace (as a black-holed one would).
    const pool = (store as unknown as { db: { pool: pg.Pool } }).db.pool;
    const stuck = pool.query("SELECT pg_sleep(60)").then(
      () => "answered",
      () => "failed",
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on("warning", onWarning);
    const started = Date.now();
    try {
      await store.close();
    } finally {
      process.off("warning", onWarning);
    }
    const took = Date.now() - started;
    assert.ok(took >= POOL_END_GRACE_MS - 100 && took < POOL_END_GRACE_MS + 30_000, `closed after ${took} ms`);
    assert.equal(await stuck, "failed", "the stuck query's connection was closed");
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(warnings.some((w) => /connection\(s\) still in use/.test(w)), JSON.stringify(warnings));
  });

  test("an invalid schema name is refused", async () => {
    await assert.rejects(
      PostgresStore.open(url, { schema: "bad; DROP TABLE x" }),
      /Invalid PostgreSQL schema name/,
    );
  });
});
