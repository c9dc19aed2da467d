// The engine: variants chosen by a field with their own keys, fallback chains with notes and
// source-pinned cursors, costs metered and priced, record actions and their charges, settings.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Type } from "@sinclair/typebox";
import { fakeContext } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import type { JsonObject, JsonValue, SourcePage } from "../types.ts";
import { type ActionOutput, defineCapability } from "./define.ts";
import { num, oneOfOr, text } from "./fields.ts";

const schema = Type.Object(
  { platform: oneOfOr(["a", "b"], "a", "which"), query: text(1, 10, "q"), num: num(5, 3) },
  { additionalProperties: false },
);

const page = (title: string, next: JsonValue = null): SourcePage => ({ records: [{ summary: { title } }], next });

function cap(primary: (cursor: JsonValue) => Promise<SourcePage>) {
  return defineCapability({
    id: "test.search",
    title: "t",
    summary: "s",
    description: "d",
    topic: "x",
    schema,
    recordKeys: Type.Object({}),
    paging: "token",
    deadlineMs: 15_000,
    cost: { perCall: 0.001, perItem: 0.0005, maxItems: (q) => q.num, basis: "b" },
    variants: {
      field: "platform",
      options: {
        a: {
          sources: [
            { id: "one", title: "One", providers: [], search: (_ctx, _q, cursor) => primary(cursor) },
            { id: "two", title: "Two", providers: [], search: async (_ctx, _q, cursor) => page(`two ${JSON.stringify(cursor)}`, { p: 2 }), fallbackNotes: () => ["Two lacks x."] },
          ],
        },
        b: { requiredKeys: ["B_API_KEY"], sources: [{ id: "b", title: "B", providers: [], search: async () => page("b") }], cost: { basis: "free" } },
      },
    },
    actions: {
      details: {
        description: "d",
        mode: "fetched",
        cost: { perCall: 0.004 },
        run: async (_ctx, record): Promise<ActionOutput> =>
          record.ref?.free ? { detail: {}, links: [], billed: false } : { detail: { q: record.query.query }, links: [] },
      },
    },
    examples: [{ title: "e", body: { query: "x" } }],
  });
}

const Q = { platform: "a", query: "x", num: 3 };

test("availability: a variant's missing key makes it alone unavailable; its queries say which variable", () => {
  const c = cap(async () => page("one"));
  assert.deepEqual(c.availability(new Set(["B_API_KEY"])), {});
  assert.match(c.availability(new Set()).partial ?? "", /platform "b" is unavailable: B_API_KEY/);
  assert.equal(c.missingKeyFor(new Set(), { ...Q, platform: "b" }), "B_API_KEY");
  assert.equal(c.missingKeyFor(new Set(), Q), undefined);
});

test("cost: per call plus per item; the worst case by num; a variant's own cost", async () => {
  const c = cap(async () => page("one"));
  assert.equal(c.maxCredits(Q), 3, "0.001 + 3 × 0.0005 = 0.0025 → 3");
  assert.equal(c.maxCredits({ ...Q, platform: "b" }), 0);
  const { ctx } = fakeContext(null);
  const p = await c.search(ctx, Q, null);
  assert.equal(p.credits, 2, "0.001 + 1 × 0.0005 → 2");
  assert.equal(p.costUsd, 0.0015);
});

test("fallback: the next source answers a provider fault, with its notes; the cursor stays on it", async () => {
  let calls = 0;
  const c = cap(async () => {
    calls++;
    throw new ApiError("provider_error", "One failed");
  });
  const { ctx } = fakeContext(null);
  const first = await c.search(ctx, Q, null);
  assert.equal(first.records[0]!.summary.title, "two null");
  assert.deepEqual(first.notes, ["Two lacks x."]);
  assert.deepEqual(first.next, { source: "two", cursor: { p: 2 } });
  const second = await c.search(ctx, Q, first.next);
  assert.equal(second.records[0]!.summary.title, 'two {"p":2}', "the fallback's own cursor");
  assert.deepEqual(second.notes, ["Two lacks x."], "every fallback page says so");
  assert.equal(calls, 1, "later pages do not ask the primary again");
});

