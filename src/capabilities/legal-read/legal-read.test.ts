// legal.read without a server: the Publications Office's HTML (a recorded EUR-Lex page) split by article with its anchors, the
// recorded CourtListener cluster and opinion, the Library of Congress item with its PDF (pages,
// printed page numbers) or full-text file, the historical works from their pages, each source's
// refusals (400 at the document's field) and failures (provider_error, never other text), the
// stored details every section carries, and the schema's branches.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, test } from "node:test";
import { fakeContext, fixture, fixtureText, response, violationsOf } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { UpstreamError } from "../../upstream/faults.ts";
import { checkShape } from "../../upstream/response-check.ts";
import type { UpstreamRequest, UpstreamResponse } from "../../upstream/types.ts";
import { cluster as clusterSchema, opinion as opinionSchema } from "../shared/courtlistener.ts";
import type { JsonObject } from "../types.ts";
import { legalRead } from "./capability.ts";
import { MAX_OPINIONS, opinionSections } from "./case-index.ts";
import { cellarDocumentRequest, euOfficialDocument, eurLexProbe } from "./eu-official.ts";
import { HISTORICAL_WORK_IDS, HISTORICAL_WORKS } from "./historical-works.ts";
import { htmlSections } from "./html-sections.ts";
import { chunk, MAX_SECTION_CHARS, partsOf, sha256Hex, textSections } from "./sections.ts";
import { closeSplitPool } from "./split-pool.ts";
import { avalonProbe, gesetzeProbe, unProbe } from "./historical.ts";
import { collectionPdfUrl, fileRequest, fullText, locItem, locProbe, parseItem } from "./us-reports.ts";
import { printedPage } from "./us-reports-pdf.ts";

const FIXTURES = new URL("../../../fixtures/providers/", import.meta.url);
const bytesOf = (path: string) => new Uint8Array(readFileSync(new URL(path, FIXTURES)));

/** A bytes answer as the client gives it (`responseType: "bytes"`). */
function bytes(status: number, body: Uint8Array, contentType: string): UpstreamResponse {
  return { status, headers: { "content-type": contentType }, body };
}

after(() => closeSplitPool());

const EPRIVACY = "eurlex/txt_html_consolidated_02002L0058_20091219.html";
const ePrivacy = () => euOfficialDocument({ status: 200, bytes: bytesOf(EPRIVACY), text: fixtureText("eurlex", "txt_html_consolidated_02002L0058_20091219.html"), contentType: "text/html" }, "02002L0058-20091219", "EN", AbortSignal.timeout(30_000));

test("the Publications Office's HTML: the title block, one section per article (its anchor, its heading), the footnotes; nothing dropped", async () => {
  const doc = await ePrivacy();
  assert.equal(doc.title, "DIRECTIVE 2002/58/EC OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL of 12 July 2002 concerning the processing of personal data and the protection of privacy in the electronic communications sector (Directive on privacy and electronic communications)");
  assert.equal(doc.identifier, "CELEX:02002L0058-20091219");
  assert.equal(doc.sourceClass, "institutional_transcription", "a consolidated version");
  assert.equal(doc.extractionMethod, "html_structure");
  assert.equal(doc.sha256, sha256Hex(bytesOf(EPRIVACY)));
  assert.equal(doc.sections.length, 25);
  assert.match(doc.sections[0]!.text, /This text is meant purely as a documentation tool and has no legal effect/);
  assert.equal(doc.sections[1]!.title, "Article 1 — Scope and aim");
  assert.equal(doc.sections[1]!.anchor, "art_1");
  assert.ok(doc.sections[1]!.anchors.includes("art_1.tit_1"), "doc.sections[1]!.anchors.includes(\"art_1.tit_1\")");
  assert.match(doc.sections[1]!.text, /^Article 1\nScope and aim\n▼M2\n1\. This Directive provides for the harmonisation/);
  assert.equal(doc.sections[15]!.title, "Article 14a — Committee procedure");
  assert.equal(doc.sections[23]!.title, "Article 21 — Addressees");
  assert.equal(doc.sections[23]!.text, "Article 21\nAddressees\nThis Directive is addressed to the Member States.");
  assert.match(doc.sections[24]!.text, /^\( 1 \) OJ C 365 E, 19\.12\.2000, p\. 223\./);
  assert.ok(doc.sections[24]!.anchors.includes("E0011"), "doc.sections[24]!.anchors.includes(\"E0011\")");
  // Every article's words are in exactly one section; scripts are not text.
  const all = doc.sections.map((s) => s.text).join("\n");
  assert.equal(all.match(/Article 5\nConfidentiality of the communications/g)?.length, 1);
  assert.doesNotMatch(all, /generateTOC|ruxitagentjs/);
});

