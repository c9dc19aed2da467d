/**
 * legal.read end to end over HTTP against the replay upstream: each `document` source (the
 * Publications Office's CELLAR, its redirect followed to the act's HTML, CourtListener's recorded cluster and opinion, the Library of Congress item and PDF
 * and the historical works built from documented examples), sections paged with `more` to the end of
 * a document (free, no provider call), the stored details, every branch's fields and patterns
 * (execute and update), update, the sources' refusals at the document's field, provider failures as
 * provider_error (never other text, a bot challenge included) with nothing charged, the Library's
 * item API behind a challenge (the PDF read at the collection's address), and the CourtListener key
 * needed by `case_index` alone.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";
import { startHarness } from "./helpers/harness.ts";

let kit: CapabilityKit;
before(async () => {
  kit = await startCapabilityKit("legal.read");
});
after(async () => {
  await kit.close();
});

const EPRIVACY = { document: { source: "eu_official", celex: "02002L0058-20091219", language: "EN" } };
const NOEM = { document: { source: "case_index", caselaw_id: "10376225" } };
const BROWN = { document: { source: "us_reports", item_id: "usrep347483" } };
const calls = (from: number) => kit.h.replay.requests.slice(from);

test("eu_official: the document fetched once and paged with `more` to its end, free, no further provider call", async () => {
  const from = kit.h.replay.requests.length;
  const used = await kit.used();
  const first = await kit.execute({ ...EPRIVACY, num: 10 });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  // CELLAR's content negotiation: the CELEX resource answers 303 to the item on its own (http) host,
  // which the client follows on the configured base URL, negotiating the same way.
  assert.deepEqual(
    calls(from).map((r) => [r.path, r.headers.accept, r.headers["accept-language"]]),
    [
      ["/eu_publications/resource/celex/02002L0058-20091219", "application/xhtml+xml, text/html;q=0.9", "eng"],
      ["/eu_publications/resource/cellar/00000000-0000-0000-0000-000000000000.0001.01/DOC_1", "application/xhtml+xml, text/html;q=0.9", "eng"],
    ],
  );
  assert.equal(first.body.charged_credits, 0);
  assert.deepEqual(first.body.record_actions, ["details"]);
  const titles: string[] = first.body.results.map((r: { title: string }) => r.title);
  assert.equal(titles[1], "Article 1 — Scope and aim");
  for (const [i, r] of first.body.results.entries()) {
    assert.deepEqual([r.section, r.total_sections, r.identifier, r.source_class, r.extraction_method, r.language], [i + 1, 25, "CELEX:02002L0058-20091219", "institutional_transcription", "html_structure", "EN"]);
  }
  assert.ok(first.body.results[1].paragraph_anchors.includes("art_1"), "first.body.results[1].paragraph_anchors.includes(\"art_1\")");
  assert.match(first.body.notes[0], /Publications Office's CELLAR \(EN\)/);
  assert.match(first.body.notes[1], /without legal effect/);
  let page = first;
  const seen = [...first.body.results];
  while (page.body.has_more) {
    page = await kit.more(first.body.search_id);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.equal(page.body.charged_credits, 0);
    seen.push(...page.body.results);
  }
  assert.deepEqual(seen.map((r) => r.section), Array.from({ length: 25 }, (_, i) => i + 1), "every section once, in order");
  assert.equal(seen.at(-2).title, "Article 21 — Addressees");
  assert.equal(calls(from).length, 2, "more is served from the session");
  assert.equal(await kit.used(), used);
  const past = await kit.more(first.body.search_id);
  assert.deepEqual([past.body.result_count, past.body.has_more, past.body.charged_credits], [0, false, 0]);
});

test("details: the section's verbatim text and every key the spec lists, stored, free, no provider call", async () => {
  const res = await kit.execute(EPRIVACY);
  const more = await kit.more(res.body.search_id);
  const record = more.body.results[2]; // section 6: Article 5
  const from = kit.h.replay.requests.length;
  const d = await kit.action(record.record_id, "details");
  assert.equal(d.status, 200, JSON.stringify(d.body));
  assert.equal(d.body.charged_credits, 0);
  assert.equal(d.body.cached, true);
  const detail = d.body.detail;
  assert.equal(detail.section_title, "Article 5 — Confidentiality of the communications");
  assert.match(detail.text, /^Article 5\nConfidentiality of the communications\n/);
  assert.equal(detail.title, "DIRECTIVE 2002/58/EC OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL of 12 July 2002 concerning the processing of personal data and the protection of privacy in the electronic communications sector (Directive on privacy and electronic communications)");
  assert.equal(detail.identifier, "CELEX:02002L0058-20091219");
  assert.equal(detail.source, "eu_official");
  assert.equal(detail.source_class, "institutional_transcription");
  assert.equal(detail.language, "EN");
  assert.equal(detail.source_url, "https://publications.europa.eu/resource/celex/02002L0058-20091219");
  assert.equal(record.url, "https://eur-lex.europa.eu/legal-content/EN/TXT/HTML/?uri=CELEX:02002L0058-20091219#art_5", "people's link: EUR-Lex's page");
  assert.match(detail.source_sha256, /^[0-9a-f]{64}$/);
  assert.ok(!Number.isNaN(Date.parse(detail.retrieved_at)), "!Number.isNaN(Date.parse(detail.retrieved_at))");
  assert.equal(detail.extraction_method, "html_structure");
  assert.equal(detail.legal_status, "not_assessed");
  assert.equal(detail.complete_document_available_through_more, true);
  assert.deepEqual([detail.section, detail.total_sections], [6, 25]);
  assert.ok(detail.anchors.includes("art_5"), "detail.anchors.includes(\"art_5\")");
  assert.equal(kit.h.replay.requests.length, from);
});

test("case_index: CourtListener's cluster and opinion, the opinion's text in sections", async () => {
  const from = kit.h.replay.requests.length;
  const res = await kit.execute({ ...NOEM, num: 1 });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(calls(from).map((r) => r.path), ["/courtlistener/api/rest/v4/clusters/10376225/", "/courtlistener/api/rest/v4/opinions/10842813/"]);
  assert.equal(calls(from)[0]!.headers.authorization, "Token demo-key");
  assert.deepEqual([res.body.results[0].section, res.body.results[0].total_sections, res.body.results[0].extraction_method], [1, 2, "api_text"]);
  assert.equal(res.body.results[0].language, undefined, "the source does not state it");
  const rest = await kit.more(res.body.search_id);
  assert.equal(rest.body.has_more, false);
  const d = await kit.action(rest.body.results[0].record_id, "details");
  assert.match(d.body.detail.text, /the District Court should\ncontinue to ensure that the Government lives up to its obli-\ngations to follow the law\.$/);
  assert.equal(d.body.detail.language, null);
});

test("us_reports: the Library's item, then its PDF page by page with pdf_page and printed_page", async () => {
  const from = kit.h.replay.requests.length;
  const res = await kit.execute(BROWN);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(
    calls(from).map((r) => [r.prefix, r.path.replace(/^\/[^/]+/, ""), r.query.fo ?? null]),
    [
      ["loc", "/item/usrep347483/", "json"],
      ["loc-tile", "/storage-services/service/ll/usrep/usrep347/usrep347483/usrep347483.pdf", null],
    ],
  );
  assert.deepEqual(
    res.body.results.map((r: { pdf_page: number; printed_page?: string }) => [r.pdf_page, r.printed_page ?? null]),
    [
      [1, "483"],
      [2, "484"],
      [4, null],
    ],
  );
  assert.equal(res.body.results[0].extraction_method, "pdf_text");
  assert.equal(res.body.results[0].source_class, "reproduction");
  const d = await kit.action(res.body.results[0].record_id, "details");
  assert.deepEqual([d.body.detail.pdf_page, d.body.detail.printed_page, d.body.detail.source], [1, "483", "us_reports"]);
});

test("historical: works of the documented list from their sources (one without headings cut between paragraphs)", async () => {
  const magna = await kit.execute({ document: { source: "historical", work_id: "magna_carta_1215" } });
  assert.equal(magna.status, 200, JSON.stringify(magna.body));
  assert.deepEqual([magna.body.results.length, magna.body.results[0].extraction_method, magna.body.results[0].identifier], [1, "html_paragraphs", "historical:magna_carta_1215"]);
  const gg = await kit.execute({ document: { source: "historical", work_id: "basic_law_germany" }, num: 10 });
  assert.deepEqual(
    gg.body.results.map((r: { title: string }) => r.title),
    ["Basic Law for the Federal Republic of Germany", "Article 1 [Human dignity – Human rights – Legally binding force of basic rights]", "Article 2 [Personal freedoms]"],
  );
  const udhr = await kit.execute({ document: { source: "historical", work_id: "universal_declaration_of_human_rights" }, num: 2 });
  assert.equal(udhr.body.results[0].source_class, "official_publication");
  assert.equal(udhr.body.has_more, true);
});

test("each source's fields and patterns; an invalid item_id is refused before any fetch; unknown work ids listed", async () => {
  const from = kit.h.replay.requests.length;
  await kit.expectViolation({}, "/document", /required/);
  await kit.expectViolation({ document: { celex: "32016R0679" } }, "/document/source", /required/);
  await kit.expectViolation({ document: { source: "eurlex", celex: "32016R0679" } }, "/document/source", /"eu_official"/);
  await kit.expectViolation({ document: { source: "eu_official" } }, "/document/celex", /required/);
  await kit.expectViolation({ document: { source: "eu_official", celex: "CELEX:32016R0679" } }, "/document/celex");
  await kit.expectViolation({ document: { source: "eu_official", celex: "3201" } }, "/document/celex");
  await kit.expectViolation({ document: { source: "eu_official", celex: "32016r0679" } }, "/document/celex");
  await kit.expectViolation({ document: { source: "eu_official", celex: "32016R0679", language: "XX" } }, "/document/language");
  await kit.expectViolation({ document: { source: "us_reports", item_id: "usrep34748" } }, "/document/item_id");
  await kit.expectViolation({ document: { source: "us_reports", item_id: "347483" } }, "/document/item_id");
  await kit.expectViolation({ document: { source: "us_reports", item_id: "usrep347483", language: "EN" } }, "/document/language", /unknown field/);
  await kit.expectViolation({ document: { source: "case_index", caselaw_id: "abc" } }, "/document/caselaw_id");
  await kit.expectViolation({ document: { source: "case_index", caselaw_id: 10376225 } }, "/document/caselaw_id");
  await kit.expectViolation({ document: { source: "historical", work_id: "hammurabi" } }, "/document/work_id", /"magna_carta_1215".*"basic_law_germany"/);
  await kit.expectViolation({ ...EPRIVACY, num: 0 }, "/num");
  await kit.expectViolation({ ...EPRIVACY, num: 11 }, "/num");
  await kit.expectViolation({ ...EPRIVACY, section: 2 }, "/section", /unknown field/);
  assert.deepEqual(calls(from).map((r) => r.path), [], "refused before any fetch");
});

test("a document the source does not have is a violation at its field, free; an unreachable source is provider_error", async () => {
  const used = await kit.used();
  await kit.expectViolation({ document: { source: "eu_official", celex: "32099R9999", language: "EN" } }, "/document/celex", /CELLAR\) has no HTML text of CELEX:32099R9999 in EN/);
  await kit.expectViolation({ document: { source: "case_index", caselaw_id: "1" } }, "/document/caselaw_id", /no opinion cluster 1/);
  await kit.expectViolation({ document: { source: "us_reports", item_id: "usrep999999" } }, "/document/item_id", /no item usrep999999/);
  for (const [prefix, body] of [
    ["eu_publications", EPRIVACY],
    ["courtlistener", NOEM],
    ["loc", BROWN],
    ["avalon", { document: { source: "historical", work_id: "magna_carta_1215" } }],
  ] as const) {
    kit.h.replay.setFault(prefix, { kind: "status", status: 503 });
    try {
      const res = await kit.execute(body);
      assert.equal(res.status, 502, `${prefix}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, "provider_error");
    } finally {
      kit.h.replay.setFault(prefix, null);
    }
  }
  kit.h.replay.setFault("loc-tile", { kind: "truncate" });
  try {
    const res = await kit.execute(BROWN);
    assert.equal(res.body.error?.code, "provider_error", JSON.stringify(res.body));
  } finally {
    kit.h.replay.setFault("loc-tile", null);
  }
  assert.equal(await kit.used(), used);
});

test("a bot challenge is never read as text: CELLAR behind a challenge is provider_error, free; the Library's item API behind one: its PDF at the collection's address", async () => {
  const used = await kit.used();
  const aws = '<!DOCTYPE html><html><head><script>window.awsWafCookieDomainList = [];</script></head><body><div id="challenge-container"></div></body></html>';
  kit.h.replay.setFault("eu_publications", { kind: "status", status: 202, body: aws });
  try {
    const res = await kit.execute(EPRIVACY);
    assert.equal(res.status, 502, JSON.stringify(res.body));
    assert.equal(res.body.error.code, "provider_error");
    assert.match(res.body.error.message, /^Publications Office of the EU \(CELLAR\) answered with a bot challenge \(AWS WAF challenge\)/);
    assert.equal(res.body.error.retryable, false);
  } finally {
    kit.h.replay.setFault("eu_publications", null);
  }
  assert.equal(await kit.used(), used);
  const cloudflare = '<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head><body></body></html>';
  // Once: the fault of `loc` also covers its tile host (`loc-tile` falls back to the provider's recordings).
  kit.h.replay.setFault("loc", { kind: "status", status: 403, body: cloudflare, times: 1 });
  const from = kit.h.replay.requests.length;
  try {
    const res = await kit.execute(BROWN);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      calls(from).map((r) => [r.prefix, r.path.replace(/^\/[^/]+/, "")]),
      [
        ["loc", "/item/usrep347483/"],
        ["loc-tile", "/storage-services/service/ll/usrep/usrep347/usrep347483/usrep347483.pdf"],
      ],
    );
    assert.deepEqual(res.body.results.map((r: { printed_page?: string }) => r.printed_page ?? null), ["483", "484", null]);
    assert.match(res.body.notes[0], /item API answered with a bot challenge; the PDF was read from its file host/);
    const d = await kit.action(res.body.results[0].record_id, "details");
    assert.equal(d.body.detail.title, "United States Reports, volume 347, page 483 (usrep347483)");
  } finally {
    kit.h.replay.setFault("loc", null);
  }
});

test("update: another document or page size, same search_id, free; refused params at /params", async () => {
  const ex = await kit.execute(EPRIVACY);
  const up = await kit.update(ex.body.search_id, { num: 5 });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.deepEqual([up.body.search_id, up.body.result_count, up.body.charged_credits], [ex.body.search_id, 5, 0]);
  const other = await kit.update(ex.body.search_id, { document: { source: "historical", work_id: "basic_law_germany" } });
  assert.equal(other.status, 200, JSON.stringify(other.body));
  assert.equal(other.body.results[0].identifier, "historical:basic_law_germany");
  await kit.expectUpdateViolation(ex.body.search_id, { document: { source: "us_reports", item_id: "nope" } }, "/params/document/item_id");
  await kit.expectUpdateViolation(ex.body.search_id, { document: { language: "FR" } }, "/params/document/source");
  await kit.expectUpdateViolation(ex.body.search_id, { num: 11 }, "/params/num");
});

test("without COURTLISTENER_API_KEY only case_index is unavailable (503 naming it)", async () => {
  const h = await startHarness({ env: { COURTLISTENER_API_KEY: "" } });
  try {
    const { key } = await h.account("pro");
    const cl = await h.call("POST", "/v1/capabilities/legal.read/execute", { key, body: NOEM });
    assert.equal(cl.status, 503, JSON.stringify(cl.body));
    assert.equal(cl.body.error.code, "capability_unavailable");
    assert.match(cl.body.error.message, /COURTLISTENER_API_KEY/);
    const eu = await h.call("POST", "/v1/capabilities/legal.read/execute", { key, body: EPRIVACY });
    assert.equal(eu.status, 200, JSON.stringify(eu.body));
    const inspect = await h.call("GET", "/v1/capabilities/legal.read", { key });
    assert.equal(inspect.body.available, true);
    assert.match(inspect.body.unavailable_reason, /document\/source "case_index" is unavailable: COURTLISTENER_API_KEY/);
  } finally {
    await h.close();
  }
});
