// companies.financials declaration: schema bounds and defaults, each rule's violation and pointer
// (execute and update), metadata of spec 4.6, the published schema, and the search glue through a
// fake upstream (ticker resolution and refusal, a filing without XBRL, the requests sent, a drifted
// XBRL instance answered as ProviderDrift from the worker).
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeContext, fixture, fixtureText, response, violationsOf } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { ProviderDrift } from "../../upstream/response-check.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { JsonObject } from "../types.ts";
import { companiesFinancials as cap } from "./capability.ts";
import { closeXbrlPool } from "./xbrl-pool.ts";

const paths = (body: JsonObject) => violationsOf(cap, body).map((v) => v.path);
const FACTS = { company: { cik: "1065280" }, view: "financials", accession: "0001193125-10-235785" };

test("schema: defaults view filings and num 5; every spec field accepted at its bounds", () => {
  const body: JsonObject = { company: { ticker: "AAPL" } };
  assert.deepEqual(violationsOf(cap, body), []);
  assert.equal(body.view, "filings");
  assert.equal(body.num, 5);
  const ok: JsonObject[] = [
    { company: { cik: "1" } },
    { company: { cik: "0000320193" } },
    { company: { ticker: "BRK-B" } },
    { company: { ticker: "brk.b" } },
    { company: { ticker: "A23456789012345" } },
    { company: { cik: "320193" }, forms: ["10-K", "10-Q", "20-F", "40-F", "10-K/A", "10-Q/A", "20-F/A", "40-F/A"] },
    { company: { cik: "320193" }, filed_from: "2024-02-29", filed_to: "2024-02-29", num: 10 },
    { company: { cik: "320193" }, accession: "0000320193-24-000123", num: 1 },
    { ...FACTS },
    { ...FACTS, view: "revenue_breakdown" },
  ];
  for (const b of ok) assert.deepEqual(violationsOf(cap, structuredClone(b)), [], JSON.stringify(b));
});

test("schema: each field's bounds and patterns at its own pointer", () => {
  const c = { cik: "320193" };
  const cases: [JsonObject, string][] = [
    [{}, "/company"],
    [{ company: "AAPL" }, "/company"],
    [{ company: { cik: "abc" } }, "/company/cik"],
    [{ company: { cik: "12345678901" } }, "/company/cik"],
    [{ company: { cik: 320193 } }, "/company/cik"],
    [{ company: { ticker: "" } }, "/company/ticker"],
    [{ company: { ticker: "-AAPL" } }, "/company/ticker"],
    [{ company: { ticker: "A234567890123456" } }, "/company/ticker"],
    [{ company: { ticker: "AA PL" } }, "/company/ticker"],
    [{ company: { name: "Apple" } }, "/company/name"],
    [{ company: c, view: "facts" }, "/view"],
    [{ company: c, accession: "0000320193-24-00012" }, "/accession"],
    [{ company: c, accession: "000032019324000123" }, "/accession"],
    [{ company: c, forms: [] }, "/forms"],
    [{ company: c, forms: ["10-K", "10-K"] }, "/forms"],
    [{ company: c, forms: ["8-K"] }, "/forms/0"],
    [{ company: c, forms: "10-K" }, "/forms"],
    [{ company: c, filed_from: "2024-1-01" }, "/filed_from"],
    [{ company: c, filed_to: "20240101" }, "/filed_to"],
    [{ company: c, num: 0 }, "/num"],
    [{ company: c, num: 11 }, "/num"],
    [{ company: c, num: 2.5 }, "/num"],
    [{ company: c, query: "apple" }, "/query"],
  ];
  for (const [body, pointer] of cases) assert.deepEqual(paths(structuredClone(body)), [pointer], JSON.stringify(body));
  // Nine forms cannot be unique: refused at /forms.
  assert.ok(paths({ company: c, forms: ["10-K", "10-Q", "20-F", "40-F", "10-K/A", "10-Q/A", "20-F/A", "40-F/A", "10-K"] }).includes("/forms"), "paths({ company: c, forms: [\"10-K\", \"10-Q\", \"20-F\", \"40-F\", \"10-K/A\", \"10-Q/A\", \"20-F/A...");
});

