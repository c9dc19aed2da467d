/**
 * SqliteStore: the store contract on a temporary file, plus what only the embedded store has
 * (file creation, reopen, read-only and locked files mapping to 503).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import Database from "better-sqlite3";
import { ApiError } from "../../errors.ts";
import { openStore } from "../open-store.ts";
import { loadMigrations } from "../sql-common.ts";
import { InstanceLockedError } from "./connection.ts";
import { GET_RECORDS_SQL } from "./sessions.ts";
import { SqliteStore } from "./store.ts";
import { runStoreContract } from "../store-contract.test-suite.ts";

const unavailable = (error: unknown): boolean =>
  error instanceof ApiError && error.code === "service_unavailable";

function account(id: string) {
  return {
    id,
    name: "Reopen",
    planId: "free",
    status: "free" as const,
    cadence: null,
    creditsCap: 50,
    periodEnd: null,
    periodAnchor: null,
    sharpenStage: null,
    createdAt: 1_700_000_000_000,
  };
}

/**
 * A database file as an earlier release left it: WAL, migrations up to `version` applied and
 * recorded, nothing else. The upgrade tests fill it through the returned connection, then close it.
 */
function databaseAtMigration(file: string, version: number): Database.Database {
  const raw = new Database(file);
  raw.pragma("journal_mode = WAL");
  raw.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
  for (const migration of loadMigrations("sqlite").filter((m) => m.version <= version)) {
    raw.exec(migration.sql);
    raw.prepare("INSERT INTO schema_migrations VALUES (?, 0)").run(migration.version);
  }
  return raw;
}

/** An account and a recipes session written straight into a database at an old migration; the session's row id. */
function oldAccountAndSession(raw: Database.Database, accountId: string, sessionId: string, expiresAt: number, createdAt: number): number {
  raw.prepare(
    "INSERT INTO accounts (id, name, plan_id, status, credits_cap, created_at) VALUES (?, 'u', 'free', 'free', 50, 0)",
  ).run(accountId);
  return oldSession(raw, accountId, sessionId, expiresAt, createdAt);
}

function oldSession(raw: Database.Database, accountId: string, sessionId: string, expiresAt: number, createdAt: number): number {
  const row = raw
    .prepare(
      "INSERT INTO sessions (id, account_id, capability, query, state, expires_at, created_at) VALUES (?, ?, 'recipes.search', '{}', '{}', ?, ?)",
    )
    .run(sessionId, accountId, expiresAt, createdAt);
  return Number(row.lastInsertRowid);
}

