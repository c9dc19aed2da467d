/**
 * envelope.ts: `next.example` is a follow-up valid right now. On a last page it names the first
 * record a record action can run on, and the first such action; with none, null and a note.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Type } from "@sinclair/typebox";
import type { AccountRow, RecordRow } from "../store/types.ts";
import { defineCapability } from "../capabilities/framework/define.ts";
import { num, text } from "../capabilities/framework/fields.ts";
import { executeResponse } from "./envelope.ts";

const cap = defineCapability({
  id: "test.search",
  title: "t",
  summary: "s",
  description: "d",
  topic: "x",
  schema: Type.Object({ query: text(1, 10, "q"), num: num(5, 3) }, { additionalProperties: false }),
  recordKeys: Type.Object({}),
  paging: "page",
  deadlineMs: 15_000,
  cost: { basis: "free" },
  sources: [{ id: "one", title: "One", providers: [], search: async () => ({ records: [], next: null }) }],
  actions: {
    // Only records with a url can be read; only those with an id have details.
    read: { description: "r", mode: "fetched", appliesTo: (r) => typeof r.ref?.url === "string", run: async () => ({ detail: {}, links: [] }) },
    details: { description: "d", mode: "fetched", appliesTo: (r) => typeof r.ref?.id === "string", run: async () => ({ detail: {}, links: [] }) },
  },
  examples: [{ title: "e", body: { query: "x" } }],
});

const account = { creditsUsed: 0, creditsCap: 100, periodEnd: null } as unknown as AccountRow;
const row = (id: string, ref: RecordRow["ref"]): RecordRow => ({
  id,
  searchId: "srch_1",
  accountId: "acc",
  position: 0,
  summary: { title: id },
  ref,
  detail: null,
  links: null,
  actions: {},
  sourceAt: null,
});
const last = { nextPosition: 3, start: 0, served: 3, cursor: null };
const answer = (rows: RecordRow[]) => executeResponse(cap, "srch_1", { query: "x", num: 3 }, last, rows, 0, account);

test("the first record an action can run on, with the first action that can", () => {
  const res = answer([row("rec_a", null), row("rec_b", { id: "7" }), row("rec_c", { url: "https://example.com", id: "8" })]);
  assert.deepEqual(res.next.example, { record_id: "rec_b", action: "details" });
  assert.equal(res.notes, undefined);
  assert.deepEqual(answer([row("rec_c", { url: "https://example.com" })]).next.example, { record_id: "rec_c", action: "read" });
});

test("a page none of whose records can take an action: no example, a note naming the actions", () => {
  const res = answer([row("rec_a", null), row("rec_b", {})]);
  assert.equal(res.next.example, null);
  assert.match(res.notes!.at(-1)!, /No record on this page can take a record action \(read, details\)/);
  assert.deepEqual(res.record_actions, ["read", "details"], "the actions are still listed: records of other pages may take them");
});
