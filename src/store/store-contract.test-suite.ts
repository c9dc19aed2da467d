/**
 * The store contract: one suite of node:test tests that every Store implementation must pass
 * (sqlite/store.test.ts and postgres/store.test.ts run it). Tests share one store, so each makes its own
 * accounts and ids; only the reservation and session sweeps use fixed old timestamps, which no
 * other test uses.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { nextPeriodEnd } from "../accounts/periods.ts";
import { ApiError } from "../errors.ts";
import { randomBase62 } from "../ids.ts";
import type {
  AccountRow,
  CachedAction,
  CommitOp,
  KeyRow,
  LedgerEntry,
  LoginRow,
  NewAccount,
  OAuthCodeRow,
  OAuthGrantRow,
  OAuthTokenRow,
  RecordRow,
  Reservation,
  SessionRow,
  Store,
} from "./types.ts";
import { SessionChanged } from "./types.ts";

const DAY = 24 * 60 * 60 * 1000;

function uid(prefix: string): string {
  return `${prefix}_${randomBase62(16)}`;
}

function newAccount(overrides: Partial<NewAccount> = {}): NewAccount {
  const createdAt = overrides.createdAt ?? Date.now();
  return {
    id: uid("acct"),
    name: "Test account",
    planId: "free",
    status: "free",
    cadence: null,
    creditsCap: 100,
    periodEnd: null,
    periodAnchor: createdAt,
    sharpenStage: null,
    createdAt,
    ...overrides,
  };
}

function hold(accountId: string, amount: number, createdAt = Date.now()): Reservation {
  return { id: uid("res"), accountId, amount, createdAt };
}

/** A hold of a call whose key has a limit (Billing sets keyId only then). */
function keyHold(accountId: string, keyId: string, amount: number): Reservation {
  return { ...hold(accountId, amount), keyId };
}

function entry(accountId: string, credits: number, overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    id: uid("led"),
    accountId,
    keyId: null,
    capability: "web-search",
    operation: "execute",
    credits,
    costUsd: credits * 0.001,
    requestId: uid("req"),
    createdAt: Date.now(),
    ...overrides,
  };
}

function newSession(accountId: string, overrides: Partial<SessionRow> = {}): SessionRow {
  return {
    id: uid("srch"),
    accountId,
    capability: "web-search",
    query: { query: "quarry stores", num: 10, filters: ["a", "b"], nested: { on: true, none: null } },
    state: { cursor: null, offset: 0 },
    expiresAt: Date.now() + DAY,
    createdAt: Date.now(),
    ...overrides,
  };
}

function newRecord(session: SessionRow, position: number, full = true): RecordRow {
  return {
    id: uid("rec"),
    searchId: session.id,
    accountId: session.accountId,
    position,
    summary: { title: `Result ${position}`, url: `https://example.com/${position}`, snippet: "Ünïcödé ✓" },
    ref: full ? { providerId: `p${position}`, score: 0.5 } : null,
    detail: full ? { text: "stored detail", tags: ["x"], missing: null } : null,
    links: full ? [{ label: "Source", url: `https://example.com/${position}/src` }] : null,
    actions: {},
    sourceAt: null,
  };
}

function keyRow(accountId: string, overrides: Partial<KeyRow> = {}): KeyRow {
  return {
    id: uid("key"),
    accountId,
    hash: createHash("sha256").update(randomBase62(32)).digest("hex"),
    hint: "qry_live_ab12",
    name: "default",
    createdAt: Date.now(),
    revokedAt: null,
    lastUsedAt: null,
    creditLimit: null,
    creditsUsed: 0,
    creditsReserved: 0,
    usedPeriodEnd: null,
    ...overrides,
  };
}

function sha(): string {
  return createHash("sha256").update(randomBase62(32)).digest("hex");
}

function loginRow(accountId: string, overrides: Partial<LoginRow> = {}): LoginRow {
  return {
    id: uid("login"),
    accountId,
    email: `${randomBase62(10).toLowerCase()}@example.com`,
    passwordHash: "scrypt$16384$8$1$c2FsdA$aGFzaA",
    createdAt: Date.now(),
    lastSignInAt: null,
    ...overrides,
  };
}

function isApiError(code: string): (error: unknown) => boolean {
  return (error) => error instanceof ApiError && error.code === code;
}

/**
 * What a dialect adds to the contract: `undoInDoubt`, how it undoes a committed call as a call in doubt
 * is undone (PostgreSQL only: the embedded store answers a commit from the thread that committed it,
 * so it has no calls in doubt and no such test).
 */
export interface ContractOptions {
  undoInDoubt?: (store: Store, op: CommitOp, periodEnd: number | null) => Promise<boolean>;
}

