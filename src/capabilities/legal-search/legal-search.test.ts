// legal.search mappers without a server: CourtListener's search request (courts, years, cursor) and
// its recorded answer as records paged `num` at a time across its 20-cluster pages; the CELLAR SPARQL
// query (kept equal to the recordings' query strings) and its results; the schema's branches and
// rules; the stored details.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fakeContext, fixture, response, violationsOf } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { UpstreamError } from "../../upstream/faults.ts";
import { checkShape } from "../../upstream/response-check.ts";
import { type CaseLawSearchPage, caseLawSearchPage, courtListenerProbe, courtListenerRefusal } from "../shared/courtlistener.ts";
import type { JsonObject } from "../types.ts";
import { type EuSearch, euPublicationsProbe, type SparqlResults, sparqlQuery, sparqlResults, textIndexQuery, toEuPage, toEuRequest, titleWords, workRecord } from "./cellar.ts";
import { legalSearch } from "./capability.ts";
import { COURT_GROUPS, courtParam } from "./courts.ts";
import { sliceCursor } from "../framework/cursors.ts";
import { toUsPage, toUsRequest, type UsSearch } from "./courtlistener-search.ts";

const us = (extra: Partial<UsSearch> = {}): UsSearch => ({ jurisdiction: "us", query: "foo", courts: "all", ...extra });
const recorded = checkShape("courtlistener", caseLawSearchPage, fixture("courtlistener", "search_v4_q_foo.json"));
const CURSOR = "cz0yMzUuODcxMjUmcz04MDUzNTUzJnQ9byZkPTIwMjQtMDktMTY=";

test("CourtListener search request: type=o, best match first, courts as court ids, years as filing dates, the cursor", () => {
  assert.deepEqual(toUsRequest(us(), { page: null, skip: 0 }), {
    provider: "courtlistener",
    method: "GET",
    path: "/api/rest/v4/search/",
    query: { type: "o", q: "foo", order_by: "score desc", court: undefined, filed_after: undefined, filed_before: undefined, cursor: undefined },
    acceptStatus: [400],
    response: caseLawSearchPage,
    refusal: courtListenerRefusal,
  });
  const q = toUsRequest(us({ courts: "federal", from_year: 1954, to_year: 1960 }), { page: CURSOR, skip: 0 }).query!;
  assert.equal(q.filed_after, "1954-01-01");
  assert.equal(q.filed_before, "1960-12-31");
  assert.equal(q.cursor, CURSOR);
  const federal = String(q.court).split(" ");
  for (const id of ["scotus", "ca1", "cadc", "cafc", "nysd", "uscfc"]) assert.ok(federal.includes(id), id);
  const state = courtParam("state")!.split(" ");
  for (const id of ["cal", "calctapp", "ny", "hawapp", "tex", "texcrimapp"]) assert.ok(state.includes(id), id);
  assert.equal(courtParam("all"), undefined);
  assert.equal(new Set(COURT_GROUPS.federal).size, COURT_GROUPS.federal.length, "no id twice");
  assert.ok(!federal.some((id) => state.includes(id)), "federal and state do not overlap");
});

test("the recorded search answer: records without snippet, with identifier, source, full_text; stored candidate details", () => {
  const page = toUsPage(200, recorded, 3, { page: null, skip: 0 });
  assert.equal(page.records.length, 1);
  const [r] = page.records;
  assert.deepEqual(r!.summary, {
    title: "Foo v. Foo",
    url: "https://www.courtlistener.com/opinion/6613686/foo-v-foo/",
    identifier: "courtlistener-cluster:6613686",
    source: "case_index",
    source_class: "institutional_transcription",
    document_kind: "judicial_opinion",
    court: "Hawaii Intermediate Court of Appeals",
    date: "2003-01-10",
    citations: ["101 Haw. 235", "65 P.3d 182"],
    full_text: { capability: "legal.read", params: { document: { source: "case_index", caselaw_id: "6613686" } } },
  });
  assert.equal("snippet" in r!.summary, false);
  assert.equal(r!.detail?.docket_number, "24158");
  assert.equal(r!.detail?.court_id, "hawapp");
  assert.equal(r!.detail?.precedential_status, "Published");
  assert.deepEqual(r!.detail?.opinion_ids, ["6489975"]);
  assert.equal("judges" in r!.detail!, false, "an empty judge is left out");
  assert.deepEqual(page.next, { page: CURSOR, skip: 0 }, "the provider's next page, decoded from its next URL");
  assert.deepEqual(page.notes, ["CourtListener reports 2343 matching clusters."]);
});

