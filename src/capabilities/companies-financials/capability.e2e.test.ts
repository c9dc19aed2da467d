// companies.financials end to end over HTTP against the replay upstream (recorded SEC bodies and the
// documented examples of fixtures/providers/sec): the filings view and its paging, filters, older
// pages and update; both fact views on the recorded Netflix 10-Q (values read by hand from the
// instance) and on the documented dimensional example; every record action and its charge; the
// 100-fact cap and its continuation; violations at their pointers; provider failures.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "../../../test/helpers/capability-kit.ts";
import { closeXbrlPool } from "./xbrl-pool.ts";

const UA = "Quarry tests ops@example.com";
const NFLX = { company: { cik: "1065280" }, view: "financials", accession: "0001193125-10-235785" };
const NFLX_INSTANCE = "https://www.sec.gov/Archives/edgar/data/1065280/000119312510235785/nflx-20100930.xml";
const EXAMPLE = { company: { cik: "0" }, view: "revenue_breakdown", accession: "0000000000-25-000001" };

let kit: CapabilityKit;

before(async () => {
  // Paging 292 facts 10 at a time takes more than the default 60 calls a minute.
  const plans = JSON.stringify([{ id: "pro", credits: 20000, period: "monthly", rateLimitPerMinute: 100_000 }]);
  kit = await startCapabilityKit("companies.financials", { env: { SEC_USER_AGENT: UA, QUARRY_PLANS: plans } });
});
after(async () => {
  await kit.close();
  await closeXbrlPool();
});

/** Every record of a local-paged search, following `more` to the end. */
async function all(first: { body: { search_id: string; results: unknown[]; has_more: boolean; charged_credits: number } }) {
  const records = [...first.body.results] as Record<string, unknown>[];
  let has = first.body.has_more;
  while (has) {
    const next = await kit.more(first.body.search_id);
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.equal(next.body.charged_credits, 0);
    records.push(...next.body.results);
    has = next.body.has_more;
  }
  return records;
}