test("fallback: not for refusals (400) or past the deadline; every failure named when all fail", async () => {
  const refused = cap(async () => {
    throw new ApiError("invalid_request", "no");
  });
  const { ctx } = fakeContext(null);
  await assert.rejects(refused.search(ctx, Q, null), (e: unknown) => e instanceof ApiError && e.code === "invalid_request");
  const aborted = new AbortController();
  aborted.abort();
  const late = cap(async () => {
    throw new ApiError("provider_timeout", "slow");
  });
  await assert.rejects(late.search(fakeContext(null, { signal: aborted.signal }).ctx, Q, null), (e: unknown) => e instanceof ApiError && e.code === "provider_timeout");
});

test("a primary's cursor is its own; a cursor naming no known source goes to the primary", async () => {
  const seen: JsonValue[] = [];
  const c = cap(async (cursor) => {
    seen.push(cursor);
    return page("one", { n: 1 });
  });
  const { ctx } = fakeContext(null);
  const p = await c.search(ctx, Q, null);
  assert.deepEqual(p.next, { source: "one", cursor: { n: 1 } });
  await c.search(ctx, Q, p.next);
  await c.search(ctx, Q, { offset: 5 });
  assert.deepEqual(seen, [null, { n: 1 }, { offset: 5 }]);
});

test("record actions: billed per call unless the handler says no billed call was made", async () => {
  const c = cap(async () => page("one"));
  const details = c.actions.details!;
  assert.equal(details.credits, 4);
  assert.equal(details.maxCredits(Q), 4);
  const { ctx } = fakeContext(null);
  const billed = await details.run!(ctx, { summary: { title: "t" }, ref: null, detail: null, query: Q });
  assert.deepEqual([billed.credits, billed.detail], [4, { q: "x" }]);
  const freeRun = await details.run!(ctx, { summary: { title: "t" }, ref: { free: true }, detail: null, query: Q });
  assert.equal(freeRun.credits, 0);
});

test("declarations are checked: sources or variants, variant actions declared", () => {
  assert.throws(() => defineCapability({ ...baseDecl(), sources: undefined }), /exactly one of sources or variants/);
});

function baseDecl() {
  return {
    id: "x.y",
    title: "t",
    summary: "s",
    description: "d",
    topic: "x",
    schema,
    recordKeys: Type.Object({}),
    paging: "single" as const,
    deadlineMs: 15_000 as const,
    cost: { basis: "free" },
    actions: {},
    examples: [],
  };
}

test("variants by a nested field: a slash path picks the variant, its keys and its cost", async () => {
  const nested = Type.Object(
    {
      search: Type.Object({ kind: Type.Union([Type.Literal("paid"), Type.Literal("open")]), query: text(1, 10, "q") }, { additionalProperties: false }),
    },
    { additionalProperties: false },
  );
  const c = defineCapability({
    ...baseDecl(),
    schema: nested,
    cost: { perCall: 0.004, basis: "4 credits" },
    variants: {
      field: "search/kind",
      options: {
        paid: { requiredKeys: ["PAID_API_KEY"], sources: [{ id: "paid", title: "Paid", providers: [], search: async (_ctx, q) => page(`paid ${q.search.query}`) }] },
        open: { cost: { basis: "free" }, sources: [{ id: "open", title: "Open", providers: [], search: async (_ctx, q) => page(`open ${q.search.query}`) }] },
      },
    },
  });
  const paid = { search: { kind: "paid", query: "x" } };
  const open = { search: { kind: "open", query: "y" } };
  assert.deepEqual(c.availability(new Set()), { partial: 'search/kind "paid" is unavailable: PAID_API_KEY is not set in this deployment' });
  assert.equal(c.missingKeyFor(new Set(), paid), "PAID_API_KEY");
  assert.equal(c.missingKeyFor(new Set(), open), undefined);
  assert.deepEqual([c.maxCredits(paid), c.maxCredits(open)], [4, 0]);
  const { ctx } = fakeContext({});
  const [a, b] = [await c.search(ctx, paid, null), await c.search(ctx, open, null)];
  assert.deepEqual([a.records[0]!.summary.title, a.credits], ["paid x", 4]);
  assert.deepEqual([b.records[0]!.summary.title, b.credits], ["open y", 0]);
  await assert.rejects(c.search(ctx, { search: { query: "z" } }, null), /no variant for search\/kind=undefined/);
});