test("num smaller than the provider's page: the cursor stays on the page and skips what was given", () => {
  const many: CaseLawSearchPage = { ...recorded, results: [1, 2, 3, 4, 5].map((id) => ({ ...recorded.results[0]!, cluster_id: id })) };
  const first = toUsPage(200, many, 2, { page: null, skip: 0 });
  assert.deepEqual(first.records.map((r) => r.ref?.cluster_id), ["1", "2"]);
  assert.deepEqual(first.next, { page: null, skip: 2 });
  const at = sliceCursor(first.next);
  const second = toUsPage(200, many, 2, at);
  assert.deepEqual(second.records.map((r) => r.ref?.cluster_id), ["3", "4"]);
  const third = toUsPage(200, many, 2, sliceCursor(second.next));
  assert.deepEqual(third.records.map((r) => r.ref?.cluster_id), ["5"]);
  assert.deepEqual(third.next, { page: CURSOR, skip: 0 });
  assert.equal(toUsPage(200, { ...many, next: null }, 5, { page: null, skip: 0 }).next, null);
});

test("CourtListener refusing the query (400) is a violation at /search/query in its words; a refused key is said in its words; other shapes are drift", async () => {
  const refused = { detail: "Unbalanced parentheses" } as unknown as CaseLawSearchPage;
  assert.throws(
    () => toUsPage(400, refused, 3, { page: null, skip: 0 }),
    (e: unknown) =>
      e instanceof ApiError && e.code === "invalid_request" && e.violations?.[0]?.path === "/search/query" && /Unbalanced parentheses/.test(e.violations[0].message),
  );
  const q = { search: { jurisdiction: "us", query: "foo", courts: "all" }, num: 3 };
  const through = fakeContext(response(400, { detail: "Unbalanced parentheses" }));
  await assert.rejects(legalSearch.search(through.ctx, q, null), (e: unknown) => e instanceof ApiError && e.code === "invalid_request");
  const drifted = fakeContext({ detail: "x" });
  await assert.rejects(legalSearch.search(drifted.ctx, q, null), (e: unknown) => e instanceof UpstreamError && e.fault === "drift" && e.pointer === "/results");
  const key = courtListenerRefusal({ detail: "Invalid token." }, 401);
  assert.ok(key instanceof UpstreamError, "key instanceof UpstreamError");
  assert.equal(key.fault, "key_refused");
  assert.equal(key.message, "CourtListener refused this deployment's key (HTTP 401): Invalid token.");
  assert.equal(courtListenerRefusal({ detail: "Not found." }, 404), undefined, "a 404 is read by the request that accepts it");
  assert.equal(courtListenerRefusal({ count: 1, results: [] }, 200), undefined);
  assert.deepEqual([courtListenerProbe.provider, courtListenerProbe.request.path], ["courtlistener", "/api/rest/v4/clusters/10376225/"]);
});

/** The schema of one row (the results' item schema). */
const sparql = (file: string): SparqlResults => checkShape("eu_publications", sparqlResults, fixture("eu_publications", file));
const workRow = () => sparqlResults.properties.results.properties.bindings.items;

const privacy: EuSearch = { jurisdiction: "eu", query: "privacy electronic communications", kind: "legislation", language: "EN" };

