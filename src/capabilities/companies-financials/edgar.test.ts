// companies.financials EDGAR mappers: request builders (paths, hosts, documented URL forms, declared
// answers), the tickers file, `submissions` (recorded Apple body and its older page), each recording
// checked against its declared answer first; drifted answers named; older-page selection, filing
// records and their stored details, and choosing a filing's instance and labels from its index.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TSchema } from "@sinclair/typebox";
import { fixture } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import {
  accessionYear,
  chooseDocuments,
  cik10,
  documentRequest,
  edgarFilingIndex,
  edgarOlderPage,
  edgarSubmissions,
  edgarTickers,
  filingIndexRequest,
  filingRecord,
  matches,
  olderPagesFor,
  olderSubmissionsRequest,
  parseOlderPage,
  parseSubmissions,
  parseTickers,
  secProbe,
  submissionsRequest,
  tickersRequest,
} from "./edgar.ts";

/** A recording, checked against the declared answer its request carries. */
function sec<S extends TSchema>(file: string, schema: S) {
  return checkShape("sec", schema, fixture("sec", file));
}
const drift = (pointer: string) => (e: unknown) => e instanceof ProviderDrift && e.pointer === pointer && /^SEC EDGAR answered in a shape Quarry does not read/.test(e.message);

test("requests: the documented EDGAR paths, on the right host", () => {
  assert.deepEqual(tickersRequest(), { provider: "sec", host: "www", method: "GET", path: "/files/company_tickers.json", response: edgarTickers });
  const subs = submissionsRequest("320193");
  assert.equal(subs.response, edgarSubmissions);
  assert.equal(olderSubmissionsRequest("CIK0000320193-submissions-001.json").response, edgarOlderPage);
  assert.equal(subs.path, "/submissions/CIK0000320193.json");
  assert.equal(subs.host, undefined, "data.sec.gov is the provider's default host");
  assert.deepEqual(subs.acceptStatus, [404]);
  assert.equal(olderSubmissionsRequest("CIK0000320193-submissions-001.json").path, "/submissions/CIK0000320193-submissions-001.json");
  assert.throws(() => olderSubmissionsRequest("../x.json"), ApiError);
  // PROVIDERS.md: accession 0000320193-23-000106 lives under /Archives/edgar/data/320193/000032019323000106/.
  const index = filingIndexRequest("0000320193", "0000320193-23-000106");
  assert.equal(index.path, "/Archives/edgar/data/320193/000032019323000106/index.json");
  assert.equal(index.host, "www");
  assert.deepEqual(index.acceptStatus, [404]);
  assert.equal(index.response, edgarFilingIndex);
  const doc = documentRequest("1065280", "0001193125-10-235785", "nflx-20100930.xml");
  assert.equal(doc.path, "/Archives/edgar/data/1065280/000119312510235785/nflx-20100930.xml");
  assert.equal(doc.responseType, "text");
  assert.equal(doc.response, "xml");
  // The live check's probe is one company's submissions, never an XBRL instance.
  assert.deepEqual([secProbe.provider, secProbe.request.path, secProbe.request.response], ["sec", "/submissions/CIK0000320193.json", edgarSubmissions]);
  assert.throws(() => documentRequest("1", "0000000000-25-000001", "../../etc/passwd"), ApiError);
  assert.equal(cik10("320193"), "0000320193");
  assert.equal(cik10("0000320193"), "0000320193");
  assert.equal(cik10("0"), "0000000000");
});

test("tickers: upper-cased ticker → the one filer, CIK ten digits", () => {
  const tickers = parseTickers(sec("company_tickers.json", edgarTickers));
  assert.equal(tickers.size, 50);
  assert.deepEqual(tickers.get("AAPL"), [{ cik: "0000320193", title: "Apple Inc." }]);
  assert.deepEqual(tickers.get("NFLX"), [{ cik: "0001065280", title: "NETFLIX INC" }]);
  assert.deepEqual(tickers.get("BRK-B"), [{ cik: "0001067983", title: "BERKSHIRE HATHAWAY INC" }]);
  // Two filers under one ticker are both kept (the capability then refuses the ticker).
  const shared = parseTickers({ "0": { cik_str: 1, ticker: "abc", title: "A" }, "1": { cik_str: 2, ticker: "ABC", title: "B" }, "2": { cik_str: 1, ticker: "ABC", title: "A" } });
  assert.deepEqual(shared.get("ABC"), [
    { cik: "0000000001", title: "A" },
    { cik: "0000000002", title: "B" },
  ]);
  assert.throws(() => parseTickers({}), (e: unknown) => e instanceof ApiError && e.code === "provider_error");
  // Another shape is drift naming the field: a renamed ticker, a retyped CIK, a list instead of the object.
  const renamed = { ...(fixture("sec", "company_tickers.json") as Record<string, unknown>), "0": { cik_str: 789019, symbol: "MSFT", title: "MICROSOFT CORP" } };
  assert.throws(() => checkShape("sec", edgarTickers, renamed), drift("/0/ticker"));
  assert.throws(() => checkShape("sec", edgarTickers, { "0": { cik_str: [1], ticker: "A" } }), drift("/0/cik_str"));
  assert.throws(() => checkShape("sec", edgarTickers, []), drift(""));
});