test("rules: one company, valid dates in order, accession with the fact views, each at its pointer", () => {
  const one = (body: JsonObject) => violationsOf(cap, body);
  const neither = one({ company: {} });
  assert.equal(neither.length, 1);
  assert.equal(neither[0]!.path, "/company");
  assert.match(neither[0]!.message, /"cik".*"ticker"/);
  const both = one({ company: { cik: "320193", ticker: "AAPL" } });
  assert.equal(both.length, 1, "one clear violation, not one per union branch");
  assert.equal(both[0]!.path, "/company");
  assert.match(both[0]!.message, /exactly one of `cik` or `ticker`, not both/);
  assert.deepEqual(paths({ company: { cik: "1" }, filed_from: "2024-02-30" }), ["/filed_from"]);
  assert.deepEqual(paths({ company: { cik: "1" }, filed_to: "2023-02-29" }), ["/filed_to"]);
  const order = one({ company: { cik: "1" }, filed_from: "2024-02-01", filed_to: "2024-01-31" });
  assert.deepEqual(order.map((v) => [v.path, v.message]), [["/filed_from", "filed_from must not exceed filed_to."]]);
  for (const view of ["financials", "revenue_breakdown"]) {
    const missing = one({ company: { cik: "1" }, view });
    assert.equal(missing.length, 1);
    assert.equal(missing[0]!.path, "/accession");
    assert.match(missing[0]!.message, new RegExp(`view "${view}" reads one filing`));
  }
});

test("rules in an update point at what the caller sent", () => {
  const stored = { company: { cik: "320193" }, view: "filings", num: 5 };
  // The caller asked for a fact view without an accession: /view (the service prefixes /params).
  assert.deepEqual(cap.checkRules({ ...stored, view: "financials" }, new Set(["view"])).map((v) => v.path), ["/view"]);
  // The caller removed the accession of a stored fact view: /accession.
  assert.deepEqual(cap.checkRules({ ...stored, view: "financials" }, new Set(["accession"])).map((v) => v.path), ["/accession"]);
  // A stored filed_to before a sent filed_from: at filed_from, naming the stored value.
  const range = cap.checkRules({ ...stored, filed_from: "2025-01-01", filed_to: "2024-01-01" }, new Set(["filed_from"]));
  assert.deepEqual(range.map((v) => [v.path, v.message]), [["/filed_from", 'filed_from must not exceed filed_to ("2024-01-01", from the search).']]);
});

test("metadata as spec 4.6: free, 40 s, local, actions all free; published schema carries the rules", () => {
  assert.equal(cap.id, "companies.financials");
  assert.equal(cap.paging, "local");
  assert.equal(cap.deadlineMs, 40_000);
  assert.equal(cap.typicalCredits, 0);
  assert.equal(cap.offersUpdate, true);
  assert.equal(cap.pageSize({ company: { cik: "1" }, view: "filings", num: 7 }), 7);
  assert.equal(cap.maxCredits({ ...FACTS, num: 5 }), 0);
  assert.deepEqual(
    Object.values(cap.actions).map((a) => [a.name, a.mode, a.credits]),
    [
      ["details", "stored", 0],
      ["financials", "fetched", 0],
      ["revenue_breakdown", "fetched", 0],
    ],
  );
  assert.deepEqual(cap.availability(new Set()), { missing: "SEC_USER_AGENT" });
  assert.deepEqual(cap.availability(new Set(["SEC_USER_AGENT"])), {});
  const published = cap.publishedSchema as { required: string[]; allOf: JsonObject[]; description: string };
  assert.deepEqual(published.required, ["company"]);
  assert.deepEqual(published.allOf[0], { properties: { company: { oneOf: [{ required: ["cik"] }, { required: ["ticker"] }] } } });
  assert.match(published.description, /require `accession`/);
  for (const { body } of cap.examples) assert.deepEqual(violationsOf(cap, structuredClone(body)), [], JSON.stringify(body));
});

test("a ticker resolves through the tickers file; an unknown one is refused at /company/ticker", async () => {
  const answer = (r: UpstreamRequest) => (r.path === "/files/company_tickers.json" ? fixture("sec", "company_tickers.json") : fixture("sec", "submissions_CIK0000320193.json"));
  const { ctx, requests } = fakeContext(answer);
  const page = await cap.search(ctx, { company: { ticker: "aapl" }, view: "filings", num: 5 }, null);
  assert.equal(page.records.length, 40);
  assert.equal(page.credits, 0);
  assert.deepEqual(requests.map((r) => [r.host ?? "default", r.path]), [
    ["www", "/files/company_tickers.json"],
    ["default", "/submissions/CIK0000320193.json"],
  ]);
  // The tickers file is cached: a second search asks only for submissions.
  await cap.search(ctx, { company: { ticker: "AAPL" }, view: "filings", num: 5 }, null);
  assert.equal(requests.length, 3);
  await assert.rejects(cap.search(ctx, { company: { ticker: "ZZZZ" }, view: "filings", num: 5 }, null), (e: unknown) => {
    assert.ok(e instanceof ApiError && e.code === "invalid_request", "e instanceof ApiError && e.code === \"invalid_request\"");
    assert.equal(e.violations?.[0]?.path, "/company/ticker");
    assert.match(e.violations?.[0]?.message ?? "", /not in EDGAR's ticker list; give the company's CIK/);
    return true;
  });
});

