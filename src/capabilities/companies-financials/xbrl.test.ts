// XBRL extraction (xbrl.ts) and the views built on it (facts.ts): facts of the recorded Netflix 10-Q
// checked against values read by hand from the instance, dimensions of the documented example kept
// exactly, duplicates and conflicts, what is not selected, numbers never rounded, labels by role,
// revenue kept apart and never summed, the 100-fact detail with its continuation, and a document that
// lost a part the extraction reads (drift) named by its pointer, in the worker's answer too.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fixtureText, violationsOf } from "../../../test/helpers/capability-kit.ts";
import type { JsonObject } from "../types.ts";
import { companiesFinancials } from "./capability.ts";
import { breakdownOf, factDetail, factPage, type FilingRef, isRevenue, MAX_DETAIL_FACTS, viewFacts } from "./facts.ts";
import extract from "./xbrl-worker.ts";
import { extractFacts, type Fact, readLabels, reportedNumber, XbrlDrift, XbrlFormatError } from "./xbrl.ts";

const NFLX_URL = "https://www.sec.gov/Archives/edgar/data/1065280/000119312510235785/nflx-20100930.xml";
const nflx = () => extractFacts(fixtureText("sec", "xbrl_instance_nflx_10q_2010q3.xml"), fixtureText("sec", "xbrl_labels_nflx_10q_2010q3.xml"), NFLX_URL);
const EX_URL = "https://www.sec.gov/Archives/edgar/data/0/000000000025000001/ex-20241231_htm.xml";
const example = () => extractFacts(fixtureText("sec", "xbrl_instance_example_dimensions.xml"), fixtureText("sec", "xbrl_labels_example_dimensions.xml"), EX_URL);

const nflxRef: FilingRef = {
  cik: "0001065280",
  accession: "0001193125-10-235785",
  instanceUrl: NFLX_URL,
  labelsUrl: NFLX_URL.replace(".xml", "_lab.xml"),
  retrievedAt: "2026-01-02T03:04:05.000Z",
};

const Q3_2010 = "eol_PE75377---1010-Q0012_STD_92_20100930_0";
const NFLX_ENTITY = { scheme: "http://www.sec.gov/CIK", identifier: "0001065280" };

function find(facts: Fact[], concept: string, context: string): Fact {
  const hit = facts.filter((f) => f.concept === concept && f.context_id === context);
  assert.equal(hit.length, 1, `${concept} in ${context}`);
  return hit[0]!;
}

test("recorded 10-Q: every fact selected but the nil ones, the hash of the bytes received", () => {
  const x = nflx();
  // 294 elements with a contextRef in the instance (grep -c), 2 of them xsi:nil (CommitmentsAndContingencies2009).
  assert.equal(x.factElements, 294);
  assert.equal(x.skipped.nil, 2);
  assert.equal(x.facts.length, 292);
  assert.deepEqual(x.skipped, { nil: 2, longText: 0, longTextConcepts: [], brokenReference: 0, tuples: 0 });
  const bytes = readFileSync(new URL("../../../fixtures/providers/sec/xbrl_instance_nflx_10q_2010q3.xml", import.meta.url));
  assert.equal(x.contentSha256, createHash("sha256").update(bytes).digest("hex"));
  assert.equal(x.contentSha256, "a11f1d2f0de7194c6e4290fc585138b903758d36c5d98c7a60a6b4035c66a8a8");
});

