/** The per-search record limit: where it refuses, and that the embedded store's migration matches it. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError } from "../errors.ts";
import { loadMigrations } from "../store/sql-common.ts";
import { MAX_SESSION_RECORDS } from "../store/types.ts";
import { assertRoom } from "./search-service.ts";

test("a page that ends at the limit fits; one record more is a 400 on /action", () => {
  assert.doesNotThrow(() => assertRoom(0, 25));
  assert.doesNotThrow(() => assertRoom(MAX_SESSION_RECORDS - 10, 10));
  assert.throws(
    () => assertRoom(MAX_SESSION_RECORDS - 10, 11),
    (error: unknown) =>
      error instanceof ApiError &&
      error.code === "invalid_request" &&
      error.violations?.[0]?.path === "/action",
  );
});

test("the embedded store's migration lays out and checks slots for exactly the positions the service allows", () => {
  // SQL cannot import the constant: migration 003 spells the number out, in its slot multiplier
  // and in the records table's CHECK.
  const sql = loadMigrations("sqlite").find((m) => m.version === 3)?.sql ?? "";
  const numbers = [...sql.matchAll(/\b\d{6,}\b/g)].map((m) => Number(m[0]));
  assert.ok(numbers.length >= 3, "slot multiplier and CHECK bound found");
  assert.deepEqual(new Set(numbers), new Set([MAX_SESSION_RECORDS]));
});