describe("SqliteStore", () => {
  const dir = mkdtempSync(join(tmpdir(), "quarry-sqlite-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  runStoreContract("sqlite store contract", async () => {
    const store = SqliteStore.open(join(dir, "contract.db"));
    await store.migrate();
    return store;
  });

  // The server's way: instance lock, credit holds in memory.
  runStoreContract("sqlite store contract, serving process (holds in memory)", async () => {
    const store = SqliteStore.open(join(dir, "contract-exclusive.db"), { exclusive: true });
    await store.migrate();
    return store;
  });

  test("one serving process per file: a second exclusive open is refused until the first closes", async () => {
    const file = join(dir, "instance.db");
    const first = SqliteStore.open(file, { exclusive: true });
    await first.migrate();
    assert.throws(() => SqliteStore.open(file, { exclusive: true }), (error: unknown) => {
      assert.ok(error instanceof InstanceLockedError, "error instanceof InstanceLockedError");
      assert.match((error as Error).message, /Another Quarry server is already serving .*instance\.db/);
      return true;
    });
    // Tools (the CLI) open it alongside, without the lock.
    const tool = SqliteStore.open(file);
    await tool.migrate();
    await tool.createAccount(account("acct_tool"));
    assert.equal((await first.getAccount("acct_tool"))?.creditsCap, 50);
    await tool.close();
    await first.close();
    const second = SqliteStore.open(file, { exclusive: true });
    await second.migrate();
    await second.close();
  });

  test("the writer thread dies: writes in flight and after answer 503, readiness fails, reads still work", async () => {
    const file = join(dir, "writer-crash.db");
    const store = SqliteStore.open(file, { exclusive: true });
    await store.migrate();
    await store.createAccount(account("acct_crash"));
    const inFlight = store.createAccount(account("acct_lost"));
    await store.crashWriterForTests();
    await assert.rejects(inFlight, unavailable);
    await assert.rejects(store.updateAccount("acct_crash", { name: "x" }), unavailable);
    await assert.rejects(store.ping(), unavailable);
    assert.equal((await store.getAccount("acct_crash"))?.name, "Reopen");
    assert.equal(await store.getAccount("acct_lost"), null, "nothing half-written");
    await store.close();
  });

  // An in-memory database cannot be shared with a writer thread: its writes run inline.
  runStoreContract("sqlite store contract, in memory (writes on the calling thread)", async () => {
    const store = SqliteStore.open(":memory:");
    await store.migrate();
    return store;
  });

  test("a database a newer Quarry migrated is refused with one clear message", async () => {
    const file = join(dir, "newer.db");
    const raw = databaseAtMigration(file, Number.MAX_SAFE_INTEGER);
    raw.prepare("INSERT INTO schema_migrations VALUES (?, 0)").run(999);
    raw.close();
    const store = SqliteStore.open(file);
    await assert.rejects(store.migrate(), (error: unknown) => {
      assert.ok(error instanceof ApiError, "error instanceof ApiError");
      assert.match(error.message, /migrated by a newer version of Quarry \(schema version 999; this version knows up to \d+\)/);
      return true;
    });
    await store.close();
  });

  test("migrate twice is a no-op", async () => {
    const file = join(dir, "twice.db");
    const store = SqliteStore.open(file);
    await store.migrate();
    await store.createAccount(account("acct_twice"));
    await store.migrate();
    await store.close();
    const again = SqliteStore.open(file);
    await again.migrate();
    assert.equal(await again.countAccounts(), 1);
    await again.close();
    const raw = new Database(file, { readonly: true });
    const versions = raw.prepare("SELECT version FROM schema_migrations ORDER BY version").all();
    raw.close();
    assert.deepEqual(
      versions,
      loadMigrations("sqlite").map((m) => ({ version: m.version })),
    );
  });

  test("a database at migration 1 upgrades in place: ledger rows and totals are kept", async () => {
    const file = join(dir, "upgrade.db");
    const raw = databaseAtMigration(file, 1);
    raw
      .prepare(
        "INSERT INTO accounts (id, name, plan_id, status, credits_used, credits_cap, created_at) VALUES ('acct_old', 'o', 'free', 'free', 7, 50, 0)",
      )
      .run();
    const ledger = raw.prepare(
      "INSERT INTO ledger (id, account_id, key_id, capability, operation, credits, cost_usd, request_id, created_at) VALUES (?, 'acct_old', NULL, 'recipes.search', 'execute', ?, 0, ?, ?)",
    );
    ledger.run("led_a", 3, "req_a", 1);
    ledger.run("led_b", 4, "req_b", 2);
    raw.close();

    const store = SqliteStore.open(file);
    await store.migrate();
    assert.equal(await store.ledgerTotal("acct_old"), 7);
    assert.deepEqual(await store.usage("acct_old", 0), [
      { capability: "recipes.search", operation: "execute", calls: 2, credits: 7 },
    ]);
    await store.close();
    const check = new Database(file, { readonly: true });
    const rows = check.prepare("SELECT seq, id FROM ledger ORDER BY seq").all();
    check.close();
    assert.deepEqual(rows, [
      { seq: 1, id: "led_a" },
      { seq: 2, id: "led_b" },
    ]);
  });

  test("a database at migration 2 upgrades in place: sessions and records keep ids, positions and order", async () => {
    const file = join(dir, "upgrade-records.db");
    const raw = databaseAtMigration(file, 2);
    oldAccountAndSession(raw, "acct_up", "srch_old_b", 9_000, 2);
    oldSession(raw, "acct_up", "srch_old_a", 9_000, 1);
    const record = raw.prepare(
      "INSERT INTO records (id, search_id, account_id, position, summary, actions) VALUES (?, ?, 'acct_up', ?, ?, '{}')",
    );
    for (const [id, search, position] of [
      ["rec_a2", "srch_old_a", 2],
      ["rec_a0", "srch_old_a", 0],
      ["rec_b0", "srch_old_b", 0],
      ["rec_a1", "srch_old_a", 1],
    ] as const) {
      record.run(id, search, position, JSON.stringify({ title: id }));
    }
    raw.close();

    const store = SqliteStore.open(file);
    await store.migrate();
    assert.deepEqual(
      (await store.getRecords("srch_old_a", 0, 10)).map((r) => [r.id, r.position, r.summary.title]),
      [
        ["rec_a0", 0, "rec_a0"],
        ["rec_a1", 1, "rec_a1"],
        ["rec_a2", 2, "rec_a2"],
      ],
    );
    assert.deepEqual(
      (await store.getRecords("srch_old_a", 1, 2)).map((r) => r.id),
      ["rec_a1"],
    );
    assert.equal((await store.getRecord("rec_b0"))?.session.id, "srch_old_b");
    assert.equal((await store.getSession("srch_old_b"))?.expiresAt, 9_000);
    assert.equal(await store.sweepExpired(10_000, 10), 2);
    await store.close();
    const check = new Database(file, { readonly: true });
    assert.deepEqual(check.prepare("SELECT COUNT(*) AS n FROM records").get(), { n: 0 }, "records went with their sessions");
    check.close();
  });

  test("a database at migration 3 upgrades in place: records keep their stored detail and have no source", async () => {
    const file = join(dir, "upgrade-sources.db");
    const raw = databaseAtMigration(file, 3);
    const seq = oldAccountAndSession(raw, "acct_src", "srch_src", 9_000, 1);
    raw.prepare(
      "INSERT INTO records (slot, id, search_id, account_id, position, summary, detail, links, actions) VALUES (?, 'rec_src', 'srch_src', 'acct_src', 0, ?, ?, ?, '{}')",
    ).run(seq * 1_048_576, JSON.stringify({ title: "Old" }), JSON.stringify({ meal_id: "1" }), JSON.stringify([{ label: "Page", url: "https://example.com" }]));
    raw.close();

    const store = SqliteStore.open(file);
    await store.migrate();
    const found = await store.getRecord("rec_src");
    assert.deepEqual(found?.record.detail, { meal_id: "1" });
    assert.deepEqual(found?.record.links, [{ label: "Page", url: "https://example.com" }]);
    assert.equal(found?.record.sourceAt, null);
    assert.equal(await store.getSource("srch_src", 0), null);
    await store.close();
  });

  test("a database at migration 4 upgrades in place: every account's period anchor is its creation", async () => {
    const file = join(dir, "upgrade-anchor.db");
    const raw = databaseAtMigration(file, 4);
    const created = Date.UTC(2025, 0, 31, 8, 0);
    const insert = raw.prepare(
      "INSERT INTO accounts (id, name, plan_id, status, cadence, credits_used, credits_cap, period_end, created_at) VALUES (?, 'o', ?, ?, ?, ?, ?, ?, ?)",
    );
    insert.run("acct_old_free", "free", "free", null, 40, 1000, null, 5);
    insert.run("acct_old_pro", "pro", "active", "monthly", 70, 20000, Date.UTC(2025, 1, 28, 8, 0), created);
    raw.close();

    const store = SqliteStore.open(file);
    await store.migrate();
    const free = await store.getAccount("acct_old_free");
    assert.equal(free?.periodAnchor, 5);
    assert.equal(free?.periodEnd, null);
    assert.equal(free?.creditsUsed, 40);
    const pro = await store.getAccount("acct_old_pro");
    assert.equal(pro?.periodAnchor, created);
    assert.equal(pro?.periodEnd, Date.UTC(2025, 1, 28, 8, 0), "the current period is not moved");
    assert.equal(pro?.creditsUsed, 70);
    // New accounts store theirs; a patch moves it.
    const fresh = await store.createAccount({ ...account("acct_new_anchor"), periodAnchor: 1_700_000_000_000 });
    assert.equal(fresh.periodAnchor, 1_700_000_000_000);
    assert.equal((await store.updateAccount("acct_old_pro", { periodAnchor: 9 }))?.periodAnchor, 9);
    await store.close();
    const check = new Database(file, { readonly: true });
    assert.deepEqual(
      check.prepare("SELECT MAX(version) AS v FROM schema_migrations").get(),
      { v: Math.max(...loadMigrations("sqlite").map((m) => m.version)) },
    );
    check.close();
  });

  test("a session's records are one row-id range: read without an index, swept with their session", async () => {
    const file = join(dir, "slots.db");
    const store = SqliteStore.open(file);
    await store.migrate();
    await store.createAccount(account("acct_slots"));
    const ledger = (id: string) => ({
      id,
      accountId: "acct_slots",
      keyId: null,
      capability: "recipes.search",
      operation: "execute",
      credits: 0,
      costUsd: 0,
      requestId: `req_${id}`,
      createdAt: 1,
    });
    const rec = (searchId: string, id: string, position: number) => ({
      id,
      searchId,
      accountId: "acct_slots",
      position,
      summary: { title: id },
      ref: null,
      detail: null,
      links: null,
      actions: {},
      sourceAt: null,
    });
    for (const [searchId, expiresAt] of [
      ["srch_slot_old", 100],
      ["srch_slot_new", 10_000],
    ] as const) {
      await store.commit({
        reservation: null,
        ledger: ledger(`led_${searchId}`),
        newSession: {
          session: { id: searchId, accountId: "acct_slots", capability: "recipes.search", query: {}, state: {}, expiresAt, createdAt: 1 },
          records: [rec(searchId, `${searchId}_0`, 0), rec(searchId, `${searchId}_1`, 1)],
        },
      });
    }
    // A later page of the live session goes after its first records, whatever came in between.
    await store.commit({
      reservation: null,
      ledger: ledger("led_more"),
      sessionUpdate: {
        id: "srch_slot_new",
        state: {},
        expiresAt: 10_000,
        records: [rec("srch_slot_new", "srch_slot_new_2", 2)],
        previous: { query: {}, state: {} },
      },
    });
    assert.deepEqual(
      (await store.getRecords("srch_slot_new", 0, Number.POSITIVE_INFINITY)).map((r) => r.id),
      ["srch_slot_new_0", "srch_slot_new_1", "srch_slot_new_2"],
    );
    assert.deepEqual(await store.getRecords("srch_slot_new", -5, 0), []);
    assert.equal(await store.sweepExpired(1_000, 10), 1);
    await store.close();

    const raw = new Database(file, { readonly: true });
    const left = raw.prepare("SELECT id FROM records ORDER BY slot").all();
    const plan = raw.prepare(`EXPLAIN QUERY PLAN ${GET_RECORDS_SQL}`).all(0, 10, "srch_slot_new") as { detail: string }[];
    raw.close();
    assert.deepEqual(
      left.map((r) => (r as { id: string }).id),
      ["srch_slot_new_0", "srch_slot_new_1", "srch_slot_new_2"],
      "the swept session's records are gone, not orphaned",
    );
    assert.match(plan.map((p) => p.detail).join(" | "), /SEARCH r USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/);
  });

  test("data survives close and reopen; the file is in WAL mode", async () => {
    const file = join(dir, "nested", "deeper", "reopen.db");
    const store = SqliteStore.open(file);
    await store.migrate();
    await store.createAccount(account("acct_reopen"));
    const r = { id: "res_reopen", accountId: "acct_reopen", amount: 5, createdAt: 1 };
    assert.equal((await store.reserve(r)).ok, true);
    await store.commit({
      reservation: r,
      ledger: {
        id: "led_reopen",
        accountId: "acct_reopen",
        keyId: null,
        capability: "web-search",
        operation: "execute",
        credits: 4,
        costUsd: 0.0035,
        requestId: "req_reopen",
        createdAt: 2,
      },
    });
    await store.close();
    assert.ok(existsSync(file), "open() created the parent directories");

    const reopened = SqliteStore.open(file);
    await reopened.migrate();
    const got = await reopened.getAccount("acct_reopen");
    assert.equal(got?.creditsUsed, 4);
    assert.equal(got?.creditsReserved, 0);
    assert.equal(await reopened.ledgerTotal("acct_reopen"), 4);
    await reopened.close();
    const raw = new Database(file, { readonly: true });
    assert.equal(raw.pragma("journal_mode", { simple: true }), "wal");
    raw.close();
  });

  test("an in-memory database works", async () => {
    const store = SqliteStore.open(":memory:");
    await store.migrate();
    await store.createAccount(account("acct_mem"));
    assert.equal(await store.countAccounts(), 1);
    await store.close();
  });

  test("a read-only database rejects writes with service_unavailable", async () => {
    const file = join(dir, "readonly.db");
    const writer = SqliteStore.open(file);
    await writer.migrate();
    await writer.createAccount(account("acct_ro"));
    await writer.close();

    const store = SqliteStore.open(file, { readonly: true });
    await store.migrate(); // up to date: needs no write
    assert.equal((await store.getAccount("acct_ro"))?.creditsCap, 50);
    await assert.rejects(store.createAccount(account("acct_ro2")), unavailable);
    await assert.rejects(
      store.reserve({ id: "res_ro", accountId: "acct_ro", amount: 1, createdAt: 1 }),
      unavailable,
    );
    await assert.rejects(store.updateAccount("acct_ro", { name: "x" }), unavailable);
    await store.close();
  });

  test("a write lock held by another connection rejects with service_unavailable", async () => {
    const file = join(dir, "locked.db");
    const store = SqliteStore.open(file, { busyTimeoutMs: 50 });
    await store.migrate();
    const other = new Database(file);
    other.exec("BEGIN IMMEDIATE");
    try {
      await assert.rejects(store.createAccount(account("acct_locked")), unavailable);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    await store.createAccount(account("acct_locked"));
    assert.equal(await store.countAccounts(), 1);
    await store.close();
  });

  test("a path SQLite cannot open (a directory) throws service_unavailable", () => {
    const notAFile = join(dir, "a-directory");
    mkdirSync(notAFile);
    assert.throws(() => SqliteStore.open(notAFile), unavailable);
  });

  test("openStore without a database URL opens <dataDir>/quarry.db, migrated", async () => {
    const dataDir = join(dir, "data");
    const store = await openStore({ dataDir });
    assert.equal(store.kind, "sqlite");
    assert.ok(existsSync(join(dataDir, "quarry.db")), "existsSync(join(dataDir, \"quarry.db\"))");
    assert.equal(await store.countAccounts(), 0);
    await store.close();
  });
});