test("submissions: the recorded parallel arrays as filings, values as EDGAR gives them", () => {
  const subs = parseSubmissions(sec("submissions_CIK0000320193.json", edgarSubmissions));
  assert.equal(subs.issuer, "Apple Inc.");
  assert.equal(subs.recent.length, 40);
  assert.deepEqual(subs.older, [{ name: "CIK0000320193-submissions-001.json", from: "1994-01-26", to: "2014-04-22" }]);
  const tenK = subs.recent.find((r) => r.form === "10-K");
  // Read from the recording by hand: index 13 of filings.recent ("items" is "" there: absent).
  assert.deepEqual(tenK, {
    accession: "0000320193-24-000123",
    form: "10-K",
    filedAt: "2024-11-01",
    reportDate: "2024-09-28",
    acceptedAt: "2024-11-01T06:01:36.000Z",
    primaryDocument: "aapl-20240928.htm",
    primaryDescription: "10-K",
    isXbrl: true,
    isInlineXbrl: true,
    fileNumber: "001-36743",
    filmNumber: "241416806",
    act: "34",
    size: 9759333,
  });
  // A blank reportDate stays absent (DEFA14A has none).
  const defa = subs.recent.find((r) => r.form === "DEFA14A")!;
  assert.equal(defa.reportDate, undefined);
});

test("submissions drift: a body without filings.recent, a renamed column the filings need, a retyped one, is named", () => {
  assert.throws(() => checkShape("sec", edgarSubmissions, { error: "nope" }), drift("/filings"));
  const body = fixture("sec", "submissions_CIK0000320193.json") as { filings: { recent: Record<string, unknown> } };
  const { accessionNumber, ...recent } = body.filings.recent;
  assert.throws(() => checkShape("sec", edgarSubmissions, { ...body, filings: { ...body.filings, recent: { ...recent, accessionNo: accessionNumber } } }), drift("/filings/recent/accessionNumber"));
  assert.throws(() => checkShape("sec", edgarSubmissions, { ...body, filings: { ...body.filings, recent: { ...body.filings.recent, isXBRL: ["yes"] } } }), drift("/filings/recent/isXBRL/0"));
  const { form, ...page } = fixture("sec", "submissions_CIK0000320193-submissions-001.json") as Record<string, unknown>;
  assert.throws(() => checkShape("sec", edgarOlderPage, { ...page, formType: form }), drift("/form"));
  assert.throws(() => checkShape("sec", edgarOlderPage, { filings: {} }), drift("/accessionNumber"));
});

test("older pages: read only when the dates or the accession reach before the recent filings", () => {
  const subs = parseSubmissions(sec("submissions_CIK0000320193.json", edgarSubmissions));
  const page = subs.older[0]!;
  assert.deepEqual(olderPagesFor(subs, {}), [], "no dates: recent only");
  assert.deepEqual(olderPagesFor(subs, { filedFrom: "2024-09-01" }), [], "within recent");
  assert.deepEqual(olderPagesFor(subs, { filedFrom: "2015-01-01" }), [], "before recent, but the page ends in 2014");
  assert.deepEqual(olderPagesFor(subs, { filedFrom: "2009-01-01", filedTo: "2011-12-31" }), [page]);
  assert.deepEqual(olderPagesFor(subs, { filedFrom: "1990-01-01", filedTo: "1993-12-31" }), [], "before the page");
  assert.deepEqual(olderPagesFor(subs, { accession: "0001193125-10-238044" }), [page], "accession of 2010");
  assert.deepEqual(olderPagesFor(subs, { accession: "0000320193-24-000123" }), [], "in recent");
  assert.deepEqual(olderPagesFor(subs, { accession: "0000320193-23-000106" }), [], "2023: after the page");
  assert.equal(accessionYear("0001193125-10-238044"), 2010);
  assert.equal(accessionYear("0000950123-98-000001"), 1998);
  const older = parseOlderPage(sec("submissions_CIK0000320193-submissions-001.json", edgarOlderPage));
  assert.equal(older.length, 7);
  assert.deepEqual(
    older.filter((r) => matches(r, { forms: ["10-K", "10-K/A"], filedFrom: "2009-01-01", filedTo: "2011-12-31" })).map((r) => [r.accession, r.form, r.filedAt]),
    [
      ["0001193125-11-282113", "10-K", "2011-10-26"],
      ["0001193125-10-238044", "10-K", "2010-10-27"],
      ["0001193125-10-012091", "10-K/A", "2010-01-25"],
      ["0001193125-09-214859", "10-K", "2009-10-27"],
    ],
  );
});