test("recorded 10-Q: values, periods, units and labels as read by hand from the instance", () => {
  const facts = nflx().facts.map((f) => f.fact);
  // line 290: <us-gaap:Revenues contextRef="…STD_92_20100930_0" unitRef="iso4217_USD" decimals="-3">553219000
  assert.deepEqual(find(facts, "us-gaap:Revenues", Q3_2010), {
    entity: NFLX_ENTITY,
    period: { start: "2010-07-01", end: "2010-09-30", instant: null },
    dimensions: [],
    concept: "us-gaap:Revenues",
    label: "Revenues",
    fact_id: null,
    context_id: Q3_2010,
    unit: { numerator: ["iso4217:USD"], denominator: [] },
    value: 553219000,
    decimals: "-3",
    precision: null,
    source_url: NFLX_URL,
    duplicate_fact_ids: [],
    conflicting_values: false,
  });
  // An instant: cash at 2010-09-30 (line 17), standard label "Cash and cash equivalents".
  const cash = find(facts, "us-gaap:CashAndCashEquivalentsAtCarryingValue", "eol_PE75377---1010-Q0012_STD_0_20100930_0");
  assert.equal(cash.value, 113108000);
  assert.deepEqual(cash.period, { start: null, end: null, instant: "2010-09-30" });
  assert.equal(cash.label, "Cash and cash equivalents");
  // A divide unit: basic EPS for the nine months to 2010-09-30 (line 143), 2.17 USD/share, decimals 2.
  const eps = find(facts, "us-gaap:EarningsPerShareBasic", "eol_PE75377---1010-Q0012_STD_273_20100930_0");
  assert.equal(eps.value, 2.17);
  assert.deepEqual(eps.unit, { numerator: ["iso4217:USD"], denominator: ["shares"] });
  assert.equal(eps.decimals, "2");
  assert.equal(eps.label, "Earnings Per Share, Basic", "the standard role before verboseLabel \"Basic\"");
  // decimals INF, unit shares (line 12).
  const shares = find(facts, "dei:EntityCommonStockSharesOutstanding", "eol_PE75377---1010-Q0012_STD_0_20100930_0");
  assert.equal(shares.value, 52257495);
  assert.equal(shares.decimals, "INF");
  // A fact with an id (line 295): the id and a source_url pointing at it; the standard label, not documentation.
  const fulfillment = find(facts, "nflx:FulfillmentExpense", Q3_2010);
  assert.equal(fulfillment.fact_id, "fnid_7746483_1_3");
  assert.equal(fulfillment.source_url, `${NFLX_URL}#fnid_7746483_1_3`);
  assert.equal(fulfillment.value, 52063000);
  assert.equal(fulfillment.label, "Fulfillment expenses");
  // Non-numeric: no unit, the reported text.
  const type = find(facts, "dei:DocumentType", "eol_PE75377---1010-Q0012_STD_273_20100930_0");
  assert.equal(type.value, "10-Q");
  assert.deepEqual(type.unit, { numerator: [], denominator: [] });
  // A negative as reported (line 298).
  assert.equal(find(facts, "nflx:PaymentsForProceedsFromOtherAssets", Q3_2010).value, -327000);
  // Every fact of this filing has a label and no dimensions (the instance has no segment or scenario).
  assert.ok(facts.every((f) => f.label !== null && f.dimensions.length === 0), "facts.every((f) => f.label !== null && f.dimensions.length === 0)");
});

test("documented example: explicit and typed members, segment and scenario, kept as reported", () => {
  const facts = example().facts.map((f) => f.fact);
  const byId = (id: string) => facts.find((f) => f.fact_id === id)!;
  assert.deepEqual(byId("f-10").dimensions, []);
  assert.deepEqual(byId("f-11").dimensions, [{ container: "segment", type: "explicit", dimension: "us-gaap:StatementBusinessSegmentsAxis", member: "ex:AmericasSegmentMember" }]);
  assert.deepEqual(byId("f-13").dimensions, [{ container: "segment", type: "explicit", dimension: "srt:StatementGeographicalAxis", member: "country:US" }]);
  assert.deepEqual(byId("f-15").dimensions.map((d) => d.dimension), ["us-gaap:StatementBusinessSegmentsAxis", "srt:ProductOrServiceAxis"]);
  assert.deepEqual(byId("f-16").dimensions, [
    { container: "segment", type: "typed", dimension: "ex:ContractIdentifierAxis", element: "ex:ContractIdentifierDomain", value: "C-1017" },
  ]);
  assert.deepEqual(byId("f-23").dimensions, [{ container: "scenario", type: "explicit", dimension: "srt:StatementScenarioAxis", member: "srt:ScenarioForecastMember" }]);
  assert.deepEqual(byId("f-24").period, { start: null, end: null, instant: "2024-12-31" });
  assert.equal(byId("f-24").precision, "4");
  assert.equal(byId("f-24").decimals, null);
});

test("documented example: duplicates name each other; differing values conflict", () => {
  const facts = example().facts.map((f) => f.fact);
  const byId = (id: string) => facts.find((f) => f.fact_id === id)!;
  assert.deepEqual([byId("f-10").duplicate_fact_ids, byId("f-10").conflicting_values], [["f-18"], false]);
  assert.deepEqual([byId("f-18").duplicate_fact_ids, byId("f-18").conflicting_values], [["f-10"], false]);
  assert.deepEqual([byId("f-20").duplicate_fact_ids, byId("f-20").conflicting_values], [["f-21"], true]);
  assert.deepEqual([byId("f-21").value, byId("f-21").conflicting_values], [125000000, true]);
  // Same value, other concept: not a duplicate.
  assert.deepEqual(byId("f-17").duplicate_fact_ids, []);
});