test("the SPARQL query: resource types of the kind, the language's authority code, the title's words from the full-text index then every word checked, LIMIT num+1", () => {
  const q = sparqlQuery(privacy, 3, 2);
  assert.match(q, /resource-type\/DIR_DEL>/);
  assert.doesNotMatch(q, /JUDG/);
  assert.match(q, /language\/ENG>/);
  assert.ok(q.includes(`?title_ bif:contains "'privacy*' AND 'electronic*' AND 'communications*'" .`), q);
  assert.ok(q.indexOf("bif:contains") < q.indexOf("FILTER(CONTAINS"), "the index drives; the filters check what it found");
  for (const w of ["privacy", "electronic", "communications"]) assert.ok(q.includes(`FILTER(CONTAINS(LCASE(STR(?title_)), "${w}"))`), w);
  assert.match(q, /LIMIT 4 OFFSET 6$/);
  const all = sparqlQuery({ jurisdiction: "eu", query: 'Quote " and \\ back', language: "DE" }, 1, 0);
  for (const t of ["JUDG", "OPIN_AG", "OPIN_JUR", "REG"]) assert.match(all, new RegExp(`resource-type/${t}>`));
  assert.match(all, /language\/DEU>/);
  assert.ok(all.includes('"\\""') && all.includes('"\\\\"'), "quotes and backslashes escaped in SPARQL literals");
  assert.deepEqual(titleWords("  Data\tRETENTION  "), ["data", "retention"]);
  assert.doesNotMatch(all, /bif:contains "[^"]*\\/, "nothing but letters and digits reaches the index's expression");
  assert.deepEqual(toEuRequest(privacy, 3, 0).query?.format, "application/sparql-results+json");
  assert.equal(toEuRequest(privacy, 3, 0).method, "GET");
});

test("the builder sends exactly the SPARQL the recordings hold (documented examples)", () => {
  const index = JSON.parse(readFileSync(new URL("../../../fixtures/providers/eu_publications/index.json", import.meta.url), "utf8")) as {
    case: string;
    query: { query: string };
  }[];
  const byCase = new Map(index.map((e) => [e.case, e.query.query]));
  const retention: EuSearch = { jurisdiction: "eu", query: "data retention", kind: "judgment", language: "EN" };
  assert.equal(byCase.get("sparql_search_privacy_legislation_num3"), sparqlQuery(privacy, 3, 0));
  assert.equal(byCase.get("sparql_search_privacy_legislation_num1_page0"), sparqlQuery(privacy, 1, 0));
  assert.equal(byCase.get("sparql_search_privacy_legislation_num1_page1"), sparqlQuery(privacy, 1, 1));
  assert.equal(byCase.get("sparql_search_data_retention_judgments_num2"), sparqlQuery(retention, 2, 0));
});

test("SPARQL results → records: CELEX identifier, ECLI for judgments, kind from the resource type, full_text; the extra row means more", () => {
  const judgments = toEuPage(sparql("sparql_search_data_retention_judgments_num2.json"), { ...privacy, kind: "judgment" }, 2, 0);
  assert.equal(judgments.next, null);
  const [tele2] = judgments.records;
  assert.equal(tele2!.summary.identifier, "CELEX:62015CJ0203");
  assert.equal(tele2!.summary.ecli, "ECLI:EU:C:2016:970");
  assert.equal(tele2!.summary.document_kind, "judgment");
  assert.equal(tele2!.summary.date, "2016-12-21");
  assert.equal(tele2!.summary.language, "EN");
  assert.equal(tele2!.summary.source_class, "official_publication");
  assert.equal(tele2!.summary.url, "https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX:62015CJ0203");
  assert.deepEqual(tele2!.summary.full_text, { capability: "legal.read", params: { document: { source: "eu_official", celex: "62015CJ0203", language: "EN" } } });
  assert.equal("snippet" in tele2!.summary, false);
  assert.equal(tele2!.detail?.celex, "62015CJ0203");
  const first = toEuPage(sparql("sparql_search_privacy_legislation_num1_page0.json"), privacy, 1, 0);
  assert.deepEqual(first.records.map((r) => r.summary.identifier), ["CELEX:32009L0136"]);
  assert.deepEqual(first.next, { page: 1 });
  assert.equal("ecli" in first.records[0]!.summary, false, "legislation has no ECLI");
  assert.throws(() => checkShape("eu_publications", sparqlResults, { head: {} }), (e: unknown) => e instanceof UpstreamError && e.fault === "drift" && e.pointer === "/results");
  assert.deepEqual(toEuPage({ results: { bindings: [] } }, privacy, 1, 0), { records: [], next: null });
});