test("a filing record: the spec's keys, nothing invented, stored details with source links", () => {
  const subs = parseSubmissions(sec("submissions_CIK0000320193.json", edgarSubmissions));
  const row = subs.recent.find((r) => r.form === "10-K")!;
  const record = filingRecord(row, "0000320193", subs.issuer);
  const dir = "https://www.sec.gov/Archives/edgar/data/320193/000032019324000123/";
  assert.deepEqual(record.summary, {
    title: "Apple Inc.: Form 10-K filed 2024-11-01 (period 2024-09-28)",
    url: `${dir}aapl-20240928.htm`,
    snippet: "10-K",
    cik: "0000320193",
    accession: "0000320193-24-000123",
    source: "SEC EDGAR",
    issuer: "Apple Inc.",
    form: "10-K",
    filed_at: "2024-11-01",
    report_date: "2024-09-28",
    accepted_at: "2024-11-01T06:01:36.000Z",
    primary_document: "aapl-20240928.htm",
    primary_url: `${dir}aapl-20240928.htm`,
    is_amendment: false,
  });
  assert.deepEqual(record.ref, { cik: "0000320193", accession: "0000320193-24-000123", is_xbrl: true });
  assert.equal(record.detail?.filing_index_url, `${dir}0000320193-24-000123-index.htm`);
  assert.equal(record.detail?.filing_directory_url, dir);
  assert.equal(record.detail?.submissions_url, "https://data.sec.gov/submissions/CIK0000320193.json");
  assert.equal(record.detail?.is_inline_xbrl, true);
  assert.deepEqual(
    record.links?.map((l) => l.label),
    ["Primary document", "Filing index", "Filing directory", "Company submissions (JSON)"],
  );
  // A filing from the older page: no report date, no primary document, no acceptance time.
  const older = parseOlderPage(sec("submissions_CIK0000320193-submissions-001.json", edgarOlderPage));
  const amended = filingRecord(older.find((r) => r.form === "10-K/A")!, "0000320193", "Apple Inc.");
  assert.equal(amended.summary.is_amendment, true);
  assert.equal(amended.summary.accepted_at, null);
  for (const absent of ["report_date", "primary_document", "primary_url", "snippet"]) assert.equal(absent in amended.summary, false, absent);
  assert.equal(amended.summary.url, "https://www.sec.gov/Archives/edgar/data/320193/000119312510012091/0001193125-10-012091-index.htm");
});

test("a filing's documents: the instance beside its schema (or the inline extract) and the label linkbase", () => {
  assert.deepEqual(chooseDocuments(sec("filing_index_nflx_10q_2010q3.json", edgarFilingIndex)), { instance: "nflx-20100930.xml", labels: "nflx-20100930_lab.xml" });
  assert.deepEqual(chooseDocuments(sec("filing_index_example_dimensions.json", edgarFilingIndex)), { instance: "ex-20241231_htm.xml", labels: "ex-20241231_lab.xml" });
  const item = (name: string) => ({ name, type: "text.gif", size: "1" });
  assert.equal(chooseDocuments({ directory: { item: [item("d10k.htm"), item("0001-index.htm"), item("FilingSummary.xml")] } }), null);
  assert.deepEqual(chooseDocuments({ directory: { item: [item("abc-20200101.xsd"), item("abc-20200101.xml")] } }), { instance: "abc-20200101.xml", labels: null });
  assert.throws(() => checkShape("sec", edgarFilingIndex, { nope: 1 }), drift("/directory"));
  assert.throws(() => checkShape("sec", edgarFilingIndex, { directory: { item: [{ filename: "a.xml" }] } }), drift("/directory/item/0/name"));
});