test("documented example: nil facts and text blocks are left out and counted; text is decoded", () => {
  const x = example();
  assert.equal(x.factElements, 21);
  assert.deepEqual(x.skipped, { nil: 1, longText: 1, longTextConcepts: ["us-gaap:RevenueRecognitionPolicyTextBlock"], brokenReference: 0, tuples: 0 });
  assert.equal(x.facts.length, 19);
  const ids = x.facts.map((f) => f.fact.fact_id);
  assert.ok(!ids.includes("f-25") && !ids.includes("f-26"), "!ids.includes(\"f-25\") && !ids.includes(\"f-26\")");
  assert.equal(x.facts.find((f) => f.fact.fact_id === "f-03")!.fact.value, "Americas & Europe\u2019s segments");
});

test("numbers: a double only when it holds the reported digits; else the reported text", () => {
  assert.equal(reportedNumber("1566703000"), 1566703000);
  assert.equal(reportedNumber(" 1.20 "), 1.2);
  assert.equal(reportedNumber("-0050"), -50);
  assert.equal(reportedNumber("0.001"), 0.001);
  assert.equal(reportedNumber("-0"), 0);
  assert.equal(reportedNumber("12345678901234567890"), "12345678901234567890");
  assert.equal(reportedNumber("0.1000000000000000055511151231257827"), "0.1000000000000000055511151231257827");
  assert.equal(reportedNumber("1e3"), "1e3");
  assert.equal(reportedNumber("abc"), "abc");
  const big = example().facts.find((f) => f.fact.fact_id === "f-27")!.fact;
  assert.equal(big.value, "12345678901234567890");
});

test("labels: standard role first, then terse, total; documentation never; none is null", () => {
  const labels = readLabels(fixtureText("sec", "xbrl_labels_example_dimensions.xml"));
  assert.equal(labels.get("us-gaap_RevenueFromContractWithCustomerExcludingAssessedTax"), "Revenue from Contract with Customer, Excluding Assessed Tax");
  assert.equal(labels.get("us-gaap_Revenues"), "Total revenues", "terse when there is no standard label");
  assert.equal(labels.get("us-gaap_NetIncomeLoss"), "Net Income (Loss) Attributable to Parent", "documentation is not a name");
  assert.equal(labels.get("us-gaap_Assets"), "Assets");
  assert.equal(labels.has("ex_SegmentDescription"), false, "documentation only: no label");
  const facts = example().facts.map((f) => f.fact);
  assert.equal(facts.find((f) => f.fact_id === "f-03")!.label, null);
  assert.equal(facts.find((f) => f.fact_id === "f-23")!.label, null, "not in the linkbase");
  // Without a label linkbase every label is null.
  const bare = extractFacts(fixtureText("sec", "xbrl_instance_example_dimensions.xml"), null, EX_URL);
  assert.ok(bare.facts.every((f) => f.fact.label === null), "bare.facts.every((f) => f.fact.label === null)");
  assert.equal(bare.labelsSha256, null);
});

test("not an instance: a DOCTYPE, another root or broken XML is refused", () => {
  assert.throws(() => extractFacts('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><xbrl/>', null, EX_URL), XbrlFormatError);
  assert.throws(() => extractFacts("<html><body>Rate limited</body></html>", null, EX_URL), XbrlFormatError);
  assert.throws(() => extractFacts('{"error": "nope"}', null, EX_URL), XbrlFormatError);
});

/** The recorded documents with every `find` replaced (as the replay's `replace` fault serves them). */
const changed = (file: string, find: string, by: string) => fixtureText("sec", file).split(find).join(by);
const NFLX_INSTANCE = "xbrl_instance_nflx_10q_2010q3.xml";
const NFLX_LABELS = "xbrl_labels_nflx_10q_2010q3.xml";
const EX_INSTANCE = "xbrl_instance_example_dimensions.xml";
const EX_LABELS = "xbrl_labels_example_dimensions.xml";
const drifted = (pointer: string) => (e: unknown) => e instanceof XbrlDrift && e.pointer === pointer;