test("the full-text expression: letters and digits only, each run quoted, a prefix from four characters, short and common words left to the filters; none: filters alone", () => {
  assert.equal(textIndexQuery(titleWords("Data retention")), "'data*' AND 'retention*'");
  assert.equal(textIndexQuery(titleWords("Regulation (EU) 2016/679")), "'regulation*' AND '2016*' AND '679'", "split at punctuation; under four characters, exact");
  assert.equal(textIndexQuery(titleWords("the protection of the data")), "'protection*' AND 'data*'", "repeated and common words once or not at all");
  assert.equal(textIndexQuery(titleWords("Datenschutz-Grundverordnung")), "'datenschutz*' AND 'grundverordnung*'");
  assert.equal(textIndexQuery(titleWords("protección de datos")), "'protección*' AND 'datos*'", "letters of every language");
  // Quotes, the index's own operators and SPARQL syntax are only ever words or nothing.
  assert.equal(textIndexQuery(titleWords(`'a' OR "b*" NEAR x") . } DROP ALL #`)), "'near*' AND 'drop*'");
  assert.equal(textIndexQuery(titleWords("EU of it")), undefined);
  const q = sparqlQuery({ jurisdiction: "eu", query: "EU of it", language: "EN" }, 1, 0);
  assert.doesNotMatch(q, /bif:contains/, "no word for the index: the filters alone");
  assert.match(q, /FILTER\(CONTAINS\(LCASE\(STR\(\?title_\)\), "eu"\)\)/);
  const hostile = sparqlQuery({ jurisdiction: "eu", query: `x" } ; DELETE WHERE { ?s ?p ?o } #`, language: "EN" }, 1, 0);
  assert.equal(hostile.split("\n").filter((l) => l.startsWith("FILTER(CONTAINS")).length, 11, "one filter a word, each a closed literal");
  assert.ok(hostile.includes('FILTER(CONTAINS(LCASE(STR(?title_)), "x\\""))'), "a quote stays inside its literal");
  assert.ok(hostile.includes(`?title_ bif:contains "'delete*'" .`), hostile);
  assert.deepEqual([euPublicationsProbe.provider, euPublicationsProbe.request.path], ["eu_publications", "/webapi/rdf/sparql"]);
  assert.match(String(euPublicationsProbe.request.query?.query), /LIMIT 2 OFFSET 0$/);
});

test("recorded CELLAR bindings (Virtuoso typed-literals) are read like plain literals", () => {
  const body = fixture("eu_publications", "sparql_celex_manifestations_32008R1137.json") as { results: { bindings: JsonObject[] } };
  const row = body.results.bindings[0]!;
  // The recording's ?format is a typed-literal: read as the CELEX would be.
  const record = workRecord(checkShape("eu_publications", workRow(), { celex: row.format!, title: { type: "literal", value: "t" } }), "EN");
  assert.equal(record?.summary.identifier, "CELEX:fmx4");
  assert.equal(record?.summary.full_text, undefined, "a value that is not a CELEX number gets no legal.read request");
  assert.equal(workRecord({ celex: { value: " " }, title: { value: "t" } }, "EN"), undefined, "no CELEX, no record");
  // Every search recording fits the declared results; a row without its CELEX is drift.
  for (const f of ["sparql_search_privacy_legislation_num3", "sparql_search_privacy_legislation_num1_page0", "sparql_search_privacy_legislation_num1_page1", "sparql_search_data_retention_judgments_num2"]) {
    checkShape("eu_publications", sparqlResults, fixture("eu_publications", `${f}.json`));
  }
  assert.throws(
    () => checkShape("eu_publications", sparqlResults, { results: { bindings: [{ title: { value: "t" } }] } }),
    (e: unknown) => e instanceof UpstreamError && e.pointer === "/results/bindings/0/celex",
  );
});