export function runStoreContract(name: string, makeStore: () => Promise<Store>, options: ContractOptions = {}): void {
  describe(name, () => {
    let store: Store;

    before(async () => {
      store = await makeStore();
    });

    after(async () => {
      await store?.close();
    });

    async function account(overrides: Partial<NewAccount> = {}): Promise<AccountRow> {
      return store.createAccount(newAccount(overrides));
    }

    /** Charge without a reservation (a quick way to set `used`). */
    async function charge(accountId: string, credits: number): Promise<AccountRow> {
      return (await store.commit({ reservation: null, ledger: entry(accountId, credits) })).account;
    }

    async function storeSession(
      accountId: string,
      records: (s: SessionRow) => RecordRow[],
      s = newSession(accountId),
    ) {
      const rows = records(s);
      await store.commit({
        reservation: null,
        ledger: entry(accountId, 0),
        newSession: { session: s, records: rows },
      });
      return { session: s, records: rows };
    }

    test("kind and ping", async () => {
      assert.ok(store.kind === "sqlite" || store.kind === "postgres", "store.kind === \"sqlite\" || store.kind === \"postgres\"");
      await store.ping();
    });

    test("createAccount, getAccount, listAccounts, countAccounts", async () => {
      const countBefore = await store.countAccounts();
      const input = newAccount({
        status: "active",
        cadence: "monthly",
        periodEnd: 1_900_000_000_000,
        sharpenStage: "stage1",
        creditsCap: 25_000,
      });
      const created = await store.createAccount(input);
      assert.deepEqual(created, { ...input, creditsUsed: 0, creditsReserved: 0, grantUsed: 0 });
      assert.deepEqual(await store.getAccount(input.id), created);
      assert.equal(await store.getAccount(uid("acct")), null);
      assert.equal(await store.countAccounts(), countBefore + 1);
      const listed = await store.listAccounts();
      assert.equal(listed.length, countBefore + 1);
      assert.deepEqual(
        listed.find((a) => a.id === input.id),
        created,
      );
      await assert.rejects(store.createAccount(input), "a duplicate id is refused");
    });

    test("updateAccount patches only the given fields", async () => {
      const a = await account({ cadence: "monthly", periodEnd: 5000, sharpenStage: "stage2" });
      const upgraded = await store.updateAccount(a.id, { planId: "pro", status: "active", creditsCap: 5000 });
      assert.deepEqual(upgraded, { ...a, planId: "pro", status: "active", creditsCap: 5000 });
      const cleared = await store.updateAccount(a.id, {
        name: "Renamed",
        cadence: null,
        periodEnd: null,
        sharpenStage: null,
      });
      assert.deepEqual(cleared, {
        ...upgraded,
        name: "Renamed",
        cadence: null,
        periodEnd: null,
        sharpenStage: null,
      });
      assert.deepEqual(await store.updateAccount(a.id, {}), cleared);
      assert.deepEqual(await store.updateAccount(a.id, { name: undefined, cadence: "annual" }), {
        ...cleared,
        cadence: "annual",
      });
      assert.deepEqual(await store.getAccount(a.id), { ...cleared, cadence: "annual" });
      assert.equal(await store.updateAccount(uid("acct"), { name: "nobody" }), null);
    });

    test("a cap lowered below used is allowed; reserve then refuses", async () => {
      const a = await account({ creditsCap: 10 });
      await charge(a.id, 8);
      const lowered = await store.updateAccount(a.id, { creditsCap: 5 });
      assert.equal(lowered?.creditsCap, 5);
      assert.equal(lowered?.creditsUsed, 8);
      const attempt = await store.reserve(hold(a.id, 1));
      assert.equal(attempt.ok, false);
      assert.equal(attempt.account?.creditsReserved, 0);
    });

    test("keys: create, find by hash with account, list, revoke", async () => {
      const a = await account();
      const other = await account();
      const k1 = keyRow(a.id, { createdAt: 1000, name: "first" });
      const k2 = keyRow(a.id, { createdAt: 2000, name: "second" });
      await store.createKey(k2);
      await store.createKey(k1);
      assert.deepEqual(await store.findKeyByHash(k1.hash), { key: k1, account: a });
      assert.equal(await store.findKeyByHash("0".repeat(64)), null);
      assert.deepEqual(await store.listKeys(a.id), [k1, k2]);
      assert.deepEqual(await store.listKeys(other.id), []);
      await assert.rejects(store.createKey(keyRow(other.id, { hash: k1.hash })), "key hashes are unique");

      assert.equal(await store.revokeKey(k1.id, 5000), 5000);
      assert.equal(await store.revokeKey(uid("key"), 5000), null);
      const found = await store.findKeyByHash(k1.hash);
      assert.deepEqual(
        found,
        { key: { ...k1, revokedAt: 5000 }, account: a },
        "a revoked key is still found",
      );
      assert.equal(await store.revokeKey(k1.id, 9000), 5000, "revoking again answers the first time");
      assert.equal(
        (await store.findKeyByHash(k1.hash))?.key.revokedAt,
        5000,
        "the first revocation time is kept",
      );
      assert.equal((await store.findKeyByHash(k2.hash))?.key.revokedAt, null);
    });

    test("key lookups see account changes made through this store at once", async () => {
      const a = await account({ planId: "free", periodEnd: 1000 });
      const k = keyRow(a.id);
      await store.createKey(k);
      assert.equal((await store.findKeyByHash(k.hash))?.account.status, "free");
      await store.updateAccount(a.id, { status: "canceled", planId: "pro" });
      const changed = await store.findKeyByHash(k.hash);
      assert.equal(changed?.account.status, "canceled");
      assert.equal(changed?.account.planId, "pro");
      await store.rollPeriod(a.id, 1000, 2000);
      assert.equal((await store.findKeyByHash(k.hash))?.account.periodEnd, 2000);
    });

    test("reserve holds credits when they fit and refuses when they do not", async () => {
      const a = await account({ creditsCap: 10 });
      const first = await store.reserve(hold(a.id, 4));
      assert.equal(first.ok, true);
      assert.equal(first.account?.creditsReserved, 4);
      const second = await store.reserve(hold(a.id, 6));
      assert.equal(second.ok, true);
      assert.equal(second.account?.creditsReserved, 10);
      const refused = hold(a.id, 1);
      const third = await store.reserve(refused);
      assert.equal(third.ok, false);
      assert.deepEqual(third.account, { ...a, creditsReserved: 10 });
      // A refused reservation left no row behind: releasing it gives nothing back.
      assert.equal((await store.release(refused))?.creditsReserved, 10);
      assert.deepEqual(await store.reserve(hold(uid("acct"), 1)), { ok: false, account: null });
    });

    test("reserve counts used credits against the cap", async () => {
      const a = await account({ creditsCap: 10 });
      await charge(a.id, 8);
      assert.equal((await store.reserve(hold(a.id, 3))).ok, false);
      const fits = await store.reserve(hold(a.id, 2));
      assert.equal(fits.ok, true);
      assert.equal(fits.account?.creditsUsed, 8);
      assert.equal(fits.account?.creditsReserved, 2);
    });

    test("release gives credits back once (idempotent)", async () => {
      const a = await account({ creditsCap: 10 });
      const r = hold(a.id, 7);
      assert.equal((await store.reserve(r)).ok, true);
      assert.equal((await store.release(r))?.creditsReserved, 0);
      assert.equal((await store.release(r))?.creditsReserved, 0, "a second release changes nothing");
      assert.equal((await store.getAccount(a.id))?.creditsReserved, 0);
      assert.equal((await store.reserve(hold(a.id, 10))).ok, true, "the released credits are free again");
      assert.equal(
        (await store.release(hold(a.id, 3)))?.creditsReserved,
        10,
        "an unknown reservation is a no-op",
      );
      assert.equal(await store.release(hold(uid("acct"), 1)), null);
    });

    test("commit with a new session and records settles the reservation", async () => {
      const a = await account({ creditsCap: 100 });
      const r = hold(a.id, 10);
      assert.equal((await store.reserve(r)).ok, true);
      const s = newSession(a.id);
      const records = [newRecord(s, 0), newRecord(s, 1, false)];
      const { account: after, charged } = await store.commit({
        reservation: r,
        ledger: entry(a.id, 7),
        newSession: { session: s, records },
      });
      assert.equal(charged, 7);
      assert.equal(after.creditsUsed, 7);
      assert.equal(after.creditsReserved, 0);
      assert.deepEqual(await store.getAccount(a.id), after);
      assert.deepEqual(await store.getSession(s.id), s);
      assert.deepEqual(await store.getRecords(s.id, 0, 10), records);
      assert.equal(await store.ledgerTotal(a.id), 7);
      assert.equal((await store.release(r))?.creditsReserved, 0, "the settled reservation is gone");
      assert.equal(await store.getSession(uid("srch")), null);
    });

    test("commit with a session update changes query, state, expiry and adds records", async () => {
      const a = await account();
      const { session: s, records: first } = await storeSession(a.id, (s) => [
        newRecord(s, 0),
        newRecord(s, 1),
      ]);
      const later = [newRecord(s, 2), newRecord(s, 3, false)];
      const expiresAt = s.expiresAt + 5000;
      await store.commit({
        reservation: null,
        ledger: entry(a.id, 2, { operation: "more" }),
        sessionUpdate: {
          id: s.id,
          query: { query: "updated", num: 20 },
          state: { cursor: "c2" },
          expiresAt,
          records: later,
          previous: { query: s.query, state: s.state },
        },
      });
      assert.deepEqual(await store.getSession(s.id), {
        ...s,
        query: { query: "updated", num: 20 },
        state: { cursor: "c2" },
        expiresAt,
      });
      assert.deepEqual(await store.getRecords(s.id, 0, 100), [...first, ...later]);

      // Without `query` the stored query stays.
      await store.commit({
        reservation: null,
        ledger: entry(a.id, 1, { operation: "more" }),
        sessionUpdate: {
          id: s.id,
          state: { cursor: "c3" },
          expiresAt: expiresAt + 1,
          records: [],
          previous: { query: { query: "updated", num: 20 }, state: { cursor: "c2" } },
        },
      });
      const updated = await store.getSession(s.id);
      assert.deepEqual(updated?.query, { query: "updated", num: 20 });
      assert.deepEqual(updated?.state, { cursor: "c3" });
      assert.equal(updated?.expiresAt, expiresAt + 1);
      assert.equal((await store.getAccount(a.id))?.creditsUsed, 3);
    });

    test("record content comes back with its keys in the order they were written", async () => {
      const a = await account();
      const { session: s, records } = await storeSession(a.id, (s) => {
        const r = newRecord(s, 0);
        // Longest key first and not alphabetical: jsonb would sort these.
        r.summary = { title: "T", url: "https://example.com", snippet: "S", a: 1, year: 2020 };
        r.detail = { zeta: 1, alpha: { second: 2, first: 1 }, mid: [{ b: 1, a: 2 }] };
        return [r];
      });
      const [back] = await store.getRecords(s.id, 0, 1);
      assert.deepEqual(Object.keys(back!.summary), ["title", "url", "snippet", "a", "year"]);
      assert.deepEqual(Object.keys(back!.detail!), ["zeta", "alpha", "mid"]);
      assert.deepEqual(Object.keys((back!.detail as { alpha: object }).alpha), ["second", "first"]);
      const cached: CachedAction = { detail: { title: "x", abstract: "y", doi: "z" }, links: [] };
      await store.commit({
        reservation: null,
        ledger: entry(a.id, 0, { operation: "details" }),
        recordAction: { recordId: records[0]!.id, action: "details", result: cached },
      });
      const found = await store.getRecord(records[0]!.id);
      assert.deepEqual(Object.keys(found!.record.actions.details!.detail as object), ["title", "abstract", "doi"]);
    });

    test("a session update is a compare-and-set on what the call read: a stale one writes nothing", async () => {
      const a = await account({ creditsCap: 10 });
      const { session: s } = await storeSession(a.id, (s) => [newRecord(s, 0)]);
      const read = { query: s.query, state: s.state };
      // Two follow-ups read the same state; the first commits, adding position 1.
      await store.commit({
        reservation: null,
        ledger: entry(a.id, 0, { operation: "more" }),
        sessionUpdate: { id: s.id, state: { cursor: "first" }, expiresAt: s.expiresAt, records: [newRecord(s, 1)], previous: read },
      });
      const r = hold(a.id, 4);
      assert.equal((await store.reserve(r)).ok, true);
      await assert.rejects(
        store.commit({
          reservation: r,
          ledger: entry(a.id, 4, { operation: "more" }),
          sessionUpdate: { id: s.id, state: { cursor: "second" }, expiresAt: s.expiresAt + 1, records: [newRecord(s, 1)], previous: read },
        }),
        (err: unknown) => err instanceof SessionChanged,
      );
      assert.deepEqual((await store.getSession(s.id))?.state, { cursor: "first" });
      assert.equal((await store.getRecords(s.id, 0, 10)).length, 2);
      assert.equal((await store.getAccount(a.id))?.creditsUsed, 0, "nothing charged");
      assert.equal(await store.ledgerTotal(a.id), 0);
      // Computed again from what is stored now, it lands.
      await store.commit({
        reservation: r,
        ledger: entry(a.id, 4, { operation: "more" }),
        sessionUpdate: {
          id: s.id,
          state: { cursor: "second" },
          expiresAt: s.expiresAt + 1,
          records: [newRecord(s, 2)],
          previous: { query: s.query, state: { cursor: "first" } },
        },
      });
      assert.deepEqual((await store.getSession(s.id))?.state, { cursor: "second" });
      assert.equal((await store.getAccount(a.id))?.creditsUsed, 4);
    });

    test("a failing commit changes nothing (update of a missing session)", async () => {
      const a = await account({ creditsCap: 10 });
      const r = hold(a.id, 5);
      assert.equal((await store.reserve(r)).ok, true);
      await assert.rejects(
        store.commit({
          reservation: r,
          ledger: entry(a.id, 3),
          sessionUpdate: { id: uid("srch"), state: {}, expiresAt: Date.now() + DAY, records: [], previous: { query: {}, state: {} } },
        }),
        isApiError("session_expired"),
      );
      const unchanged = await store.getAccount(a.id);
      assert.equal(unchanged?.creditsUsed, 0);
      assert.equal(unchanged?.creditsReserved, 5, "the reservation is still held");
      assert.equal(await store.ledgerTotal(a.id), 0);
      const { account: settled } = await store.commit({ reservation: r, ledger: entry(a.id, 3) });
      assert.equal(settled.creditsUsed, 3);
      assert.equal(settled.creditsReserved, 0);
    });

    test("commits issued together: the ones that fail change nothing, the others all land", async () => {
      const a = await account({ creditsCap: 100 });
      const good1 = newSession(a.id);
      const good2 = newSession(a.id);
      const holds = [hold(a.id, 10), hold(a.id, 10), hold(a.id, 10), hold(a.id, 10)];
      for (const h of holds) assert.equal((await store.reserve(h)).ok, true);
      // Issued in one turn, so the embedded store writes them as one batch.
      const outcomes = await Promise.allSettled([
        store.commit({ reservation: holds[0]!, ledger: entry(a.id, 2), newSession: { session: good1, records: [newRecord(good1, 0)] } }),
        // Expected failure: the session was swept meanwhile.
        store.commit({
          reservation: holds[1]!,
          ledger: entry(a.id, 3),
          sessionUpdate: { id: uid("srch"), state: {}, expiresAt: Date.now() + DAY, records: [], previous: { query: {}, state: {} } },
        }),
        // Unexpected failure: the account does not exist (the whole statement fails).
        store.commit({ reservation: null, ledger: entry(uid("acct"), 4) }),
        store.commit({ reservation: holds[3]!, ledger: entry(a.id, 5), newSession: { session: good2, records: [newRecord(good2, 0)] } }),
      ]);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ["fulfilled", "rejected", "rejected", "fulfilled"],
      );
      assert.ok(isApiError("session_expired")((outcomes[1] as PromiseRejectedResult).reason), "isApiError(\"session_expired\")((outcomes[1] as PromiseRejectedResult).reason)");
      const after = await store.getAccount(a.id);
      assert.equal(after?.creditsUsed, 7);
      assert.equal(after?.creditsReserved, 20, "the holds of the failed call and the unused one remain");
      assert.equal(await store.ledgerTotal(a.id), 7);
      assert.equal((await store.getRecords(good1.id, 0, 10)).length, 1);
      assert.equal((await store.getRecords(good2.id, 0, 10)).length, 1);
      await store.release(holds[1]!);
      await store.release(holds[2]!);
      assert.equal((await store.getAccount(a.id))?.creditsReserved, 0);
    });

    test("commit with a record action merges into the record's actions", async () => {
      const a = await account();
      const { session: s, records } = await storeSession(a.id, (s) => [newRecord(s, 0), newRecord(s, 1)]);
      const target = records[0]!;
      const details: CachedAction = {
        detail: { text: "full text", list: [1, "two", null, { deep: true }], empty: null },
        links: [{ label: "PDF", url: "https://example.com/a.pdf" }],
      };
      const quotes: CachedAction = { detail: ["q1", "q2"], links: [] };
      await store.commit({
        reservation: null,
        ledger: entry(a.id, 1, { operation: "details" }),
        recordAction: { recordId: target.id, action: "details", result: details },
      });
      await store.commit({
        reservation: null,
        ledger: entry(a.id, 1, { operation: "quotes" }),
        recordAction: { recordId: target.id, action: "quotes", result: quotes },
      });
      const got = await store.getRecord(target.id);
      assert.deepEqual(got, { record: { ...target, actions: { details, quotes } }, session: s });

      // A second result for an action already cached (two calls raced) is refused, nothing charged.
      const newer: CachedAction = { detail: "replaced", links: [] };
      await assert.rejects(
        store.commit({
          reservation: null,
          ledger: entry(a.id, 1, { operation: "details" }),
          recordAction: { recordId: target.id, action: "details", result: newer },
        }),
        (err: unknown) => err instanceof SessionChanged,
      );
      assert.deepEqual((await store.getRecord(target.id))?.record.actions, { details, quotes });
      assert.deepEqual(
        (await store.getRecord(records[1]!.id))?.record.actions,
        {},
        "other records untouched",
      );
      assert.equal((await store.getAccount(a.id))?.creditsUsed, 2);
      await assert.rejects(
        store.commit({
          reservation: null,
          ledger: entry(a.id, 1),
          recordAction: { recordId: uid("rec"), action: "details", result: details },
        }),
      );
      assert.equal((await store.getAccount(a.id))?.creditsUsed, 2, "the failed action charged nothing");
    });

    test("commit settling an already released reservation does not subtract twice", async () => {
      const a = await account({ creditsCap: 10 });
      const r = hold(a.id, 5);
      assert.equal((await store.reserve(r)).ok, true);
      assert.equal((await store.release(r))?.creditsReserved, 0);
      assert.equal((await store.reserve(hold(a.id, 3))).ok, true);
      const { account: after } = await store.commit({ reservation: r, ledger: entry(a.id, 4) });
      assert.equal(after.creditsReserved, 3, "the other reservation is untouched");
      assert.equal(after.creditsUsed, 4, "the call is still charged");
      assert.equal(await store.ledgerTotal(a.id), 4);
    });

    test("rollPeriod is a compare-and-set on periodEnd", async () => {
      const a = await account({ creditsCap: 100, status: "active", cadence: "monthly", periodEnd: 1000 });
      await charge(a.id, 6);
      assert.equal((await store.reserve(hold(a.id, 2))).ok, true);
      await store.rollPeriod(a.id, 1000, 2000);
      const rolled = await store.getAccount(a.id);
      assert.equal(rolled?.creditsUsed, 0);
      assert.equal(rolled?.periodEnd, 2000);
      assert.equal(rolled?.creditsReserved, 2, "in-flight reservations survive the roll");
      await charge(a.id, 3);
      await store.rollPeriod(a.id, 1000, 3000);
      const again = await store.getAccount(a.id);
      assert.equal(again?.creditsUsed, 3, "a stale roll is a no-op");
      assert.equal(again?.periodEnd, 2000);
      await store.rollPeriod(uid("acct"), 1000, 2000);
    });

    test("the period anchor is stored, read back everywhere an account is, and patched", async () => {
      const createdAt = Date.UTC(2025, 0, 5, 9, 30);
      const anchor = Date.UTC(2025, 2, 31, 12, 0);
      const a = await account({
        planId: "pro",
        status: "active",
        cadence: "monthly",
        creditsCap: 50,
        periodEnd: Date.UTC(2025, 3, 30, 12, 0),
        periodAnchor: anchor,
        createdAt,
      });
      assert.equal(a.periodAnchor, anchor);
      assert.equal(a.createdAt, createdAt);
      assert.equal((await store.getAccount(a.id))?.periodAnchor, anchor);
      assert.equal((await store.listAccounts()).find((x) => x.id === a.id)?.periodAnchor, anchor);
      const k = keyRow(a.id);
      await store.createKey(k);
      assert.equal((await store.findKeyByHash(k.hash))?.account.periodAnchor, anchor);
      assert.equal((await account({ periodAnchor: null })).periodAnchor, null);

      // A new subscription: anchor, period end and used set together; holds in flight stay.
      await charge(a.id, 30);
      const r = hold(a.id, 15);
      assert.equal((await store.reserve(r)).ok, true);
      const restarted = await store.updateAccount(a.id, {
        planId: "team",
        creditsCap: 20,
        periodAnchor: anchor + 1000,
        periodEnd: anchor + 2000,
        creditsUsed: 0,
      });
      assert.deepEqual(restarted && { ...restarted, creditsReserved: 15 }, {
        ...a,
        planId: "team",
        creditsCap: 20,
        periodAnchor: anchor + 1000,
        periodEnd: anchor + 2000,
        creditsUsed: 0,
        creditsReserved: 15,
      });
      const current = await store.getAccount(a.id);
      assert.equal(current?.creditsReserved, 15, "the hold of a call in flight is kept");
      assert.equal((await store.findKeyByHash(k.hash))?.account.periodAnchor, anchor + 1000);
      const { account: settled } = await store.commit({ reservation: r, ledger: entry(a.id, 12) });
      assert.equal(settled.creditsUsed, 12, "the call in flight is charged to the new period");
      assert.equal(settled.creditsReserved, 0);
      assert.equal((await store.reserve(hold(a.id, 9))).ok, false, "the new cap counts");

      const cleared = await store.updateAccount(a.id, { periodAnchor: null, periodEnd: null });
      assert.equal(cleared?.periodAnchor, null);
      assert.equal(cleared?.periodEnd, null);
      assert.equal(cleared?.creditsUsed, 12, "used is patched only when asked");
    });

    test("the one-time grant's usage is saved on leaving and put back on returning, in the same statement", async () => {
      const a = await account({ creditsCap: 100 });
      assert.equal(a.grantUsed, 0);
      await charge(a.id, 7);
      // Leaving: used as the row has it then goes to grantUsed while used restarts at 0.
      const paid = await store.updateAccount(a.id, { planId: "pro", creditsCap: 500, creditsUsed: 0, grant: "save" });
      assert.equal(paid?.grantUsed, 7);
      assert.equal(paid?.creditsUsed, 0);
      await charge(a.id, 40);
      assert.equal((await store.getAccount(a.id))?.grantUsed, 7, "charges on the paid plan do not touch the grant");
      // Returning: used is the grant's again (a creditsUsed given beside it is ignored).
      const back = await store.updateAccount(a.id, { planId: "free", creditsCap: 100, creditsUsed: 99, grant: "restore" });
      assert.equal(back?.creditsUsed, 7);
      assert.equal(back?.grantUsed, 7);
      assert.deepEqual(await store.getAccount(a.id), back);
      const k = keyRow(a.id);
      await store.createKey(k);
      assert.equal((await store.findKeyByHash(k.hash))?.account.grantUsed, 7);
      assert.equal((await store.listAccounts()).find((x) => x.id === a.id)?.grantUsed, 7);
    });

    test("a roll to the next anniversary of the anchor keeps the anchor", async () => {
      // Created in January, subscribed on March 31st: the periods end on the anchor's anniversaries,
      // the last day of shorter months, not on the 5th.
      const anchor = Date.UTC(2025, 2, 31, 12, 0);
      const a = await account({
        status: "active",
        cadence: "monthly",
        periodEnd: Date.UTC(2025, 3, 30, 12, 0),
        periodAnchor: anchor,
        createdAt: Date.UTC(2025, 0, 5, 9, 30),
      });
      await charge(a.id, 6);
      const now = Date.UTC(2025, 4, 2);
      const next = nextPeriodEnd(a.periodAnchor!, now);
      assert.equal(next, Date.UTC(2025, 4, 31, 12, 0));
      await store.rollPeriod(a.id, a.periodEnd!, next);
      const rolled = await store.getAccount(a.id);
      assert.equal(rolled?.periodEnd, Date.UTC(2025, 4, 31, 12, 0));
      assert.equal(rolled?.creditsUsed, 0);
      assert.equal(rolled?.periodAnchor, anchor, "the roll keeps the anchor");
      const after = Date.UTC(2025, 5, 1);
      await store.rollPeriod(a.id, rolled!.periodEnd!, nextPeriodEnd(rolled!.periodAnchor!, after));
      assert.equal((await store.getAccount(a.id))?.periodEnd, Date.UTC(2025, 5, 30, 12, 0));
    });

    test("releaseReservationsOlderThan releases old reservations only, once", async () => {
      const a = await account({ creditsCap: 100 });
      const old1 = hold(a.id, 4);
      const old2 = hold(a.id, 5);
      for (const r of [old1, old2]) assert.equal((await store.reserve(r)).ok, true);
      const oldMade = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const freshAsked = Date.now();
      const fresh = hold(a.id, 6);
      assert.equal((await store.reserve(fresh)).ok, true);
      assert.equal((await store.getAccount(a.id))?.creditsReserved, 15);
      // An age between the fresh hold's and the old ones' (the stores stamp them by their own clock,
      // so the test reads ages, not times): half the gap either side, however slow the machine is.
      const between = () => Date.now() - freshAsked + (freshAsked - oldMade) / 2;
      // Other tests' holds on this store may be old too: count this account's.
      await store.releaseReservationsOlderThan(between());
      assert.equal((await store.getAccount(a.id))?.creditsReserved, 6);
      assert.equal(await store.releaseReservationsOlderThan(between()), 0);
      const { account: settled } = await store.commit({ reservation: old1, ledger: entry(a.id, 2) });
      assert.equal(
        settled.creditsReserved,
        6,
        "a late commit of a swept reservation does not subtract again",
      );
      assert.equal(settled.creditsUsed, 2);
    });

    test("sweepExpired deletes at most `limit` expired sessions with their records", async () => {
      const a = await account();
      const expired = [];
      for (const expiresAt of [100, 200, 300]) {
        expired.push(await storeSession(a.id, (s) => [newRecord(s, 0)], newSession(a.id, { expiresAt })));
      }
      const live = await storeSession(a.id, (s) => [newRecord(s, 0), newRecord(s, 1)]);
      assert.equal(await store.sweepExpired(1000, 0), 0);
      assert.equal(await store.sweepExpired(1000, 2), 2);
      assert.equal(await store.sweepExpired(1000, 2), 1);
      assert.equal(await store.sweepExpired(1000, 2), 0);
      for (const { session, records } of expired) {
        assert.equal(await store.getSession(session.id), null);
        assert.deepEqual(await store.getRecords(session.id, 0, 10), []);
        assert.equal(await store.getRecord(records[0]!.id), null);
      }
      assert.deepEqual(await store.getSession(live.session.id), live.session);
      assert.deepEqual(await store.getRecords(live.session.id, 0, 10), live.records);
    });

    test("getRecords returns the range from <= position < to, in order", async () => {
      const a = await account();
      const { session: s, records } = await storeSession(a.id, (s) =>
        [3, 0, 4, 2, 1].map((p) => newRecord(s, p)),
      );
      const byPosition = [...records].sort((x, y) => x.position - y.position);
      assert.deepEqual(await store.getRecords(s.id, 0, 100), byPosition);
      assert.deepEqual(
        (await store.getRecords(s.id, 1, 4)).map((r) => r.position),
        [1, 2, 3],
      );
      assert.deepEqual(await store.getRecords(s.id, 4, 5), [byPosition[4]]);
      assert.deepEqual(await store.getRecords(s.id, 5, 10), []);
      assert.deepEqual(await store.getRecords(s.id, 2, 2), []);
      // Fractional bounds round up in both stores: 0.5 ≤ p < 2.5 is positions 1 and 2.
      assert.deepEqual(
        (await store.getRecords(s.id, 0.5, 2.5)).map((r) => r.position),
        [1, 2],
      );
      assert.deepEqual(await store.getRecords(uid("srch"), 0, 10), []);
    });

    test("getRecord returns the record with its session", async () => {
      const a = await account();
      const { session: s, records } = await storeSession(a.id, (s) => [
        newRecord(s, 0),
        newRecord(s, 1, false),
      ]);
      assert.deepEqual(await store.getRecord(records[1]!.id), { record: records[1], session: s });
      assert.deepEqual(await store.getRecord(records[0]!.id), { record: records[0], session: s });
      assert.equal(await store.getRecord(uid("rec")), null);
    });

    test("a page source is kept on its page's first record and read back only by getSource", async () => {
      const a = await account();
      // Not ASCII, with a quote, a backslash and an escaped NUL: kept exactly as the provider sent it.
      const text = '{"meals":[{"idMeal":"1","strMeal":"Crème \\"brûlée\\" \\\\ \\u0000"}]}';
      const page = (s: SessionRow, from: number, count: number, source: string): RecordRow[] =>
        Array.from({ length: count }, (_, i) => ({
          ...newRecord(s, from + i, false),
          sourceAt: from,
          ...(i === 0 ? { source } : {}),
        }));
      const { session: s, records } = await storeSession(a.id, (s) => page(s, 0, 3, text));
      // Rows come back with `sourceAt` and without the source itself.
      const asRead = records.map(({ source: _source, ...r }) => r);
      assert.deepEqual(await store.getRecords(s.id, 0, 10), asRead);
      assert.deepEqual(await store.getRecord(records[0]!.id), { record: asRead[0], session: s });
      assert.equal(await store.getSource(s.id, 0), text);
      assert.equal(await store.getSource(s.id, 1), null, "only the page's first record holds it");
      assert.equal(await store.getSource(s.id, 7), null);
      assert.equal(await store.getSource(s.id, -1), null);
      assert.equal(await store.getSource(uid("srch"), 0), null);
      // A later page (an update's fresh set) keeps its own source.
      const later = page(s, 3, 2, "second page");
      await store.commit({
        reservation: null,
        ledger: entry(a.id, 0),
        sessionUpdate: { id: s.id, state: { served: 2 }, expiresAt: s.expiresAt, records: later, previous: { query: s.query, state: s.state } },
      });
      assert.equal(await store.getSource(s.id, 3), "second page");
      assert.equal(await store.getSource(s.id, 0), text);
      assert.deepEqual((await store.getRecords(s.id, 3, 5)).map((r) => r.sourceAt), [3, 3]);
      // The source goes with its session.
      const expired = await storeSession(a.id, (x) => page(x, 0, 1, "gone"), newSession(a.id, { expiresAt: 50 }));
      assert.equal(await store.getSource(expired.session.id, 0), "gone");
      assert.ok((await store.sweepExpired(60, 10)) >= 1, "at least one expired session swept");
      assert.equal(await store.getSource(expired.session.id, 0), null);
    });

    test("a commit's touch moves the session's expiry with the charge; a session gone is left gone", async () => {
      const a = await account();
      const { session: s } = await storeSession(a.id, () => []);
      const r = hold(a.id, 2);
      assert.equal((await store.reserve(r)).ok, true);
      await store.commit({ reservation: r, ledger: entry(a.id, 2), touch: { sessionId: s.id, expiresAt: s.expiresAt + 60_000 } });
      assert.deepEqual(await store.getSession(s.id), { ...s, expiresAt: s.expiresAt + 60_000 });
      const stranger = uid("srch");
      const { charged } = await store.commit({ reservation: null, ledger: entry(a.id, 0), touch: { sessionId: stranger, expiresAt: 1 } });
      assert.equal(charged, 0);
      assert.equal(await store.getSession(stranger), null);
      assert.equal(await store.ledgerTotal(a.id), 2);
    });

    test("a settle never takes used past the cap: what no longer fits is not charged, and the ledger says so", async () => {
      // A call reserves 4 under a paid cap; the account goes back to a grant already used up.
      const a = await account({ creditsCap: 100 });
      await charge(a.id, 98);
      const r = hold(a.id, 2);
      assert.equal((await store.reserve(r)).ok, true);
      await store.updateAccount(a.id, { creditsCap: 99 });
      const partly = await store.commit({ reservation: r, ledger: entry(a.id, 2) });
      assert.equal(partly.charged, 1, "only the credit that fits");
      assert.equal(partly.account.creditsUsed, 99);
      assert.equal(partly.account.creditsReserved, 0);
      const r2 = hold(a.id, 1);
      await store.updateAccount(a.id, { creditsCap: 200 });
      assert.equal((await store.reserve(r2)).ok, true);
      await store.updateAccount(a.id, { creditsCap: 50 });
      const none = await store.commit({ reservation: r2, ledger: entry(a.id, 1) });
      assert.equal(none.charged, 0, "a cap already below used takes nothing more");
      assert.equal(none.account.creditsUsed, 99);
      assert.equal(await store.ledgerTotal(a.id), 99, "the ledger holds what was charged");
      const full = await store.commit({ reservation: null, ledger: entry((await account()).id, 30) });
      assert.equal(full.charged, 30, "a charge that fits is charged whole");
    });

    test("ledgerTotal and usage", async () => {
      const a = await account();
      const other = await account();
      const rows: [string, string, number, number][] = [
        ["web-search", "execute", 3, 1000],
        ["web-search", "execute", 2, 2000],
        ["web-search", "more", 1, 3000],
        ["news-search", "execute", 5, 4000],
      ];
      for (const [capability, operation, credits, createdAt] of rows) {
        await store.commit({
          reservation: null,
          ledger: entry(a.id, credits, { capability, operation, createdAt }),
        });
      }
      await charge(other.id, 50);
      assert.equal(await store.ledgerTotal(a.id), 11);
      assert.equal(await store.ledgerTotal(uid("acct")), 0);
      const sorted = (u: { capability: string; operation: string; calls: number; credits: number }[]) =>
        [...u].sort((x, y) => (x.capability + x.operation).localeCompare(y.capability + y.operation));
      assert.deepEqual(sorted(await store.usage(a.id, 0)), [
        { capability: "news-search", operation: "execute", calls: 1, credits: 5 },
        { capability: "web-search", operation: "execute", calls: 2, credits: 5 },
        { capability: "web-search", operation: "more", calls: 1, credits: 1 },
      ]);
      assert.deepEqual(sorted(await store.usage(a.id, 2000)), [
        { capability: "news-search", operation: "execute", calls: 1, credits: 5 },
        { capability: "web-search", operation: "execute", calls: 1, credits: 2 },
        { capability: "web-search", operation: "more", calls: 1, credits: 1 },
      ]);
      assert.deepEqual(await store.usage(a.id, 5000), []);
    });

    test("logins: create (email unique), find, list, sign-in time, password, delete", async () => {
      const a = await account();
      const login = loginRow(a.id);
      assert.equal(await store.createLogin(login), true);
      assert.equal(await store.createLogin({ ...loginRow(a.id), email: login.email }), false, "the email is taken");
      assert.deepEqual(await store.findLoginByEmail(login.email), login);
      assert.deepEqual(await store.getLogin(login.id), login);
      assert.equal(await store.findLoginByEmail("nobody@example.com"), null);
      const second = loginRow(a.id, { createdAt: login.createdAt + 1 });
      await store.createLogin(second);
      assert.deepEqual(
        (await store.listLogins(a.id)).map((l) => l.id),
        [login.id, second.id],
      );
      await store.noteSignIn(login.id, 12345);
      assert.equal((await store.getLogin(login.id))?.lastSignInAt, 12345);
      // A new password and a deletion each end the login's dashboard sessions.
      const session = { idHash: sha(), accountId: a.id, loginId: login.id, data: { loginId: login.id }, expiresAt: Date.now() + 60_000 };
      await store.setWebSession(session);
      assert.equal(await store.setLoginPassword(login.id, "scrypt$1$1$1$a$b"), true);
      assert.equal((await store.getLogin(login.id))?.passwordHash, "scrypt$1$1$1$a$b");
      assert.equal(await store.getWebSession(session.idHash), null);
      await store.setWebSession(session);
      assert.equal(await store.deleteLogin(login.id), true);
      assert.equal(await store.deleteLogin(login.id), false);
      assert.equal(await store.getLogin(login.id), null);
      assert.equal(await store.getWebSession(session.idHash), null);
      assert.equal(await store.setLoginPassword(uid("login"), "x"), false);
    });

    test("dashboard sessions: set (insert or replace), get, delete", async () => {
      const a = await account();
      const login = loginRow(a.id);
      await store.createLogin(login);
      const anonymous = { idHash: sha(), accountId: null, loginId: null, data: { _csrf: "s", nested: { a: [1, "x"] } }, expiresAt: Date.now() + 1000 };
      await store.setWebSession(anonymous);
      assert.deepEqual(await store.getWebSession(anonymous.idHash), anonymous);
      const signedIn = { ...anonymous, accountId: a.id, loginId: login.id, data: { loginId: login.id }, expiresAt: anonymous.expiresAt + 5000 };
      await store.setWebSession(signedIn);
      assert.deepEqual(await store.getWebSession(anonymous.idHash), signedIn);
      await store.deleteWebSession(anonymous.idHash);
      assert.equal(await store.getWebSession(anonymous.idHash), null);
      await store.deleteWebSession(anonymous.idHash);
    });

    test("settings: the first value stored wins", async () => {
      const name = uid("setting");
      assert.equal(await store.setting(name, "first"), "first");
      assert.equal(await store.setting(name, "second"), "first");
      const raced = uid("setting");
      const values = await Promise.all([store.setting(raced, "a"), store.setting(raced, "b")]);
      assert.equal(values[0], values[1], "two writers at once agree");
    });

    test("keys: touchKey records the latest use", async () => {
      const a = await account();
      const k = keyRow(a.id);
      await store.createKey(k);
      assert.equal((await store.listKeys(a.id))[0]!.lastUsedAt, null);
      await store.touchKey(k.id, 5000);
      await store.touchKey(k.id, 4000);
      assert.equal((await store.listKeys(a.id))[0]!.lastUsedAt, 5000, "never moves back");
      assert.equal((await store.findKeyByHash(k.hash))?.key.lastUsedAt, 5000);
      await store.touchKey(uid("key"), 1);
    });

    test("OAuth: client, code used once, grant with tokens, rotation, revocation", async () => {
      const a = await account();
      const client = { id: uid("client"), secretHash: sha(), metadata: { client_name: "Host", redirect_uris: ["http://127.0.0.1/cb"] }, createdAt: Date.now() };
      await store.createOAuthClient(client);
      assert.deepEqual(await store.getOAuthClient(client.id), client);
      const publicClient = { ...client, id: uid("client"), secretHash: null };
      await store.createOAuthClient(publicClient);
      assert.deepEqual(await store.getOAuthClient(publicClient.id), publicClient);
      assert.equal(await store.getOAuthClient(uid("client")), null);

      const grantId = uid("grant");
      const code: OAuthCodeRow = {
        hash: sha(),
        clientId: client.id,
        accountId: a.id,
        grantId,
        redirectUri: "http://127.0.0.1/cb",
        codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        scope: "quarry",
        resource: "http://127.0.0.1/",
        expiresAt: Date.now() + 60_000,
        createdAt: Date.now(),
        usedAt: null,
      };
      await store.createOAuthCode(code);
      const uses = await Promise.all([store.useOAuthCode(code.hash, 111), store.useOAuthCode(code.hash, 222)]);
      assert.deepEqual(uses.map((u) => u?.firstUse).sort(), [false, true], "one of two exchanges at once is the first");
      const first = uses.find((u) => u?.firstUse)!;
      assert.deepEqual(first.code, { ...code, usedAt: first.code.usedAt });
      assert.equal((await store.useOAuthCode(code.hash, 333))?.firstUse, false);
      assert.equal(await store.useOAuthCode(sha(), 1), null);

      const now = Date.now();
      const grant: OAuthGrantRow = {
        id: grantId,
        accountId: a.id,
        clientId: client.id,
        clientName: "Host",
        scope: "quarry",
        resource: "http://127.0.0.1/",
        createdAt: now,
        lastUsedAt: null,
        revokedAt: null,
      };
      const token = (kind: "access" | "refresh", ttl = 60_000): OAuthTokenRow => ({
        hash: sha(),
        grantId,
        kind,
        expiresAt: now + ttl,
        createdAt: now,
        usedAt: null,
      });
      const access = token("access");
      const refresh = token("refresh");
      await store.createOAuthGrant(grant, [access, refresh]);
      const found = await store.findOAuthToken(access.hash);
      assert.deepEqual(found?.token, access);
      assert.deepEqual(found?.grant, grant);
      assert.equal(found?.account.id, a.id);
      assert.equal(await store.findOAuthToken(sha()), null);
      assert.deepEqual(await store.listOAuthGrants(a.id), [grant]);

      await store.touchOAuthGrant(grantId, now + 5);
      assert.equal((await store.listOAuthGrants(a.id))[0]!.lastUsedAt, now + 5);

      // Rotation: the refresh token works once; its replay is told apart; an access token is no refresh token.
      // Which of the two wins the row lock is up to the database (under load, either): the winner's
      // tokens are saved, the loser's are not.
      const offers = [0, 1].map(() => [token("access"), token("refresh")]);
      const rotations = await Promise.all(offers.map((tokens) => store.rotateOAuthRefresh(refresh.hash, now + 10, tokens)));
      assert.deepEqual([...rotations].sort(), ["reused", "rotated"]);
      assert.equal((await store.findOAuthToken(refresh.hash))?.token.usedAt, now + 10);
      const won = offers[rotations.indexOf("rotated")]!;
      const lost = offers[rotations.indexOf("reused")]!;
      for (const t of won) assert.ok(await store.findOAuthToken(t.hash), "the winner's tokens are saved");
      for (const t of lost) assert.equal(await store.findOAuthToken(t.hash), null, "the replay's tokens are not");
      assert.equal(await store.rotateOAuthRefresh(access.hash, now + 10, []), "invalid");
      assert.equal(await store.rotateOAuthRefresh(sha(), now + 10, []), "invalid");
      const expired = token("refresh", -1);
      await store.createOAuthGrant({ ...grant, id: uid("grant") }, []);
      assert.equal(await store.rotateOAuthRefresh(expired.hash, now, []), "invalid");

      // Revocation keeps its first time; tokens then come with the revoked grant; its refresh is invalid.
      assert.equal(await store.revokeOAuthGrant(grantId, now + 20), now + 20);
      assert.equal(await store.revokeOAuthGrant(grantId, now + 30), now + 20);
      assert.equal((await store.findOAuthToken(access.hash))?.grant.revokedAt, now + 20);
      assert.equal(await store.rotateOAuthRefresh(won[1]!.hash, now + 40, []), "invalid");
      assert.equal((await store.listOAuthGrants(a.id)).find((g) => g.id === grantId)?.revokedAt, now + 20);
      assert.equal(await store.revokeOAuthGrant(uid("grant"), now), null);
    });

    test("sweepPeople deletes expired dashboard sessions, codes and tokens, at most `limit` of each", async () => {
      const a = await account();
      const client = { id: uid("client"), secretHash: null, metadata: {}, createdAt: 0 };
      await store.createOAuthClient(client);
      const grantId = uid("grant");
      await store.createOAuthGrant(
        { id: grantId, accountId: a.id, clientId: client.id, clientName: "c", scope: "", resource: "", createdAt: 0, lastUsedAt: null, revokedAt: null },
        [1500, 2500, 9_000_000_000_000].map((expiresAt) => ({ hash: sha(), grantId, kind: "access" as const, expiresAt, createdAt: 0, usedAt: null })),
      );
      const sessions = [1200, 1300, 9_000_000_000_000].map((expiresAt) => ({ idHash: sha(), accountId: null, loginId: null, data: {}, expiresAt }));
      for (const s of sessions) await store.setWebSession(s);
      const codes = [1100, 9_000_000_000_000].map((expiresAt) => ({
        hash: sha(),
        clientId: client.id,
        accountId: a.id,
        grantId,
        redirectUri: "x",
        codeChallenge: "y",
        scope: "",
        resource: "",
        expiresAt,
        createdAt: 0,
        usedAt: null,
      }));
      for (const c of codes) await store.createOAuthCode(c);
      // Fixed old times no other test uses: the sweep sees these rows only.
      assert.equal(await store.sweepPeople(3000, 1), 3, "one of each");
      assert.equal(await store.sweepPeople(3000, 10), 2);
      assert.equal(await store.sweepPeople(3000, 10), 0);
      assert.ok(await store.getWebSession(sessions[2]!.idHash), "the third session is kept");
      assert.equal(await store.getWebSession(sessions[0]!.idHash), null);
      assert.ok(await store.useOAuthCode(codes[1]!.hash, 1), "the second code is kept");
      assert.equal(await store.useOAuthCode(codes[0]!.hash, 1), null);
    });

    test("usageByDay and recentCalls", async () => {
      const a = await account();
      const day = 86_400_000;
      const base = 20_000 * day;
      const rows: [string, number, number][] = [
        ["web-search", 3, base + 1000],
        ["web-search", 2, base + 2000],
        ["news-search", 5, base + 3000],
        ["web-search", 1, base + day + 10],
      ];
      for (const [capability, credits, createdAt] of rows) {
        await store.commit({ reservation: null, ledger: entry(a.id, credits, { capability, createdAt, keyId: "key_x" }) });
      }
      assert.deepEqual(await store.usageByDay(a.id, base), [
        { day: base, capability: "news-search", calls: 1, credits: 5 },
        { day: base, capability: "web-search", calls: 2, credits: 5 },
        { day: base + day, capability: "web-search", calls: 1, credits: 1 },
      ]);
      assert.deepEqual(await store.usageByDay(a.id, base + day), [{ day: base + day, capability: "web-search", calls: 1, credits: 1 }]);
      const recent = await store.recentCalls(a.id, 3);
      assert.deepEqual(
        recent.map((r) => [r.capability, r.credits, r.createdAt, r.keyId]),
        [
          ["web-search", 1, base + day + 10, "key_x"],
          ["news-search", 5, base + 3000, "key_x"],
          ["web-search", 2, base + 2000, "key_x"],
        ],
      );
      assert.deepEqual(await store.recentCalls(uid("acct"), 5), []);
    });

    // Budgets per key (docs/architecture.md, "Credits"): a key's own limit per period.

    /** An account with one key of `limit` (null: none). */
    async function keyed(limit: number | null, overrides: Partial<NewAccount> = {}) {
      const a = await account({ creditsCap: 100, ...overrides });
      const k = keyRow(a.id, { creditLimit: limit });
      await store.createKey(k);
      return { a, k };
    }

    /** Reserve through `keyId`'s limit and settle `credits` of it; the commit's outcome. */
    async function spend(accountId: string, keyId: string, credits: number, reserve = credits) {
      const r = keyHold(accountId, keyId, reserve);
      assert.equal((await store.reserve(r)).ok, true, `${reserve} should fit`);
      return store.commit({ reservation: r, ledger: entry(accountId, credits, { keyId }) });
    }

    test("key limits: a key without one is as before (its row untouched); the lookup carries the limit", async () => {
      const { a, k } = await keyed(null);
      const r = hold(a.id, 30);
      assert.equal((await store.reserve(r)).ok, true);
      const { charged } = await store.commit({ reservation: r, ledger: entry(a.id, 20, { keyId: k.id }) });
      assert.equal(charged, 20);
      assert.deepEqual(await store.getKey(k.id), k, "no use counted, nothing held, no period written");
      assert.equal((await store.getAccount(a.id))?.creditsUsed, 20);
      assert.equal((await store.findKeyByHash(k.hash))?.key.creditLimit, null);
      const { k: limited } = await keyed(25);
      assert.equal((await store.findKeyByHash(limited.hash))?.key.creditLimit, 25);
      assert.deepEqual(await store.listKeys(limited.accountId), [limited]);
      assert.equal(await store.getKey(uid("key")), null);
    });

    test("key limits: reserve holds against the key's limit and the account's cap, both or neither", async () => {
      const { a, k } = await keyed(10, { creditsCap: 30 });
      const first = await store.reserve(keyHold(a.id, k.id, 6));
      assert.equal(first.ok, true);
      assert.equal(first.key, undefined);
      assert.equal(first.account?.creditsReserved, 6);
      assert.equal((await store.getKey(k.id))?.creditsReserved, 6);
      const refused = keyHold(a.id, k.id, 5);
      const over = await store.reserve(refused);
      assert.equal(over.ok, false, "6 held + 5 > the key's 10");
      assert.deepEqual(over.key, { limit: 10, used: 0, reserved: 6 });
      assert.equal(over.account?.creditsReserved, 6, "the account's hold was not kept");
      assert.equal((await store.getAccount(a.id))?.creditsReserved, 6);
      assert.equal((await store.getKey(k.id))?.creditsReserved, 6);
      assert.equal((await store.release(refused))?.creditsReserved, 6, "a refused hold left nothing to release");
      assert.equal((await store.reserve(keyHold(a.id, k.id, 4))).ok, true, "exactly up to the limit");
      // Another key of the account (no limit) still has the account's room.
      const other = keyRow(a.id);
      await store.createKey(other);
      assert.equal((await store.reserve(hold(a.id, 20))).ok, true);
      // The account's cap still applies to the limited key: refused by the account, no `key` said.
      const { a: small, k: roomy } = await keyed(1000, { creditsCap: 5 });
      const capped = await store.reserve(keyHold(small.id, roomy.id, 6));
      assert.equal(capped.ok, false);
      assert.equal(capped.key, undefined);
      assert.equal((await store.getKey(roomy.id))?.creditsReserved, 0);
    });

    test("key limits: a commit charges the key and frees its hold; a release frees it once", async () => {
      const { a, k } = await keyed(10);
      const { account: after, charged } = await spend(a.id, k.id, 5, 8);
      assert.equal(charged, 5);
      assert.equal(after.creditsUsed, 5);
      assert.equal(after.creditsReserved, 0);
      const key = (await store.getKey(k.id))!;
      assert.equal(key.creditsUsed, 5);
      assert.equal(key.creditsReserved, 0);
      assert.equal(key.usedPeriodEnd, a.periodEnd);
      assert.equal((await store.reserve(keyHold(a.id, k.id, 6))).ok, false, "5 used + 6 > 10");
      const r = keyHold(a.id, k.id, 5);
      assert.equal((await store.reserve(r)).ok, true);
      assert.equal((await store.getKey(k.id))?.creditsReserved, 5);
      assert.equal((await store.release(r))?.creditsReserved, 0);
      assert.equal((await store.release(r))?.creditsReserved, 0, "a second release changes nothing");
      assert.equal((await store.getKey(k.id))?.creditsReserved, 0);
      assert.equal((await store.getKey(k.id))?.creditsUsed, 5);
      // A call that cost nothing after all: its hold goes, no use is counted.
      const free = keyHold(a.id, k.id, 5);
      assert.equal((await store.reserve(free)).ok, true);
      assert.equal((await store.commit({ reservation: free, ledger: entry(a.id, 0, { keyId: k.id }) })).charged, 0);
      assert.deepEqual(
        [(await store.getKey(k.id))?.creditsUsed, (await store.getKey(k.id))?.creditsReserved],
        [5, 0],
      );
      assert.equal(await store.ledgerTotal(a.id), 5);
    });

    test("key limits: a settle charges no more than fits under a limit lowered meanwhile; the ledger says so", async () => {
      const { a, k } = await keyed(10);
      const r = keyHold(a.id, k.id, 8);
      assert.equal((await store.reserve(r)).ok, true);
      const lowered = await store.setKeyLimit(k.id, 3, 0);
      assert.equal(lowered?.creditLimit, 3);
      assert.equal(lowered?.creditsReserved, 8, "the hold in flight keeps counting");
      const { account: after, charged } = await store.commit({ reservation: r, ledger: entry(a.id, 8, { keyId: k.id }) });
      assert.equal(charged, 3);
      assert.equal(after.creditsUsed, 3, "the account is charged what the key was");
      assert.equal((await store.getKey(k.id))?.creditsUsed, 3);
      assert.equal(await store.ledgerTotal(a.id), 3);
    });

    test("key limits: a new period of the account resets the key's use; a grant given once never does", async () => {
      const { a, k } = await keyed(10, { planId: "pro", status: "active", cadence: "monthly", periodEnd: 1000 });
      await spend(a.id, k.id, 10);
      assert.equal((await store.reserve(keyHold(a.id, k.id, 1))).ok, false);
      await store.rollPeriod(a.id, 1000, 2000);
      const stale = (await store.getKey(k.id))!;
      assert.equal(stale.usedPeriodEnd, 1000, "no write to the key: its use belongs to the period that ended");
      const r = keyHold(a.id, k.id, 10);
      assert.equal((await store.reserve(r)).ok, true, "the whole limit again");
      await store.commit({ reservation: r, ledger: entry(a.id, 4, { keyId: k.id }) });
      const fresh = (await store.getKey(k.id))!;
      assert.deepEqual([fresh.creditsUsed, fresh.usedPeriodEnd], [4, 2000], "counted from 0 in the new period");
      // A plan change that starts a new subscription moves the period end: the same reset.
      await store.updateAccount(a.id, { periodEnd: 5000, creditsUsed: 0 });
      assert.equal((await store.reserve(keyHold(a.id, k.id, 10))).ok, true);
      // On a plan granted once (no period end) the key's use stays.
      const { a: once, k: onceKey } = await keyed(5);
      await spend(once.id, onceKey.id, 5);
      assert.equal((await store.reserve(keyHold(once.id, onceKey.id, 1))).ok, false);
    });

    test("key limits: the sweeper frees a key's held credits with the account's", async () => {
      const { a, k } = await keyed(20);
      const old = keyHold(a.id, k.id, 7);
      assert.equal((await store.reserve(old)).ok, true);
      const oldMade = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const freshAsked = Date.now();
      assert.equal((await store.reserve(keyHold(a.id, k.id, 5))).ok, true);
      assert.equal((await store.getKey(k.id))?.creditsReserved, 12);
      const between = () => Date.now() - freshAsked + (freshAsked - oldMade) / 2;
      await store.releaseReservationsOlderThan(between());
      assert.equal((await store.getAccount(a.id))?.creditsReserved, 5);
      assert.equal((await store.getKey(k.id))?.creditsReserved, 5, "the key's hold went with it");
      // Its late commit is still charged to both, and does not free the key's hold twice.
      const { charged } = await store.commit({ reservation: old, ledger: entry(a.id, 7, { keyId: k.id }) });
      assert.equal(charged, 7);
      const key = (await store.getKey(k.id))!;
      assert.deepEqual([key.creditsUsed, key.creditsReserved], [7, 5]);
    });

    test("key limits: setKeyLimit counts a newly limited key's use of this period from the ledger", async () => {
      const { a, k } = await keyed(null);
      const start = Date.now() - 60_000;
      // Before the period began (not counted), then in it: two of this key, one of another caller.
      await store.commit({ reservation: null, ledger: entry(a.id, 3, { keyId: k.id, createdAt: start - 1 }) });
      await store.commit({ reservation: null, ledger: entry(a.id, 4, { keyId: k.id }) });
      await store.commit({ reservation: null, ledger: entry(a.id, 2, { keyId: k.id }) });
      await store.commit({ reservation: null, ledger: entry(a.id, 9, { keyId: "grant_other" }) });
      const limited = (await store.setKeyLimit(k.id, 10, start))!;
      assert.equal(limited.creditLimit, 10);
      assert.equal(limited.creditsUsed, 6);
      assert.equal(limited.usedPeriodEnd, a.periodEnd);
      assert.equal((await store.findKeyByHash(k.hash))?.key.creditLimit, 10, "the cached lookup is forgotten");
      assert.equal((await store.reserve(keyHold(a.id, k.id, 5))).ok, false, "6 used + 5 > 10");
      assert.equal((await store.reserve(keyHold(a.id, k.id, 4))).ok, true);
      // Raised: the count goes on (no second look at the ledger).
      const raised = (await store.setKeyLimit(k.id, 12, start))!;
      assert.deepEqual([raised.creditLimit, raised.creditsUsed, raised.creditsReserved], [12, 6, 4]);
      // Removed: no limit; the hold in flight is still freed by its release.
      const removed = (await store.setKeyLimit(k.id, null, start))!;
      assert.equal(removed.creditLimit, null);
      assert.equal((await store.findKeyByHash(k.hash))?.key.creditLimit, null);
      assert.equal(await store.setKeyLimit(uid("key"), 5, start), null);
    });

    const { undoInDoubt } = options;
    if (undoInDoubt) test("key limits: a call in doubt undone gives the key's use back too, once", async () => {
      const { a, k } = await keyed(10, { planId: "pro", status: "active", cadence: "monthly", periodEnd: 9_000_000_000_000 });
      const r = keyHold(a.id, k.id, 6);
      assert.equal((await store.reserve(r)).ok, true);
      const op: CommitOp = { reservation: r, ledger: entry(a.id, 6, { keyId: k.id }) };
      const { account: after } = await store.commit(op);
      assert.equal((await store.getKey(k.id))?.creditsUsed, 6);
      assert.equal(await undoInDoubt(store, op, after.periodEnd), true);
      assert.equal((await store.getAccount(a.id))?.creditsUsed, 0);
      assert.equal((await store.getKey(k.id))?.creditsUsed, 0, "the key's use is back");
      assert.equal(await undoInDoubt(store, op, after.periodEnd), false, "undone once: the ledger row is gone");
      assert.equal((await store.getKey(k.id))?.creditsUsed, 0);
    });

    test("key limits: concurrent reserves never pass a key's limit; commits settle exactly", async () => {
      const { a, k } = await keyed(7, { creditsCap: 1000 });
      const attempts = Array.from({ length: 40 }, () => keyHold(a.id, k.id, 1));
      const results = await Promise.all(attempts.map((r) => store.reserve(r)));
      const held = attempts.filter((_, i) => results[i]!.ok);
      assert.equal(held.length, 7);
      assert.equal((await store.getAccount(a.id))?.creditsReserved, 7);
      await Promise.all(held.map((r) => store.commit({ reservation: r, ledger: entry(a.id, 1, { keyId: k.id }) })));
      const key = (await store.getKey(k.id))!;
      assert.deepEqual([key.creditsUsed, key.creditsReserved], [7, 0]);
      assert.equal(await store.ledgerTotal(a.id), 7);
      assert.equal((await store.getAccount(a.id))?.creditsUsed, 7);
    });

    test("concurrent reserves never pass the cap; commits settle exactly", async () => {
      const a = await account({ creditsCap: 10 });
      const attempts = Array.from({ length: 50 }, () => hold(a.id, 1));
      const results = await Promise.all(attempts.map((r) => store.reserve(r)));
      const held = attempts.filter((_, i) => results[i]!.ok);
      assert.equal(held.length, 10);
      assert.equal((await store.getAccount(a.id))?.creditsReserved, 10);
      // Releasing the refused ones must not give anything back.
      await Promise.all(attempts.filter((_, i) => !results[i]!.ok).map((r) => store.release(r)));
      assert.equal((await store.getAccount(a.id))?.creditsReserved, 10);
      await Promise.all(held.map((r) => store.commit({ reservation: r, ledger: entry(a.id, 1) })));
      const after = await store.getAccount(a.id);
      assert.equal(after?.creditsUsed, 10);
      assert.equal(after?.creditsReserved, 0);
      assert.equal(await store.ledgerTotal(a.id), 10);
      assert.equal((await store.reserve(hold(a.id, 1))).ok, false);
    });
  });
}