test("drift: an instance that lost what the facts are read with is named by its pointer, never an empty fact list", () => {
  const instance = (find: string, by: string, file = NFLX_INSTANCE) => () => extractFacts(changed(file, find, by), null, NFLX_URL);
  assert.throws(instance("contextRef=", "contextReference="), drifted("/xbrl/*/@contextRef"));
  assert.throws(instance("<context ", "<kontext "), XbrlFormatError, "an unclosed rename is not well-formed: unreadable, not drift");
  assert.throws(instance("xbrli:context", "xbrli:kontext", EX_INSTANCE), drifted("/xbrl/context"));
  assert.throws(instance('<context id="', '<context name="'), drifted("/xbrl/context/@id"));
  assert.throws(instance("xbrli:instant", "xbrli:moment", EX_INSTANCE), drifted("/xbrl/context/period/instant"));
  assert.throws(instance("startDate>", "beginDate>"), drifted("/xbrl/context/period/startDate"));
  assert.throws(instance("identifier", "identification"), drifted("/xbrl/context/entity/identifier"));
  assert.throws(instance("measure>", "measurement>"), drifted("/xbrl/unit/measure"));
  assert.throws(instance('unitRef="', 'unitReference="'), drifted("/xbrl/*/@unitRef"), "numbers without their unit are not read as text");
  assert.throws(() => extractFacts("<html><body>Rate limited</body></html>", null, EX_URL), drifted("/xbrl"));
  // The recordings themselves fit.
  assert.equal(nflx().facts.length, 292);
  assert.ok(example().facts.length > 0, "example().facts.length > 0");
});

test("drift: a label linkbase without its links, locators, labels or arcs is named; without a linkbase labels are null", () => {
  const labels = (find: string, by: string, file = NFLX_LABELS) => () => readLabels(changed(file, find, by));
  assert.throws(labels("labelArc", "labelArk"), drifted("/linkbase/labelLink/labelArc"));
  assert.throws(labels("link:loc ", "link:locator ", EX_LABELS), drifted("/linkbase/labelLink/loc"));
  assert.throws(labels("labelLink", "labelGroup"), drifted("/linkbase/labelLink"));
  assert.throws(labels("xlink:from=", "xlink:source="), drifted("/linkbase/labelLink/labelArc"));
  assert.throws(() => readLabels('<?xml version="1.0"?><schema/>'), drifted("/linkbase"));
  assert.throws(() => extractFacts(fixtureText("sec", EX_INSTANCE), changed(EX_LABELS, "link:labelArc", "link:arc"), EX_URL), drifted("/linkbase/labelLink/labelArc"));
});

test("the worker answers drift as data (pointer and problem), a broken document as an error", () => {
  const task = { labels: null, ref: nflxRef, view: "financials" as const, output: "records" as const };
  assert.deepEqual(extract({ ...task, instance: changed(NFLX_INSTANCE, "contextRef=", "contextReference=") }), {
    drift: { pointer: "/xbrl/*/@contextRef", problem: "is missing (no element of the instance is a fact naming its context)" },
  });
  assert.ok("error" in extract({ ...task, instance: "<xbrl" }), "\"error\" in extract({ ...task, instance: \"<xbrl\" })");
  assert.ok("records" in extract({ ...task, instance: fixtureText("sec", NFLX_INSTANCE) }), "\"records\" in extract({ ...task, instance: fixtureText(\"sec\", NFLX_INSTANCE) })");
});

test("revenue_breakdown: only revenue concepts, grouped, each with its own dimensions, never summed", () => {
  const x = example();
  const revenue = viewFacts(x, "revenue_breakdown") as (Fact & { breakdown: string[] })[];
  assert.deepEqual(
    revenue.map((f) => [f.fact_id, f.breakdown.join("+"), f.value]),
    [
      ["f-10", "whole_company", 1000000000],
      ["f-17", "whole_company", 1000000000],
      ["f-18", "whole_company", 1000000000],
      ["f-11", "segment", 600000000],
      ["f-12", "segment", 400000000],
      ["f-13", "geographic", 450000000],
      ["f-14", "product", 700000000],
      ["f-15", "segment+product", 420000000],
      ["f-16", "other", 25000000],
    ],
  );
  // Every value is one the instance reports; no sum of them appears.
  const reported = new Set(x.facts.map((f) => f.fact.value));
  assert.ok(revenue.every((f) => reported.has(f.value)), "revenue.every((f) => reported.has(f.value))");
  assert.equal(revenue.filter((f) => f.value === 600000000 + 400000000 && f.breakdown[0] !== "whole_company").length, 0);
  assert.ok(!x.facts.filter((f) => !isRevenue(f)).some((f) => f.local.startsWith("Revenue") && f.local !== "RevenueRecognitionPolicyTextBlock"), "!x.facts.filter((f) => !isRevenue(f)).some((f) => f.local.startsWith(\"Revenue\") && f.lo...");
  assert.deepEqual(breakdownOf([]), ["whole_company"]);
  // The recorded 10-Q: four us-gaap:Revenues facts, whole-company, as reported.
  assert.deepEqual(
    viewFacts(nflx(), "revenue_breakdown").map((f) => [f.period.start, f.period.end, f.value]),
    [
      ["2009-01-01", "2009-09-30", 1225727000],
      ["2010-01-01", "2010-09-30", 1566703000],
      ["2009-07-01", "2009-09-30", 423120000],
      ["2010-07-01", "2010-09-30", 553219000],
    ],
  );
});