test("filings view by ticker: 5 a page, newest first, the spec's keys, free; the User-Agent is the configured contact", async () => {
  kit.h.replay.requests.length = 0;
  const res = await kit.execute({ company: { ticker: "AAPL" } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.results.length, 5);
  assert.equal(res.body.has_more, true);
  assert.equal(res.body.charged_credits, 0);
  assert.deepEqual(res.body.record_actions, ["details", "financials", "revenue_breakdown"]);
  assert.deepEqual(res.body.next.example, { search_id: res.body.search_id, action: "more" });
  const first = res.body.results[0];
  assert.equal(first.title, "Apple Inc.: Form 3 filed 2025-01-10 (period 2025-01-01)");
  assert.equal(first.cik, "0000320193");
  assert.equal(first.accession, "0000320193-25-000002");
  assert.equal(first.form, "3");
  assert.equal(first.accepted_at, "2025-01-10T18:30:12.000Z");
  for (const r of kit.h.replay.requests) assert.equal(r.headers["user-agent"], UA, r.path);
  assert.deepEqual(
    kit.h.replay.requests.map((r) => r.path),
    ["/sec-www/files/company_tickers.json", "/sec/submissions/CIK0000320193.json"],
  );
  const records = await all(res);
  assert.equal(records.length, 40, "every recorded filing, in pages of 5");
  assert.equal(new Set(records.map((r) => r.accession)).size, 40);
  const dates = records.map((r) => r.filed_at as string);
  assert.deepEqual(dates, [...dates].sort().reverse());
  // The same company by CIK, with leading zeros or without.
  const byCik = await kit.execute({ company: { cik: "0000320193" }, num: 10 });
  assert.equal(byCik.status, 200);
  assert.deepEqual(
    byCik.body.results.map((r: { accession: string }) => r.accession),
    records.slice(0, 10).map((r) => r.accession),
  );
});

test("filings view filters: forms, a date range, one accession; older pages read when the dates reach them", async () => {
  const tenK = await kit.execute({ company: { cik: "320193" }, forms: ["10-K"] });
  assert.equal(tenK.status, 200);
  assert.deepEqual(
    tenK.body.results.map((r: Record<string, unknown>) => [r.accession, r.report_date, r.primary_document, r.is_amendment]),
    [["0000320193-24-000123", "2024-09-28", "aapl-20240928.htm", false]],
  );
  // October 2024 in the recording: one 8-K (31st), Form 4s and 5, Form 144s: 20 filings.
  const october = await kit.execute({ company: { cik: "320193" }, filed_from: "2024-10-01", filed_to: "2024-10-31", num: 10 });
  const inOctober = await all(october);
  assert.equal(inOctober.length, 20);
  assert.ok(inOctober.every((r) => (r.filed_at as string).startsWith("2024-10")), "inOctober.every((r) => (r.filed_at as string).startsWith(\"2024-10\"))");
  kit.h.replay.requests.length = 0;
  const older = await kit.execute({ company: { cik: "320193" }, forms: ["10-K", "10-K/A"], filed_from: "2009-01-01", filed_to: "2011-12-31" });
  assert.equal(older.status, 200, JSON.stringify(older.body));
  assert.deepEqual(
    older.body.results.map((r: Record<string, unknown>) => [r.form, r.filed_at, r.is_amendment, r.accepted_at]),
    [
      ["10-K", "2011-10-26", false, null],
      ["10-K", "2010-10-27", false, null],
      ["10-K/A", "2010-01-25", true, null],
      ["10-K", "2009-10-27", false, null],
    ],
  );
  assert.ok(kit.h.replay.requests.some((r) => r.path === "/sec/submissions/CIK0000320193-submissions-001.json"), "kit.h.replay.requests.some((r) => r.path === \"/sec/submissions/CIK0000320193-submission...");
  assert.match(older.body.notes.join(" "), /older page\(s\) of EDGAR's filing history: CIK0000320193-submissions-001\.json \(1994-01-26 to 2014-04-22\)/);
  // One accession, found on the older page by its year.
  const one = await kit.execute({ company: { cik: "320193" }, accession: "0001193125-10-238044" });
  assert.deepEqual(one.body.results.map((r: { accession: string }) => r.accession), ["0001193125-10-238044"]);
  // No older page needed: the note says how to reach older filings.
  assert.match(tenK.body.notes.join(" "), /Filings before 2024-08-07 are in older pages/);
});

test("update: params merged, same search_id, paging reset, free; violations under /params", async () => {
  const res = await kit.execute({ company: { ticker: "AAPL" } });
  const id = res.body.search_id;
  const updated = await kit.update(id, { forms: ["10-K"] });
  assert.equal(updated.status, 200, JSON.stringify(updated.body));
  assert.equal(updated.body.search_id, id);
  assert.equal(updated.body.charged_credits, 0);
  assert.deepEqual(updated.body.results.map((r: { form: string }) => r.form), ["10-K"]);
  // Switching the company by ticker → cik replaces the whole object.
  const byCik = await kit.update(id, { company: { cik: "320193" }, forms: null });
  assert.equal(byCik.body.results.length, 5);
  await kit.expectUpdateViolation(id, { company: { cik: "320193", ticker: "AAPL" } }, "/params/company", /exactly one of `cik` or `ticker`/);
  await kit.expectUpdateViolation(id, { filed_from: "2024-02-30" }, "/params/filed_from", /valid calendar date/);
  await kit.expectUpdateViolation(id, { view: "financials" }, "/params/view", /reads one filing: give its `accession`/);
  await kit.expectUpdateViolation(id, { forms: ["8-K"] }, "/params/forms/0", /must be one of/);
  await kit.expectUpdateViolation(id, { num: 11 }, "/params/num");
  const dated = await kit.update(id, { filed_to: "2024-10-31" });
  assert.equal(dated.status, 200);
  await kit.expectUpdateViolation(id, { filed_from: "2024-11-01" }, "/params/filed_from", /must not exceed filed_to \("2024-10-31", from the search\)/);
});

test("execute violations: every field and rule at its pointer, nothing charged", async () => {
  const before = await kit.used();
  const c = { cik: "320193" };
  await kit.expectViolation({}, "/company", /is required/);
  await kit.expectViolation({ company: {} }, "/company", /"cik".*"ticker"/);
  const both = await kit.expectViolation({ company: { cik: "320193", ticker: "AAPL" } }, "/company", /not both/);
  assert.equal(both.length, 1, "one violation, not one per union branch");
  await kit.expectViolation({ company: { cik: "32O193" } }, "/company/cik", /pattern/);
  await kit.expectViolation({ company: { ticker: "AA$" } }, "/company/ticker", /pattern/);
  await kit.expectViolation({ company: { name: "Apple" } }, "/company/name", /unknown field/);
  await kit.expectViolation({ company: c, view: "10-K" }, "/view", /must be one of/);
  await kit.expectViolation({ company: c, accession: "0000320193-24-123" }, "/accession", /pattern/);
  await kit.expectViolation({ company: c, forms: [] }, "/forms");
  await kit.expectViolation({ company: c, forms: ["10-K", "10-K"] }, "/forms", /duplicate/);
  await kit.expectViolation({ company: c, filed_from: "2024-13-01" }, "/filed_from", /valid calendar date/);
  await kit.expectViolation({ company: c, filed_to: "2024/01/01" }, "/filed_to", /pattern/);
  await kit.expectViolation({ company: c, filed_from: "2024-06-01", filed_to: "2024-05-31" }, "/filed_from", /must not exceed filed_to/);
  await kit.expectViolation({ company: c, num: 0 }, "/num");
  await kit.expectViolation({ company: c, view: "financials" }, "/accession", /reads one filing/);
  await kit.expectViolation({ company: c, view: "revenue_breakdown" }, "/accession", /reads one filing/);
  // Found at search time: a ticker EDGAR does not list, an accession the company does not have.
  await kit.expectViolation({ company: { ticker: "NOPE" } }, "/company/ticker", /not in EDGAR's ticker list; give the company's CIK/);
  await kit.expectViolation({ company: c, view: "financials", accession: "0000320193-24-000123" }, "/accession", /EDGAR has no filing/);
  assert.equal(await kit.used(), before);
});

test("financials view on the recorded 10-Q: 292 facts as records, values as read by hand", async () => {
  const res = await kit.execute({ ...NFLX, num: 10 });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.charged_credits, 0);
  // The instance's first fact (line 9): cash at 2009-06-30, 87471000 USD.
  assert.deepEqual(res.body.results[0], {
    record_id: res.body.results[0].record_id,
    title: "Cash and cash equivalents, at 2009-06-30: 87471000 USD",
    url: NFLX_INSTANCE,
    snippet: "us-gaap:CashAndCashEquivalentsAtCarryingValue · context eol_PE75377---1010-Q0012_STD_0_20090630_0 · no dimensions",
    cik: "0001065280",
    accession: "0001193125-10-235785",
    source: "SEC EDGAR",
    fact_id: null,
    value: 87471000,
    unit: { numerator: ["iso4217:USD"], denominator: [] },
    period: { start: null, end: null, instant: "2009-06-30" },
    dimensions: [],
  });
  const records = await all(res);
  assert.equal(records.length, 292);
  const q3 = records.filter((r) => (r.title as string).startsWith("Revenues, 2010-07-01 to 2010-09-30"));
  assert.deepEqual(q3.map((r) => r.value), [553219000]);
  assert.match(res.body.notes.join(" "), /Of the instance's 294 facts, these are not selected: 2 nil fact/);
});

test("revenue_breakdown view and actions: revenue only, dimensions as reported, never summed", async () => {
  const res = await kit.execute({ company: { ticker: "NFLX" }, view: "revenue_breakdown", accession: "0001193125-10-235785" });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(
    res.body.results.map((r: { period: { start: string; end: string }; value: number; dimensions: unknown[] }) => [r.period.start, r.period.end, r.value, r.dimensions]),
    [
      ["2009-01-01", "2009-09-30", 1225727000, []],
      ["2010-01-01", "2010-09-30", 1566703000, []],
      ["2009-07-01", "2009-09-30", 423120000, []],
      ["2010-07-01", "2010-09-30", 553219000, []],
    ],
  );
  const action = await kit.action(res.body.results[0].record_id, "revenue_breakdown");
  assert.equal(action.status, 200, JSON.stringify(action.body));
  assert.equal(action.body.charged_credits, 0);
  assert.equal(action.body.detail.fact_count, 4);
  assert.equal(action.body.detail.truncated, false);
  assert.equal("continuation" in action.body.detail, false);
  assert.deepEqual(action.body.detail.facts.map((f: { breakdown: string[] }) => f.breakdown), [["whole_company"], ["whole_company"], ["whole_company"], ["whole_company"]]);
  assert.ok(action.body.detail.notes.some((n: string) => /not additive/.test(n)), "action.body.detail.notes.some((n: string) => /not additive/.test(n))");

  // The documented example: each revenue figure with its own members, grouped, none added up.
  const ex = await kit.execute({ ...EXAMPLE, num: 10 });
  assert.equal(ex.status, 200, JSON.stringify(ex.body));
  assert.deepEqual(
    ex.body.results.map((r: Record<string, unknown>) => [r.fact_id, r.value, (r.dimensions as { member?: string; value?: string }[]).map((d) => d.member ?? d.value)]),
    [
      ["f-10", 1000000000, []],
      ["f-17", 1000000000, []],
      ["f-18", 1000000000, []],
      ["f-11", 600000000, ["ex:AmericasSegmentMember"]],
      ["f-12", 400000000, ["ex:EuropeSegmentMember"]],
      ["f-13", 450000000, ["country:US"]],
      ["f-14", 700000000, ["us-gaap:ProductMember"]],
      ["f-15", 420000000, ["ex:AmericasSegmentMember", "us-gaap:ProductMember"]],
      ["f-16", 25000000, ["C-1017"]],
    ],
  );
  const details = await kit.action(ex.body.results[7].record_id, "details");
  assert.equal(details.status, 200);
  assert.equal(details.body.cached, true, "stored details make no provider call");
  assert.deepEqual(details.body.detail.fact.dimensions, [
    { container: "segment", type: "explicit", dimension: "us-gaap:StatementBusinessSegmentsAxis", member: "ex:AmericasSegmentMember" },
    { container: "segment", type: "explicit", dimension: "srt:ProductOrServiceAxis", member: "us-gaap:ProductMember" },
  ]);
  assert.equal(details.body.detail.fact.label, "Revenue from Contract with Customer, Excluding Assessed Tax");
  const fin = await kit.action(ex.body.results[0].record_id, "financials");
  const conflicting = fin.body.detail.facts.filter((f: { conflicting_values: boolean }) => f.conflicting_values);
  assert.deepEqual(conflicting.map((f: { fact_id: string; duplicate_fact_ids: string[] }) => [f.fact_id, f.duplicate_fact_ids]), [
    ["f-20", ["f-21"]],
    ["f-21", ["f-20"]],
  ]);
});

test("financials action: the spec's detail, 100 facts of 292, a continuation that executes; cached at 0 credits", async () => {
  const res = await kit.execute(NFLX);
  const recordId = res.body.results[0].record_id;
  kit.h.replay.requests.length = 0;
  const first = await kit.action(recordId, "financials");
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.charged_credits, 0);
  assert.equal(first.body.cached, false);
  assert.equal(kit.h.replay.requests.length, 3, "index, instance, labels");
  const d = first.body.detail;
  assert.deepEqual(
    Object.keys(d).sort(),
    ["accession", "cik", "content_sha256", "continuation", "extraction_status", "fact_count", "facts", "labels_sha256", "notes", "retrieved_at", "source", "source_documents", "truncated"],
  );
  assert.equal(d.facts.length, 100);
  assert.equal(d.fact_count, 292);
  assert.equal(d.truncated, true);
  assert.equal(d.extraction_status, "selected_reported_facts");
  assert.equal(d.source, "SEC EDGAR");
  assert.deepEqual(d.source_documents, { instance: NFLX_INSTANCE, labels: NFLX_INSTANCE.replace(".xml", "_lab.xml") });
  const bytes = readFileSync(new URL("../../../fixtures/providers/sec/xbrl_instance_nflx_10q_2010q3.xml", import.meta.url));
  assert.equal(d.content_sha256, createHash("sha256").update(bytes).digest("hex"));
  assert.ok(!Number.isNaN(Date.parse(d.retrieved_at)), "!Number.isNaN(Date.parse(d.retrieved_at))");
  assert.deepEqual(first.body.links.map((l: { label: string }) => l.label), ["XBRL instance", "Label linkbase", "Filing index"]);
  // Repeated: cached, free, no provider call.
  kit.h.replay.requests.length = 0;
  const again = await kit.action(recordId, "financials");
  assert.equal(again.body.cached, true);
  assert.equal(again.body.charged_credits, 0);
  assert.equal(kit.h.replay.requests.length, 0);
  assert.deepEqual(again.body.detail, d);
  // The continuation is a valid execute body whose records are all 292 facts, the first 100 those of the detail.
  assert.equal(d.continuation.capability, "companies.financials");
  const cont = await kit.execute(d.continuation.body);
  assert.equal(cont.status, 200, JSON.stringify(cont.body));
  const listed = await all(cont);
  assert.equal(listed.length, 292);
  assert.deepEqual(
    listed.slice(0, 100).map((r) => [r.value, r.period, r.unit]),
    d.facts.map((f: Record<string, unknown>) => [f.value, f.period, f.unit]),
  );
  // details of a fact: the whole fact and its filing's links, stored.
  const det = await kit.action(recordId, "details");
  assert.equal(det.body.cached, true);
  assert.equal(det.body.detail.fact.concept, "us-gaap:CashAndCashEquivalentsAtCarryingValue");
  assert.equal(det.body.detail.fact.decimals, "-3");
});

test("record actions on a filing record: details stored; facts of a filing without XBRL refused at /record_id", async () => {
  const res = await kit.execute({ company: { cik: "320193" }, num: 1 });
  const recordId = res.body.results[0].record_id;
  const details = await kit.action(recordId, "details");
  assert.equal(details.status, 200);
  assert.equal(details.body.cached, true);
  assert.equal(details.body.charged_credits, 0);
  assert.equal(details.body.detail.form, "3");
  assert.equal(details.body.detail.is_xbrl, false);
  assert.equal(details.body.detail.filing_index_url, "https://www.sec.gov/Archives/edgar/data/320193/000032019325000002/0000320193-25-000002-index.htm");
  for (const action of ["financials", "revenue_breakdown"]) {
    const refused = await kit.action(recordId, action);
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.error.violations[0].path, "/record_id");
    assert.match(refused.body.error.violations[0].message, /carrying no XBRL/);
  }
});