test("CELLAR request by CELEX, negotiated in the language, redirects followed; 404 is the caller's celex; a page without an act is drift; several documents are refused", async () => {
  assert.deepEqual(cellarDocumentRequest("32016R0679", "FR"), {
    provider: "eu_publications",
    method: "GET",
    path: "/resource/celex/32016R0679",
    headers: { accept: "application/xhtml+xml, text/html;q=0.9", "accept-language": "fra" },
    redirects: 3,
    acceptStatus: [300, 404],
  });
  assert.equal(cellarDocumentRequest("02002L0058-20091219", "EN").headers?.["accept-language"], "eng");
  const html = fixtureText("eurlex", "not_found.html");
  const fetched = { bytes: new TextEncoder().encode(html), text: html, contentType: "text/html" };
  const signal = AbortSignal.timeout(30_000);
  await assert.rejects(
    euOfficialDocument({ ...fetched, status: 404 }, "32099R9999", "EN", signal),
    (e: unknown) => e instanceof ApiError && e.code === "invalid_request" && e.violations?.[0]?.path === "/document/celex",
  );
  await assert.rejects(
    euOfficialDocument({ ...fetched, status: 200 }, "32099R9999", "EN", signal),
    (e: unknown) =>
      e instanceof UpstreamError &&
      e.code === "provider_error" &&
      e.fault === "drift" &&
      e.retryable === false &&
      /^Publications Office of the EU \(CELLAR\) answered in a shape Quarry does not read: the body holds no text of CELEX:32099R9999 \(EN\)/.test(e.message),
  );
  await assert.rejects(euOfficialDocument({ ...fetched, status: 300 }, "32016R0679", "EN", signal), (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /several documents/.test(e.message));
  const act = await euOfficialDocument({ status: 200, bytes: bytesOf(EPRIVACY), text: fixtureText("eurlex", "txt_html_consolidated_02002L0058_20091219.html"), contentType: "text/html" }, "32002L0058", "EN", signal);
  assert.equal(act.sourceClass, "official_publication", "an act as published");
  assert.equal(act.sourceUrl, "https://publications.europa.eu/resource/celex/32002L0058", "the resource the text was negotiated from");
  assert.equal(act.pageUrl, "https://eur-lex.europa.eu/legal-content/EN/TXT/HTML/?uri=CELEX:32002L0058", "people's link");
  assert.deepEqual(act.notes, ["Read from the Publications Office's CELLAR (EN), the repository EUR-Lex publishes from."]);
  // EUR-Lex is not read (its front end challenges automated clients) but probed, as an HTML page.
  assert.deepEqual([eurLexProbe.provider, eurLexProbe.request.path, eurLexProbe.request.responseType, eurLexProbe.request.response], ["eurlex", "/legal-content/EN/TXT/HTML/", "bytes", "html"]);
});

test("headings split a page without EUR-Lex structure; chrome is not text; no structure: cut between paragraphs", () => {
  const un = htmlSections(fixtureText("un", "udhr.html"), "UDHR", { root: "main" });
  assert.equal(un.split, "headings");
  assert.deepEqual(un.sections.map((s) => s.title), [
    "Universal Declaration of Human Rights",
    "Preamble",
    "Article 1",
    "Article 2",
    "Article 3",
  ]);
  assert.deepEqual(un.sections[2]!.anchors, ["article-1"]);
  assert.doesNotMatch(un.sections.map((s) => s.text).join("\n"), /Terms of Use|Welcome to the United Nations/);
  const gg = htmlSections(fixtureText("gesetze", "englisch_gg.html"), "GG");
  assert.equal(gg.sections[1]!.title, "Article 1 [Human dignity – Human rights – Legally binding force of basic rights]");
  assert.match(gg.sections[1]!.text, /\(1\) Human dignity shall be inviolable\./);
  assert.deepEqual(gg.sections[2]!.anchors, ["p0020"]);
  const avalon = htmlSections(fixtureText("avalon", "magna.html"), "Magna Carta");
  assert.equal(avalon.split, "paragraphs");
  assert.equal(avalon.sections.length, 1);
  assert.match(avalon.sections[0]!.text, /\(39\) No free man shall be seized or imprisoned/);
});

test("sections stay readable: a long run is cut into parts at line boundaries, a long line at a space; text is chunked between paragraphs", () => {
  const line = (i: number) => ({ text: "word ".repeat(700).trim(), ids: [`p${i}`] });
  const parts = partsOf([line(1), line(2), line(3), line(4)], "Annex I");
  assert.deepEqual(parts.map((p) => p.title), ["Annex I (part 1 of 2)", "Annex I (part 2 of 2)"]);
  assert.ok(parts.every((p) => p.text.length <= MAX_SECTION_CHARS), "parts.every((p) => p.text.length <= MAX_SECTION_CHARS)");
  assert.deepEqual(parts.map((p) => p.anchors), [["p1", "p2", "p3"], ["p4"]]);
  const long = partsOf([{ text: "x ".repeat(20_000).trim(), ids: ["a"] }], "One line");
  assert.equal(long.length, 4);
  assert.equal(long.map((p) => p.text).join(" "), "x ".repeat(20_000).trim(), "cut, never changed");
  const text = textSections("First para\nstill first.\n\n\nSecond   para.\n\n", "Opinion", 15);
  assert.deepEqual(text.map((s) => [s.title, s.text]), [
    ["Opinion (part 1 of 2)", "First para\nstill first."],
    ["Opinion (part 2 of 2)", "Second para."],
  ]);
  assert.deepEqual(chunk([], "none"), []);
});

test("CourtListener: the recorded cluster and its opinion, read as text; 404 is the caller's caselaw_id", async () => {
  const cluster = fixture("courtlistener", "cluster_v4_10376225.json");
  const opinion = fixture("courtlistener", "opinion_v4_10842813.json") as JsonObject;
  const { ctx, requests } = fakeContext((r: UpstreamRequest) => (r.path.includes("/clusters/") ? cluster : opinion));
  const q = { document: { source: "case_index", caselaw_id: "10376225" }, num: 3 };
  const page = await legalRead.search(ctx, q, null);
  assert.deepEqual(requests.map((r) => r.path), ["/api/rest/v4/clusters/10376225/", "/api/rest/v4/opinions/10842813/"]);
  assert.equal(page.credits, 0);
  assert.equal(page.records.length, 2);
  const [first, second] = page.records;
  assert.deepEqual(first!.summary, {
    title: "Combined opinion (part 1 of 2)",
    url: "https://www.courtlistener.com/opinion/10376225/noem-v-abrego-garcia/",
    snippet: first!.summary.snippet!,
    identifier: "courtlistener-cluster:10376225",
    source_class: "institutional_transcription",
    section: 1,
    total_sections: 2,
    extraction_method: "api_text",
  });
  assert.match(first!.detail!.text as string, /^Cite as: 604 U\. S\. ____ \(2025\) 1\nSUPREME COURT OF THE UNITED STATES/);
  assert.match(second!.detail!.text as string, /continue to ensure that the Government lives up to its obli-\ngations to follow the law\.$/);
  assert.equal(first!.detail!.title, "Noem v. Abrego Garcia");
  assert.equal(first!.detail!.language, null, "CourtListener does not state the language");
  const notFound = fakeContext(response(404, fixture("courtlistener", "not_found.json")));
  await assert.rejects(
    legalRead.search(notFound.ctx, { document: { source: "case_index", caselaw_id: "1" }, num: 3 }, null),
    (e: unknown) => e instanceof ApiError && e.code === "invalid_request" && e.violations?.[0]?.path === "/document/caselaw_id",
  );
  // An opinion the cluster lists but CourtListener does not answer: the decision is not read in part.
  const missing = fakeContext((r: UpstreamRequest) => (r.path.includes("/clusters/") ? cluster : response(404, { detail: "Not found." })));
  await assert.rejects(legalRead.search(missing.ctx, q, null), (e: unknown) => e instanceof ApiError && e.code === "provider_error");
  // A cluster listing more opinions than one call reads is refused before any opinion is fetched,
  // never served in part (its details would say the whole document is there).
  const many = { ...(cluster as JsonObject), sub_opinions: Array.from({ length: MAX_OPINIONS + 1 }, (_, i) => `https://www.courtlistener.com/api/rest/v4/opinions/${i + 1}/`) };
  const large = fakeContext((r: UpstreamRequest) => (r.path.includes("/clusters/") ? many : opinion));
  await assert.rejects(legalRead.search(large.ctx, q, null), (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /lists 101 opinions/.test(e.message));
  assert.deepEqual(large.requests.map((r) => r.path), ["/api/rest/v4/clusters/10376225/"]);
});

test("an opinion without plain text is read from its best HTML rendering (CourtListener's order)", async () => {
  const signal = AbortSignal.timeout(30_000);
  const read = await opinionSections({ type: "040dissent", author_str: "Holmes", plain_text: "", html_lawbox: "<p>B text</p>", html_with_citations: "<p>A <span>text</span></p>" }, 0, signal);
  assert.equal(read.plain, false);
  assert.deepEqual(read.sections.map((s) => [s.title, s.text]), [["Dissent (Holmes)", "A text"]]);
  assert.deepEqual((await opinionSections({ type: "999new", plain_text: "" }, 2, signal)).sections, []);
});

test("US Reports: the item, then its PDF page by page with printed pages where the page shows them", async () => {
  const item = fixture("loc", "item_usrep347483.json");
  const pdf = bytesOf("loc/usrep347483.pdf");
  const { ctx, requests } = fakeContext((r: UpstreamRequest) => (r.path.startsWith("/item/") ? item : bytes(200, pdf, "application/pdf")));
  const page = await legalRead.search(ctx, { document: { source: "us_reports", item_id: "usrep347483" }, num: 3 }, null);
  assert.deepEqual(
    requests.map((r) => [r.host ?? "default", r.path, r.responseType ?? "json"]),
    [
      ["default", "/item/usrep347483/", "json"],
      ["tile", "/storage-services/service/ll/usrep/usrep347/usrep347483/usrep347483.pdf", "bytes"],
    ],
  );
  assert.deepEqual(requests[0]!.query, { fo: "json" });
  assert.deepEqual(
    page.records.map((r) => [r.summary.title, r.summary.pdf_page, r.summary.printed_page ?? null]),
    [
      ["PDF page 1 (page 483)", 1, "483"],
      ["PDF page 2 (page 484)", 2, "484"],
      ["PDF page 4", 4, null],
    ],
    "the blank page 3 is left out, page numbers kept; page 4 shows no number, so none is given",
  );
  const d = page.records[0]!.detail!;
  assert.equal(d.source_sha256, sha256Hex(pdf));
  assert.equal(d.extraction_method, "pdf_text");
  assert.equal(d.source_class, "reproduction");
  assert.equal(d.language, "EN");
  assert.equal(d.pdf_page, 1);
  assert.equal(d.printed_page, "483");
  assert.match(d.text as string, /BROWN ET AL\. v\. BOARD OF EDUCATION OF TOPEKA ET AL\./);
});

test("US Reports: a full-text file wins over the PDF; files on other hosts are never fetched; 404 is the caller's item_id", async () => {
  const { ctx, requests } = fakeContext((r: UpstreamRequest) =>
    r.path.startsWith("/item/") ? fixture("loc", "item_usrep001001.json") : bytes(200, bytesOf("loc/usrep001001.txt"), "text/plain; charset=utf-8"),
  );
  const page = await legalRead.search(ctx, { document: { source: "us_reports", item_id: "usrep001001" }, num: 3 }, null);
  assert.equal(requests[1]!.path, "/storage-services/service/ll/usrep/usrep001/usrep001001/usrep001001.txt");
  assert.equal(page.records[0]!.summary.extraction_method, "api_text");
  assert.equal(page.records[0]!.detail!.text, "1\n[Documented example built for Quarry's tests: a full-text file's first paragraph.]\n[Its second paragraph.]");
  assert.equal(fileRequest("https://evil.example/storage-services/x.pdf"), undefined);
  assert.equal(fileRequest("http://tile.loc.gov/x.pdf"), undefined, "https only");
  assert.deepEqual(fileRequest("https://tile.loc.gov/text-services/word-coordinates-service?segment=/a.xml&format=alto_xml"), {
    provider: "loc",
    host: "tile",
    method: "GET",
    path: "/text-services/word-coordinates-service",
    query: { segment: "/a.xml", format: "alto_xml" },
  });
  assert.equal(fullText("<alto/>"), undefined, "ALTO XML is not read as text");
  assert.equal(fullText('{"/a": {"full_text": "Page one."}, "/b": {"full_text": "Page two."}}'), "Page one.\n\nPage two.");
  assert.equal(printedPage("OCTOBER TERM, 1953.\nbody\n1483", 483), undefined, "a number inside another is not the page");
  assert.equal(parseItem({ item: { title: "T", language: ["english", "french"] } }).language, null);
  assert.equal(parseItem({ item: { title: "T", language: ["eng"] } }).language, "EN", "the API's code");
  assert.equal(parseItem({ item: { title: "T", language: ["English"] } }).language, "EN");
  assert.equal(parseItem({ item: { title: "T", language: ["fre"] } }).language, null);
  assert.equal(parseItem({ item: { title: "T" }, resources: [{ files: 2 }] }).pdfUrl, undefined, "a file count (search results) is no file");
  const offsite = fakeContext({ item: { title: "T" }, resources: [{ pdf: "https://example.org/a.pdf" }] });
  await assert.rejects(
    legalRead.search(offsite.ctx, { document: { source: "us_reports", item_id: "usrep000001" }, num: 3 }, null),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /no text or PDF file on its own hosts/.test(e.message),
  );
  assert.equal(offsite.requests.length, 1, "only the item was asked for");
  const missing = fakeContext(response(404, fixture("loc", "not_found.json")));
  await assert.rejects(
    legalRead.search(missing.ctx, { document: { source: "us_reports", item_id: "usrep999999" }, num: 3 }, null),
    (e: unknown) => e instanceof ApiError && e.violations?.[0]?.path === "/document/item_id",
  );
  const notPdf = fakeContext((r: UpstreamRequest) => (r.path.startsWith("/item/") ? fixture("loc", "item_usrep347483.json") : bytes(200, new TextEncoder().encode("<html>"), "text/html")));
  await assert.rejects(
    legalRead.search(notPdf.ctx, { document: { source: "us_reports", item_id: "usrep347483" }, num: 3 }, null),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /could not be read/.test(e.message),
  );
});

test("historical works: fetched from their documented page, bytes hashed, a moved page is provider_error", async () => {
  const html = bytesOf("un/udhr.html");
  const { ctx, requests } = fakeContext(bytes(200, html, "text/html; charset=utf-8"));
  const page = await legalRead.search(ctx, { document: { source: "historical", work_id: "universal_declaration_of_human_rights" }, num: 3 }, null);
  assert.deepEqual([requests[0]!.provider, requests[0]!.path, requests[0]!.responseType], ["un", "/en/about-us/universal-declaration-of-human-rights", "bytes"]);
  assert.equal(page.records.length, 5);
  const d = page.records[2]!.detail!;
  assert.deepEqual([d.source, d.source_class, d.language, d.extraction_method], ["historical", "official_publication", "EN", "html_structure"]);
  assert.equal(d.source_url, "https://www.un.org/en/about-us/universal-declaration-of-human-rights");
  assert.equal(d.source_sha256, sha256Hex(html));
  assert.equal(page.records[2]!.summary.url, "https://www.un.org/en/about-us/universal-declaration-of-human-rights#article-1");
  const moved = fakeContext(bytes(404, new TextEncoder().encode("gone"), "text/html"));
  await assert.rejects(
    legalRead.search(moved.ctx, { document: { source: "historical", work_id: "magna_carta_1215" }, num: 3 }, null),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && e.retryable === false,
  );
  // Every work names a provider of the table, a path on it and its public page on the same site.
  for (const w of HISTORICAL_WORKS) {
    assert.ok(w.path.startsWith("/"), w.id);
    assert.ok(w.sourceUrl.endsWith(w.path), w.id);
  }
});

test("every section's stored details carry the spec's keys", async () => {
  const { ctx } = fakeContext(bytes(200, bytesOf(EPRIVACY), "text/html;charset=UTF-8"));
  const page = await legalRead.search(ctx, { document: { source: "eu_official", celex: "02002L0058-20091219", language: "EN" }, num: 3 }, null);
  const d = page.records[5]!.detail!;
  assert.deepEqual(Object.keys(d).sort(), [
    "anchors", "complete_document_available_through_more", "extraction_method", "identifier", "language", "legal_status", "retrieved_at",
    "section", "section_title", "source", "source_class", "source_sha256", "source_url", "text", "title", "total_sections",
  ]);
  assert.equal(d.legal_status, "not_assessed");
  assert.equal(d.complete_document_available_through_more, true);
  assert.equal(d.section, 6);
  assert.equal(d.total_sections, 25);
  assert.ok(!Number.isNaN(Date.parse(d.retrieved_at as string)), "!Number.isNaN(Date.parse(d.retrieved_at as string))");
  assert.equal(page.records[5]!.summary.url, "https://eur-lex.europa.eu/legal-content/EN/TXT/HTML/?uri=CELEX:02002L0058-20091219#art_5");
});

test("schema: each source's fields and patterns (item_id refused before any fetch), work ids listed, defaults", () => {
  const v = (body: JsonObject) => violationsOf(legalRead, body);
  const ok: JsonObject = { document: { source: "eu_official", celex: "32016R0679" } };
  assert.deepEqual(v(ok), []);
  assert.deepEqual(ok, { document: { source: "eu_official", celex: "32016R0679", language: "EN" }, num: 3 });
  const paths = (body: JsonObject) => v(body).map((x) => x.path);
  assert.deepEqual(paths({}), ["/document"]);
  assert.deepEqual(paths({ document: { celex: "32016R0679" } }), ["/document/source"]);
  assert.deepEqual(paths({ document: { source: "eu_official", celex: "3201" } }), ["/document/celex"]);
  assert.deepEqual(paths({ document: { source: "eu_official", celex: "X2016R0679" } }), ["/document/celex"]);
  assert.deepEqual(paths({ document: { source: "eu_official", celex: "32016r0679" } }), ["/document/celex"]);
  assert.deepEqual(paths({ document: { source: "eu_official", celex: `3${"1".repeat(51)}` } }), ["/document/celex"]);
  assert.deepEqual(paths({ document: { source: "eu_official", celex: "32016R0679", language: "XX" } }), ["/document/language"]);
  assert.deepEqual(paths({ document: { source: "us_reports", item_id: "usrep34748" } }), ["/document/item_id"]);
  assert.deepEqual(paths({ document: { source: "us_reports", item_id: "usrep347483x" } }), ["/document/item_id"]);
  assert.deepEqual(paths({ document: { source: "us_reports", item_id: "usrep347483", celex: "32016R0679" } }), ["/document/celex"]);
  assert.deepEqual(paths({ document: { source: "case_index", caselaw_id: "12a" } }), ["/document/caselaw_id"]);
  assert.deepEqual(paths({ document: { source: "case_index", caselaw_id: "1".repeat(26) } }), ["/document/caselaw_id"]);
  assert.deepEqual(paths({ document: { source: "case_index" } }), ["/document/caselaw_id"]);
  const unknown = v({ document: { source: "historical", work_id: "hammurabi" } });
  assert.deepEqual(unknown.map((x) => x.path), ["/document/work_id"]);
  for (const id of HISTORICAL_WORK_IDS) assert.ok(unknown[0]!.message.includes(`"${id}"`), id);
  assert.deepEqual(paths({ document: ok.document as JsonObject, num: 11 }), ["/num"]);
  assert.deepEqual(paths({ document: ok.document as JsonObject, num: 0 }), ["/num"]);
  for (const e of legalRead.examples) assert.deepEqual(v(structuredClone(e.body)), [], e.title);
});

test("metadata: free, local paging of num sections, 40 s, stored details; only case_index needs the CourtListener key", () => {
  assert.equal(legalRead.paging, "local");
  assert.equal(legalRead.deadlineMs, 40_000);
  assert.equal(legalRead.typicalCredits, 0);
  assert.equal(legalRead.pageSize({ document: { source: "historical", work_id: "un_charter" }, num: 7 }), 7);
  assert.deepEqual(Object.values(legalRead.actions).map((a) => [a.name, a.mode, a.credits]), [["details", "stored", 0]]);
  assert.deepEqual(legalRead.availability(new Set()), {
    partial: 'document/source "case_index" is unavailable: COURTLISTENER_API_KEY is not set in this deployment',
  });
  assert.equal(legalRead.missingKeyFor(new Set(), { document: { source: "case_index", caselaw_id: "1" } }), "COURTLISTENER_API_KEY");
  assert.equal(legalRead.missingKeyFor(new Set(), { document: { source: "historical", work_id: "un_charter" } }), undefined);
  assert.equal(legalRead.mergeUpdate, undefined, "update: the default merge (a document sent replaces the stored one)");
});

test("every recording of legal.read's providers fits the answer its request declares", () => {
  checkShape("courtlistener", clusterSchema, fixture("courtlistener", "cluster_v4_10376225.json"));
  checkShape("courtlistener", opinionSchema, fixture("courtlistener", "opinion_v4_10842813.json"));
  checkShape("loc", locItem, fixture("loc", "item_usrep347483.json"));
  checkShape("loc", locItem, fixture("loc", "item_usrep001001.json"));
  // A renamed field the reader needs is drift, named by its pointer.
  const renamed = { ...(fixture("courtlistener", "cluster_v4_10376225.json") as JsonObject) };
  delete renamed.sub_opinions;
  assert.throws(() => checkShape("courtlistener", clusterSchema, renamed), (e: unknown) => e instanceof UpstreamError && e.fault === "drift" && e.pointer === "/sub_opinions");
  assert.throws(() => checkShape("loc", locItem, { item: { title: "T", language: "eng" } }), (e: unknown) => e instanceof UpstreamError && e.pointer === "/item/language", "a language string is not the API's list");
});

test("US Reports: when the item API answers with a bot challenge, the PDF is read at the collection's address for the id, with a note", async () => {
  const pdf = bytesOf("loc/usrep347483.pdf");
  const challenge = new UpstreamError("provider_error", "Library of Congress answered with a bot challenge (Cloudflare challenge) instead of its answer.", "challenged", "loc", { retryable: false });
  const { ctx, requests } = fakeContext((r: UpstreamRequest) => (r.path.startsWith("/item/") ? challenge : bytes(200, pdf, "application/pdf")));
  const page = await legalRead.search(ctx, { document: { source: "us_reports", item_id: "usrep347483" }, num: 3 }, null);
  assert.equal(collectionPdfUrl("usrep347483"), "https://tile.loc.gov/storage-services/service/ll/usrep/usrep347/usrep347483/usrep347483.pdf");
  assert.deepEqual(
    requests.map((r) => [r.host ?? "default", r.path, r.responseType ?? "json", r.acceptStatus]),
    [
      ["default", "/item/usrep347483/", "json", [404]],
      ["tile", "/storage-services/service/ll/usrep/usrep347/usrep347483/usrep347483.pdf", "bytes", [404]],
    ],
  );
  assert.deepEqual(page.records.map((r) => r.summary.printed_page ?? null), ["483", "484", null]);
  const d = page.records[0]!.detail!;
  assert.equal(d.title, "United States Reports, volume 347, page 483 (usrep347483)");
  assert.equal(d.language, null, "not stated without the item");
  assert.equal(d.source_sha256, sha256Hex(pdf));
  assert.match(page.notes?.[0] ?? "", /item API answered with a bot challenge; the PDF was read from its file host at the collection's address/);
  // No PDF at that address: an error, never another text.
  const none = fakeContext((r: UpstreamRequest) => (r.path.startsWith("/item/") ? challenge : bytes(404, new TextEncoder().encode("Not found"), "text/plain")));
  await assert.rejects(
    legalRead.search(none.ctx, { document: { source: "us_reports", item_id: "usrep347483" }, num: 3 }, null),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /no PDF at the collection's address for usrep347483/.test(e.message),
  );
  // Any other failure of the item request is that failure.
  const down = fakeContext(new UpstreamError("provider_error", "loc failed: HTTP 503.", "unreachable", "loc"));
  await assert.rejects(legalRead.search(down.ctx, { document: { source: "us_reports", item_id: "usrep347483" }, num: 3 }, null), /HTTP 503/);
  assert.equal(down.requests.length, 1);
});

test("historical works: a page without the element its text is in, or without any text, is drift, never chrome read as the work", async () => {
  const udhr = fixtureText("un", "udhr.html");
  const noMain = fakeContext(bytes(200, new TextEncoder().encode(udhr.replaceAll("<main", "<div").replaceAll("</main>", "</div>")), "text/html"));
  await assert.rejects(
    legalRead.search(noMain.ctx, { document: { source: "historical", work_id: "universal_declaration_of_human_rights" }, num: 3 }, null),
    (e: unknown) => e instanceof UpstreamError && e.fault === "drift" && /^United Nations answered in a shape Quarry does not read: the body has no `main` element/.test(e.message),
  );
  const stub = fakeContext(bytes(200, new TextEncoder().encode("<html><body><p>This page has moved.</p></body></html>"), "text/html"));
  await assert.rejects(
    legalRead.search(stub.ctx, { document: { source: "historical", work_id: "magna_carta_1215" }, num: 3 }, null),
    (e: unknown) => e instanceof UpstreamError && e.fault === "drift" && /holds no text of Magna Carta \(1215\), English translation/.test(e.message),
  );
});

test("probes: each provider's live check is the request legal.read sends, with its declared answer", () => {
  assert.deepEqual([locProbe.provider, locProbe.request.path, locProbe.request.response], ["loc", "/item/usrep347483/", locItem]);
  for (const [probe, provider, path] of [
    [avalonProbe, "avalon", "/medieval/magna.asp"],
    [unProbe, "un", "/en/about-us/universal-declaration-of-human-rights"],
    [gesetzeProbe, "gesetze", "/englisch_gg/englisch_gg.html"],
  ] as const) {
    assert.deepEqual([probe.provider, probe.request.path, probe.request.responseType, probe.request.response], [provider, path, "bytes", "html"]);
  }
});