test("typed variants: each option sees its own member of a tagged union, and every tag needs an option", async () => {
  const tagged = Type.Object(
    {
      doc: Type.Union([
        Type.Object({ source: Type.Literal("eu"), celex: text(1, 20, "c") }, { additionalProperties: false }),
        Type.Object({ source: Type.Literal("us"), item: text(1, 20, "i") }, { additionalProperties: false }),
      ]),
    },
    { additionalProperties: false },
  );
  const c = defineCapability({
    ...baseDecl(),
    schema: tagged,
    variants: {
      field: "doc/source",
      options: {
        // The handler reads its member's own field: no check of `source` again (the compiler proves it).
        eu: { sources: [{ id: "eu", title: "EU", providers: [], search: async (_ctx, q) => page(`eu ${q.doc.celex}`) }] },
        us: {
          sources: [
            {
              id: "us",
              title: "US",
              providers: [],
              search: async (_ctx, q) => {
                // @ts-expect-error: the `us` option's query has no `celex` (its member is the `us` one).
                void q.doc.celex;
                return page(`us ${q.doc.item}`);
              },
            },
          ],
        },
      },
    },
  });
  const { ctx } = fakeContext({});
  const eu = await c.search(ctx, { doc: { source: "eu", celex: "32016R0679" } }, null);
  const us = await c.search(ctx, { doc: { source: "us", item: "usrep347483" } }, null);
  assert.deepEqual([eu.records[0]!.summary.title, us.records[0]!.summary.title], ["eu 32016R0679", "us usrep347483"]);
});

// Checked by the compiler, not at run time (`npm run typecheck` fails if the error below goes away):
// every tag the schema allows needs an option. Never called.
export function missingVariantOptionDoesNotCompile() {
  const tagged = Type.Object({ doc: Type.Union([Type.Object({ source: Type.Literal("eu") }), Type.Object({ source: Type.Literal("us") })]) });
  return defineCapability({
    ...baseDecl(),
    schema: tagged,
    // @ts-expect-error: `us` has no option.
    variants: { field: "doc/source", options: { eu: { sources: [] } } },
  });
}

test("record refs: an action's declared needs decide appliesTo, refuse other records at /record_id before the handler, and type the ref", async () => {
  const seen: string[] = [];
  const c = defineCapability({
    ...baseDecl(),
    sources: [{ id: "s", title: "S", providers: [], search: async () => page("s") }],
    actions: {
      read: {
        description: "d",
        mode: "fetched",
        cost: { perCall: 0.005 },
        needs: {
          ref: Type.Object({ url: Type.String({ pattern: "^https://" }) }),
          refusal: (record) => `this ${String(record.summary.kind)} carries no url`,
          message: "This record has no page to read.",
        },
        // Beyond the ref: only pages not marked private.
        appliesTo: (record) => !record.ref.url.endsWith("/private"),
        async run(_ctx, record) {
          seen.push(record.ref.url); // typed: a string, no check here
          return { detail: { url: record.ref.url }, links: [] };
        },
      },
    },
  });
  const read = c.actions.read!;
  const rec = (ref: JsonObject | null) => ({ summary: { title: "t", kind: "answer_box" }, ref, detail: null, query: {} });
  assert.equal(read.appliesTo(rec({ url: "https://a.example/" })), true, "a ref with the declared field takes the action");
  assert.equal(read.appliesTo(rec({ url: "https://a.example/private" })), false, "the declaration's own appliesTo still counts");
  assert.equal(read.appliesTo(rec({ url: "ftp://a.example/" })), false, "a ref not matching the schema does not take it");
  assert.equal(read.appliesTo(rec(null)), false, "a record without a ref does not take it");
  const { ctx } = fakeContext({});
  const out = await read.run!(ctx, rec({ url: "https://a.example/", other: 1 }));
  assert.deepEqual([out.detail, out.credits], [{ url: "https://a.example/" }, 5]);
  await assert.rejects(read.run!(ctx, rec({ title: "no url" })), (e: unknown) => {
    assert.ok(e instanceof ApiError, "an ApiError");
    assert.equal(e.code, "invalid_request");
    assert.equal(e.message, "This record has no page to read.");
    assert.deepEqual(e.violations, [{ path: "/record_id", message: "this answer_box carries no url" }]);
    return true;
  });
  assert.deepEqual(seen, ["https://a.example/"], "the handler never ran for the refused record");
});