test("a ticker two filers share is refused, naming both CIKs", async () => {
  const { ctx } = fakeContext({ "0": { cik_str: 11, ticker: "DUP", title: "One" }, "1": { cik_str: 22, ticker: "DUP", title: "Two" } });
  await assert.rejects(cap.search(ctx, { company: { ticker: "DUP" }, view: "filings", num: 5 }, null), (e: unknown) => {
    assert.ok(e instanceof ApiError && e.code === "invalid_request", "e instanceof ApiError && e.code === \"invalid_request\"");
    assert.equal(e.violations?.[0]?.path, "/company/ticker");
    assert.match(e.violations?.[0]?.message ?? "", /names 2 filers.*CIK 0000000011 One; CIK 0000000022 Two.*company\.cik/);
    return true;
  });
});

test("a filing without an XBRL instance, or unknown to EDGAR, is refused at /accession", async () => {
  const noInstance = { directory: { item: [{ name: "d10k.htm", type: "text.gif", size: "1" }] } };
  const { ctx } = fakeContext([noInstance]);
  await assert.rejects(cap.search(ctx, { ...FACTS, num: 5 }, null), (e: unknown) => {
    assert.ok(e instanceof ApiError && e.code === "invalid_request", "e instanceof ApiError && e.code === \"invalid_request\"");
    assert.equal(e.violations?.[0]?.path, "/accession");
    assert.match(e.violations?.[0]?.message ?? "", /has no XBRL instance/);
    return true;
  });
  const gone = fakeContext([response(404, { error: "no such directory" })]);
  await assert.rejects(cap.search(gone.ctx, { ...FACTS, num: 5 }, null), (e: unknown) => {
    assert.ok(e instanceof ApiError && e.code === "invalid_request", "e instanceof ApiError && e.code === \"invalid_request\"");
    assert.match(e.violations?.[0]?.message ?? "", /EDGAR has no filing 0001193125-10-235785 under CIK 0001065280/);
    return true;
  });
  // The same 404 for a filing EDGAR itself listed (a record action) is EDGAR's fault.
  const action = cap.actions.financials!;
  const again = fakeContext([response(404, {})]);
  await assert.rejects(
    action.run!(again.ctx, { summary: { title: "x" }, ref: { cik: "0000320193", accession: "0000320193-24-000123", is_xbrl: true }, detail: null, query: {} }),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error",
  );
});

test("a fact view reads the index, the instance and the labels, and lists every selected fact", async () => {
  const { ctx, requests } = fakeContext((r: UpstreamRequest) => {
    if (r.path.endsWith("/index.json")) return fixture("sec", "filing_index_nflx_10q_2010q3.json");
    const file = r.path.endsWith("_lab.xml") ? "xbrl_labels_nflx_10q_2010q3.xml" : "xbrl_instance_nflx_10q_2010q3.xml";
    return response(200, fixtureText("sec", file));
  });
  try {
    const page = await cap.search(ctx, { ...FACTS, num: 5, forms: ["10-Q"] }, null);
    assert.equal(page.records.length, 292);
    assert.equal(page.next, null);
    assert.deepEqual(
      requests.map((r) => r.path),
      [
        "/Archives/edgar/data/1065280/000119312510235785/index.json",
        "/Archives/edgar/data/1065280/000119312510235785/nflx-20100930.xml",
        "/Archives/edgar/data/1065280/000119312510235785/nflx-20100930_lab.xml",
      ],
    );
    assert.ok(requests.every((r) => r.provider === "sec" && r.host === "www"), "requests.every((r) => r.provider === \"sec\" && r.host === \"www\")");
    assert.match(page.notes?.join(" ") ?? "", /`forms` select filings and do not apply to view "financials"/);
  } finally {
    await closeXbrlPool();
  }
});

test("an instance that lost a part the extraction reads is ProviderDrift naming SEC EDGAR and the part, never an empty list", async () => {
  const { ctx } = fakeContext((r: UpstreamRequest) => {
    if (r.path.endsWith("/index.json")) return fixture("sec", "filing_index_nflx_10q_2010q3.json");
    if (r.path.endsWith("_lab.xml")) return response(200, fixtureText("sec", "xbrl_labels_nflx_10q_2010q3.xml"));
    return response(200, fixtureText("sec", "xbrl_instance_nflx_10q_2010q3.xml").split("measure>").join("measurement>"));
  });
  try {
    await assert.rejects(cap.search(ctx, { ...FACTS, num: 5 }, null), (e: unknown) => {
      assert.ok(e instanceof ProviderDrift, String(e));
      assert.equal(e.code, "provider_error");
      assert.equal(e.pointer, "/xbrl/unit/measure");
      assert.equal(e.retryable, false);
      assert.match(e.message, /^SEC EDGAR answered in a shape Quarry does not read: \/xbrl\/unit\/measure is missing\.$/);
      return true;
    });
  } finally {
    await closeXbrlPool();
  }
});
