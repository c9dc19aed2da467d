/**
 * PatentsView mappers of patents.search against recorded bodies: the `q` criteria each filter
 * builds, the POST body (fields, sort, size, `after`), records (keys the source has, titles only
 * when sent), the `after` cursor and its end, PatentsView's refusals, and details of one patent.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture as recorded, fixtureText, response } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import type { PatentsSearchQuery } from "./capability.ts";
import { parseCursor, patentId, toCriteria, toDetail, toDetailRequest, toSearchPage, toSearchRequest } from "./patentsview.ts";

const fixture = (name: string) => recorded("patentsview", name);
const q = (over: Partial<PatentsSearchQuery>): PatentsSearchQuery => ({ sort: "newest", num: 10, ...over });
const ALL_FIELDS = fixture("patent_get_all_fields.json") as { patents: Record<string, unknown>[] };

test("criteria: words in title or abstract per match, grant-date range, assignee phrase, inventor names", () => {
  assert.deepEqual(toCriteria(q({ query: "analgesic patch" })), {
    _or: [{ _text_all: { patent_title: "analgesic patch" } }, { _text_all: { patent_abstract: "analgesic patch" } }],
  });
  assert.deepEqual(toCriteria(q({ query: "patch plaster", match: "any" })), {
    _or: [{ _text_any: { patent_title: "patch plaster" } }, { _text_any: { patent_abstract: "patch plaster" } }],
  });
  assert.deepEqual(toCriteria(q({ query: "analgesic patch", match: "phrase" }))._or, [
    { _text_phrase: { patent_title: "analgesic patch" } },
    { _text_phrase: { patent_abstract: "analgesic patch" } },
  ]);
  assert.deepEqual(toCriteria(q({ assignee: "Teikoku Seiyaku", from_date: "1990-01-01", to_date: "1995-12-31" })), {
    _and: [
      { _gte: { patent_date: "1990-01-01" } },
      { _lte: { patent_date: "1995-12-31" } },
      { _text_phrase: { "assignees.assignee_organization": "Teikoku Seiyaku" } },
    ],
  });
  // The recorded inventor query (and-operator.yml) asks for first and last name as two phrases.
  assert.deepEqual(toCriteria(q({ inventor: "George Washington" })), {
    _and: [
      { _text_phrase: { "inventors.inventor_name_last": "Washington" } },
      { _text_phrase: { "inventors.inventor_name_first": "George" } },
    ],
  });
  assert.deepEqual(toCriteria(q({ inventor: "Sasaki" })), { _text_phrase: { "inventors.inventor_name_last": "Sasaki" } });
});

test("search request: POST /api/v1/patent/ with {q, f, s, o}; `more` adds o.after", () => {
  const first = toSearchRequest(q({ query: "x", num: 5 }), null);
  assert.equal(first.provider, "patentsview");
  assert.equal(first.method, "POST");
  assert.equal(first.path, "/api/v1/patent/");
  assert.equal(first.idempotent, true);
  const body = first.body as { f: string[]; s: unknown; o: unknown };
  assert.ok(body.f.includes("patent_title") && body.f.includes("cpc_current") && body.f.includes("inventors"));
  assert.deepEqual(body.s, [{ patent_date: "desc" }, { patent_id: "desc" }]);
  assert.deepEqual(body.o, { size: 5 });
  const next = toSearchRequest(q({ query: "x", num: 5, sort: "oldest" }), { after: ["1992-05-26", "5116621"], seen: 5 });
  assert.deepEqual((next.body as { s: unknown }).s, [{ patent_date: "asc" }, { patent_id: "asc" }]);
  assert.deepEqual((next.body as { o: unknown }).o, { size: 5, after: ["1992-05-26", "5116621"] });
  assert.deepEqual(toDetailRequest("5116621").body, {
    q: { patent_id: "5116621" },
    f: (toDetailRequest("5116621").body as { f: string[] }).f,
    o: { size: 1 },
  });
});

test("records from the recorded full patent: number, title, date, assignees, inventors, snippet, CPC groups", () => {
  const page = toSearchPage(response(200, ALL_FIELDS), q({ query: "x" }), null);
  assert.equal(page.next, null, "count 1 = total_hits 1");
  const r = page.records[0];
  assert.equal(r?.summary.title, "Anti-inflammatory analgesic patch");
  assert.equal(r?.summary.url, "https://patents.google.com/patent/US5116621");
  assert.equal(r?.summary.patent_id, "5116621");
  assert.equal(r?.summary.date, "1992-05-26");
  assert.equal(r?.summary.type, "utility");
  assert.deepEqual(r?.summary.assignees, ["Lederle (Japan), Ltd.", "TEIKOKU SEIYAKU CO., LTD."], "in assignee_sequence order");
  assert.deepEqual(r?.summary.inventors, ["Akihito Oji", "Yukihiro Tada", "Noriyuki Sasaki", "Mitsuo Mizumura"]);
  assert.deepEqual(r?.summary.cpc, ["A61K9/7061", "A61K9/0014", "A61K31/19", "A61K47/12", "A61K47/18", "A61P29/00"]);
  assert.equal(r?.summary.cited_by, 34);
  assert.ok(String(r?.summary.snippet).startsWith("An anti-inflammatory analgesic patch having a drug reservoir layer"));
  assert.ok(String(r?.summary.snippet).length <= 300);
  assert.deepEqual(r?.ref, { patent_id: "5116621" });
});

test("records of a recorded list without titles: `Patent <number>`, no invented date or snippet", () => {
  const page = toSearchPage(response(200, fixture("patent_get_inventor_and_query.json")), q({ inventor: "George Washington", num: 25 }), null);
  assert.equal(page.records.length, 12);
  assert.equal(page.next, null, "12 of 12");
  const first = page.records[0]?.summary;
  assert.equal(first?.title, "Patent 10568228");
  assert.equal("date" in (first ?? {}), false);
  assert.equal("snippet" in (first ?? {}), false);
  assert.deepEqual(first?.assignees, ["Johnson Controls Technology Company"]);
  assert.ok(page.records.every((rec) => Array.isArray(rec.summary.inventors)));
});

test("the after cursor: the last patent's grant date and number, while PatentsView reports more", () => {
  const envelope = { error: false, count: 1, total_hits: 3001, patents: ALL_FIELDS.patents };
  const first = toSearchPage(response(200, envelope), q({ query: "x", num: 1 }), null);
  assert.deepEqual(first.next, { after: ["1992-05-26", "5116621"], seen: 1 });
  const later = toSearchPage(response(200, envelope), q({ query: "x", num: 1 }), { after: ["1992-05-26", "5116622"], seen: 3000 });
  assert.equal(later.next, null, "3001 seen of 3001");
  // The recorded sorted page was asked for patent_id only: without the grant date there is no cursor.
  const sorted = toSearchPage(response(200, fixture("patent_get_sorted_page1.json")), q({ from_date: "2000-01-04", to_date: "2000-01-04" }), null);
  assert.equal(sorted.records.length, 10);
  assert.equal(sorted.next, null);
  assert.match(sorted.notes?.[0] ?? "", /did not send the grant date/);
  assert.deepEqual(parseCursor({ after: ["1992-05-26", "5116621"], seen: 4 }), { after: ["1992-05-26", "5116621"], seen: 4 });
  assert.equal(parseCursor(null), null);
  assert.equal(parseCursor({ after: "5116621" }), null);
});

test("no results is an empty page; an error body or a 400 is a provider error with PatentsView's reason", () => {
  const empty = toSearchPage(response(200, fixture("patent_post_no_results.json")), q({ query: "x" }), null);
  assert.deepEqual(empty, { records: [], next: null });
  assert.throws(
    () => toSearchPage({ ...response(400, { error: true }), headers: { "x-status-reason": "Invalid field: patent_titel" } }, q({ query: "x" }), null),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /Invalid field: patent_titel/.test(e.message),
  );
  assert.throws(() => toSearchPage(response(200, fixtureText("patentsview", "error_500_html_ipc.html")), q({ query: "x" }), null), ApiError);
});

test("a recorded answer with more fields than asked: extra groups are ignored, records still typed", () => {
  const page = toSearchPage(response(200, fixture("patent_post_single_assignees.json")), q({ query: "x" }), null);
  assert.equal(page.records[0]?.summary.patent_id, "5116621");
  assert.equal(page.records[0]?.summary.title, "Patent 5116621");
  assert.deepEqual(page.records[0]?.summary.assignees, ["Lederle (Japan), Ltd.", "TEIKOKU SEIYAKU CO., LTD."]);
});

test("details of the recorded full patent", () => {
  const out = toDetail(response(200, ALL_FIELDS), "5116621");
  assert.ok(out);
  const d = out.detail;
  assert.equal(d.kind, "A");
  assert.equal(d.withdrawn, false);
  assert.deepEqual(d.application, { number: "07/633146", filing_date: "1990-12-24" });
  assert.deepEqual((d.assignees as unknown[])[1], { name: "TEIKOKU SEIYAKU CO., LTD.", city: "Samukawa", country: "JP" });
  assert.deepEqual(d.cpc_subclasses, ["A61K", "A61P"]);
  assert.deepEqual(d.citations, { cited_by_us_patents: 34, us_patents_cited: 6, us_applications_cited: 0, foreign_documents_cited: 3 });
  assert.deepEqual(d.foreign_priority, [{ country: "JP", application: "1-332599", filing_date: "1989-12-25" }]);
  assert.equal(d.figures, 3);
  assert.deepEqual(out.links, [{ label: "Google Patents", url: "https://patents.google.com/patent/US5116621" }]);
  assert.equal(toDetail(response(200, fixture("patent_post_no_results.json")), "5116621"), undefined);
});

test("patentId: numbers with an optional type prefix only", () => {
  assert.equal(patentId("5116621"), "5116621");
  assert.equal(patentId("D912345"), "D912345");
  assert.equal(patentId("RE49000"), "RE49000");
  assert.equal(patentId("../5116621"), undefined);
  assert.equal(patentId(5116621), undefined);
});