test("schema: each branch's fields, defaults and bounds; the other branch's fields refused; rules at nested pointers", () => {
  const v = (body: JsonObject) => violationsOf(legalSearch, body).map((x) => x.path);
  const ok: JsonObject = { search: { jurisdiction: "us", query: "miranda" } };
  assert.deepEqual(v(ok), []);
  assert.deepEqual(ok, { search: { jurisdiction: "us", query: "miranda", courts: "all" }, num: 3 }, "the us branch's defaults");
  const eu: JsonObject = { search: { jurisdiction: "eu", query: "x" } };
  assert.deepEqual(v(eu), []);
  assert.deepEqual(eu, { search: { jurisdiction: "eu", query: "x", language: "EN" }, num: 3 }, "the eu branch's defaults");
  assert.deepEqual(v({}), ["/search"]);
  assert.deepEqual(v({ search: { query: "x" } }), ["/search/jurisdiction"]);
  assert.deepEqual(v({ search: { jurisdiction: "uk", query: "x" } }), ["/search/jurisdiction"]);
  assert.deepEqual(v({ search: { jurisdiction: "us" } }), ["/search/query"]);
  assert.deepEqual(v({ search: { jurisdiction: "us", query: "" } }), ["/search/query"]);
  assert.deepEqual(v({ search: { jurisdiction: "us", query: "x".repeat(501) } }), ["/search/query"]);
  assert.deepEqual(v({ search: { jurisdiction: "us", query: "x", courts: "tribal" } }), ["/search/courts"]);
  assert.deepEqual(v({ search: { jurisdiction: "us", query: "x", from_year: 1599 } }), ["/search/from_year"]);
  assert.deepEqual(v({ search: { jurisdiction: "us", query: "x", to_year: 2101 } }), ["/search/to_year"]);
  assert.deepEqual(v({ search: { jurisdiction: "us", query: "x", to_year: 1999.5 } }), ["/search/to_year"]);
  assert.deepEqual(v({ search: { jurisdiction: "us", query: "x", kind: "judgment" } }), ["/search/kind"]);
  assert.deepEqual(v({ search: { jurisdiction: "eu", query: "x", courts: "all" } }), ["/search/courts"]);
  assert.deepEqual(v({ search: { jurisdiction: "eu", query: "x", kind: "treaty" } }), ["/search/kind"]);
  assert.deepEqual(v({ search: { jurisdiction: "eu", query: "x", language: "en" } }), ["/search/language"]);
  assert.deepEqual(v({ search: { jurisdiction: "eu", query: "x", language: "JA" } }), ["/search/language"]);
  assert.deepEqual(v({ search: ok.search as JsonObject, num: 0 }), ["/num"]);
  assert.deepEqual(v({ search: ok.search as JsonObject, num: 11 }), ["/num"]);
  assert.deepEqual(v({ search: ok.search as JsonObject, page: 2 }), ["/page"]);
  assert.deepEqual(v({ search: { jurisdiction: "us", query: "x", from_year: 2001, to_year: 2000 } }), ["/search/from_year"]);
  assert.deepEqual(v({ search: { jurisdiction: "us", query: "x", from_year: 2000, to_year: 2000 } }), []);
  assert.deepEqual(v({ search: { jurisdiction: "eu", query: " \u200b " } }), ["/search/query"], "not blank");
  // In an update (only `search` sent), the rule points at the range's field under the sent object.
  const rules = legalSearch.checkRules({ search: { jurisdiction: "us", query: "x", courts: "all", from_year: 2001, to_year: 2000 }, num: 3 }, new Set(["search"]));
  assert.deepEqual(rules.map((r) => r.path), ["/search/from_year"]);
  assert.match(legalSearch.ruleTexts.join(" "), /`from_year` must not exceed `to_year`/);
});

test("metadata: 4 credits a search either jurisdiction, page paging, 40 s, stored details; us needs the CourtListener key", () => {
  assert.equal(legalSearch.paging, "page");
  assert.equal(legalSearch.deadlineMs, 40_000);
  assert.equal(legalSearch.typicalCredits, 4);
  assert.equal(legalSearch.maxCredits({ search: { jurisdiction: "us", query: "x", courts: "all" }, num: 10 }), 4);
  assert.equal(legalSearch.maxCredits({ search: { jurisdiction: "eu", query: "x", language: "EN" }, num: 10 }), 4);
  assert.deepEqual(
    Object.values(legalSearch.actions).map((a) => [a.name, a.mode, a.credits, a.run === undefined]),
    [["details", "stored", 0, true]],
    "no look-up: a stored candidate without its details is 410 session_expired",
  );
  assert.deepEqual(legalSearch.availability(new Set()), {
    partial: 'search/jurisdiction "us" is unavailable: COURTLISTENER_API_KEY is not set in this deployment',
  });
  assert.equal(legalSearch.missingKeyFor(new Set(), { search: { jurisdiction: "eu", query: "x" } }), undefined);
  assert.deepEqual(legalSearch.sourceChecked, ["search"]);
  for (const e of legalSearch.examples) assert.deepEqual(violationsOf(legalSearch, structuredClone(e.body)), [], e.title);
});