test("financials detail: the spec's keys, at most 100 facts, the count, and a continuation that is a valid execute body", () => {
  const { detail, links } = factDetail(nflx(), nflxRef, "financials");
  assert.deepEqual(Object.keys(detail).sort(), [
    "accession",
    "cik",
    "content_sha256",
    "continuation",
    "extraction_status",
    "fact_count",
    "facts",
    "labels_sha256",
    "notes",
    "retrieved_at",
    "source",
    "source_documents",
    "truncated",
  ]);
  assert.equal((detail.facts as unknown[]).length, MAX_DETAIL_FACTS);
  assert.equal(detail.fact_count, 292);
  assert.equal(detail.truncated, true);
  assert.equal(detail.extraction_status, "selected_reported_facts");
  assert.equal(detail.retrieved_at, "2026-01-02T03:04:05.000Z");
  assert.deepEqual(detail.source_documents, { instance: NFLX_URL, labels: nflxRef.labelsUrl });
  const continuation = detail.continuation as { capability: string; body: JsonObject };
  assert.equal(continuation.capability, "companies.financials");
  assert.deepEqual(continuation.body, { company: { cik: "0001065280" }, view: "financials", accession: "0001193125-10-235785", num: 10 });
  assert.deepEqual(violationsOf(companiesFinancials, structuredClone(continuation.body)), []);
  assert.match((detail.notes as string[])[0]!, /first 100 of 292 facts.*fact 101 opens page 11/);
  assert.deepEqual(
    links.map((l) => l.label),
    ["XBRL instance", "Label linkbase", "Filing index"],
  );
  // Each fact carries the spec's keys.
  const fact = (detail.facts as JsonObject[])[0]!;
  assert.deepEqual(Object.keys(fact).sort(), [
    "concept",
    "conflicting_values",
    "context_id",
    "decimals",
    "dimensions",
    "duplicate_fact_ids",
    "entity",
    "fact_id",
    "label",
    "period",
    "precision",
    "source_url",
    "unit",
    "value",
  ]);
  // Revenue: four facts, complete, no continuation; the note says the views are not additive.
  const revenue = factDetail(nflx(), nflxRef, "revenue_breakdown").detail;
  assert.equal(revenue.fact_count, 4);
  assert.equal(revenue.truncated, false);
  assert.equal("continuation" in revenue, false);
  assert.ok((revenue.notes as string[]).some((n) => /not additive/.test(n)), "(revenue.notes as string[]).some((n) => /not additive/.test(n))");
});

test("fact records: summary and ref give back every fact whole, for details (no provider call)", () => {
  for (const [x, view] of [
    [nflx(), "financials"],
    [example(), "revenue_breakdown"],
  ] as const) {
    const page = factPage(x, nflxRef, view);
    const facts = viewFacts(x, view);
    assert.equal(page.records.length, facts.length);
    page.records.forEach((record, i) => {
      assert.equal(record.detail, undefined, "not stored twice");
      // Through the engine: the stored ref must pass the declared factRef schema before the mapping runs.
      const out = companiesFinancials.detailFromSource!(page.source, { summary: record.summary, ref: record.ref ?? null, detail: null, query: {} });
      assert.ok(out, "out");
      assert.deepEqual(out.detail.fact, facts[i]);
      assert.equal(out.detail.retrieved_at, nflxRef.retrievedAt);
      assert.deepEqual(out.detail.source_documents, { instance: facts[i]!.source_url.split("#")[0], labels: nflxRef.labelsUrl });
    });
  }
  assert.equal(companiesFinancials.detailFromSource!("{}", { summary: { title: "x" }, ref: null, detail: null, query: {} }), null, "a record without a fact's ref has no detail in the source");
});