test("provider failures are provider_error, retryable, nothing charged, nothing cached", async () => {
  const before = await kit.used();
  kit.h.replay.setFault("sec-www", { kind: "status", status: 500 });
  try {
    const failed = await kit.execute(NFLX);
    assert.equal(failed.status, 502, JSON.stringify(failed.body));
    assert.equal(failed.body.error.code, "provider_error");
    assert.equal(failed.body.error.retryable, true);
  } finally {
    kit.h.replay.setFault("sec-www", null);
  }
  kit.h.replay.setFault("sec", { kind: "invalid_json" });
  try {
    const failed = await kit.execute({ company: { cik: "320193" } });
    assert.equal(failed.status, 502);
    assert.equal(failed.body.error.code, "provider_error");
  } finally {
    kit.h.replay.setFault("sec", null);
  }
  // A fetched action that fails is not cached: the next call asks EDGAR again and answers.
  const res = await kit.execute(NFLX);
  const recordId = res.body.results[1].record_id;
  kit.h.replay.setFault("sec-www", { kind: "status", status: 503 });
  try {
    const failed = await kit.action(recordId, "revenue_breakdown");
    assert.equal(failed.status, 502);
    assert.equal(failed.body.charged_credits, undefined);
  } finally {
    kit.h.replay.setFault("sec-www", null);
  }
  const ok = await kit.action(recordId, "revenue_breakdown");
  assert.equal(ok.status, 200);
  assert.equal(ok.body.cached, false);
  assert.equal(await kit.used(), before);
});
