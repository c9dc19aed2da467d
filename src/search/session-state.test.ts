/**
 * session-state.ts: the query a record was found under, across updates that replace the session's.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { JsonObject } from "../capabilities/types.ts";
import type { SessionRow } from "../store/types.ts";
import { earlierAfterUpdate, queryAt, type SessionState, stateJson } from "./session-state.ts";

function session(query: JsonObject, state: SessionState): SessionRow {
  return { id: "s", accountId: "a", capability: "c", query, state: stateJson(state), expiresAt: 0, createdAt: 0 };
}

test("without an update every record was found under the session's query", () => {
  const s = session({ q: "one" }, { nextPosition: 20, start: 0, served: 10 });
  assert.deepEqual(queryAt(s, 0), { q: "one" });
  assert.deepEqual(queryAt(s, 19), { q: "one" });
});

test("an update keeps the replaced set's query for its records; later sets have theirs", () => {
  const first: SessionState = { nextPosition: 5, start: 0, served: 5 };
  const afterOne = session({ q: "two" }, { nextPosition: 9, start: 5, served: 4, earlier: earlierAfterUpdate(session({ q: "one" }, first), first) });
  assert.deepEqual(queryAt(afterOne, 0), { q: "one" });
  assert.deepEqual(queryAt(afterOne, 4), { q: "one" });
  assert.deepEqual(queryAt(afterOne, 5), { q: "two" });
  const second: SessionState = stateOfRow(afterOne);
  const afterTwo = session({ q: "three" }, { nextPosition: 12, start: 9, served: 3, earlier: earlierAfterUpdate(afterOne, second) });
  assert.deepEqual(stateOfRow(afterTwo).earlier, [
    { from: 0, query: { q: "one" } },
    { from: 5, query: { q: "two" } },
  ]);
  assert.deepEqual(queryAt(afterTwo, 3), { q: "one" });
  assert.deepEqual(queryAt(afterTwo, 8), { q: "two" });
  assert.deepEqual(queryAt(afterTwo, 9), { q: "three" });
});

test("a set that found nothing is not kept: it holds no record to answer for", () => {
  const empty: SessionState = { nextPosition: 5, start: 5, served: 0, earlier: [{ from: 0, query: { q: "one" } }] };
  assert.deepEqual(earlierAfterUpdate(session({ q: "two" }, empty), empty), [{ from: 0, query: { q: "one" } }]);
  const none: SessionState = { nextPosition: 0, start: 0, served: 0 };
  assert.equal(earlierAfterUpdate(session({ q: "one" }, none), none), undefined);
});

function stateOfRow(s: SessionRow): SessionState {
  return s.state as unknown as SessionState;
}
