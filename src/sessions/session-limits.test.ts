/** The per-search record limit: where it refuses, and that the embedded store's slot layout matches it. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError } from "../errors.ts";
import { SLOTS_PER_SESSION } from "../store/sqlite-writer.ts";
import { assertRoom, MAX_SESSION_RECORDS } from "./search-service.ts";

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

test("the embedded store has a slot for every position the service allows", () => {
  assert.equal(SLOTS_PER_SESSION, MAX_SESSION_RECORDS);
});
