// web.search's mapper over recorded Serper answers (and Serper's documented answer-box shape), each
// checked against the declared answer first, as the upstream client does.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture as recorded } from "../../../test/helpers/capability-kit.ts";
import { checkShape } from "../../upstream/response-check.ts";
import { type SerperSearchAnswer, serperSearchAnswer } from "../shared/serper.ts";
import { answerBoxRecord, toSearchPage } from "./serper-search.ts";

const fixture = (folder: string, file: string): SerperSearchAnswer => checkShape("serper", serperSearchAnswer, recorded(folder, file));

test("the recorded apple inc answer: knowledge graph first, then eight organic results in rank order", () => {
  const page = toSearchPage(fixture("serper", "search_apple_inc.json"), 1, 10);
  assert.equal(page.records.length, 9);
  const [kg, first, second, third] = page.records.map((r) => r.summary);
  assert.deepEqual(
    { kind: kg!.kind, title: kg!.title, url: kg!.url, type: kg!.type, website: kg!.website, descriptionSource: kg!.descriptionSource },
    { kind: "knowledge_graph", title: "Apple", url: "http://www.apple.com/", type: "Technology company", website: "http://www.apple.com/", descriptionSource: "Wikipedia" },
  );
  assert.equal((kg!.attributes as Record<string, string>).Headquarters, "Cupertino, CA");
  assert.match(String(kg!.snippet), /^Apple Inc\. is an American multinational/);
  assert.deepEqual(first, {
    title: "Apple",
    url: "https://www.apple.com/",
    snippet: "Discover the innovative world of Apple and shop everything iPhone, iPad, Apple Watch, Mac, and Apple TV, plus explore accessories, entertainment, ...",
    position: 1,
    kind: "organic",
  });
  assert.equal(second!.url, "https://en.wikipedia.org/wiki/Apple_Inc.");
  assert.equal(third!.position, 3);
  assert.ok(third!.date !== undefined, "the third organic result carries Google's date");
  assert.equal(page.records.filter((r) => r.summary.kind === "organic").every((r) => !("sitelinks" in r.summary) && !("attributes" in r.summary)), true);
  // `read` needs the record's URL: kept as the record's private ref.
  assert.deepEqual(page.records[1]!.ref, { url: "https://www.apple.com/" });
  assert.deepEqual(page.next, { page: 2 }, "8 organic results of 10: more may follow");
});

test("the recorded page 5 (modern shape): ten organic results, dates where Google shows them, a next page", () => {
  const page = toSearchPage(fixture("serper", "search_tamil_nadu_page5.json"), 5, 10);
  assert.equal(page.records.length, 10);
  assert.equal(page.records[0]!.summary.date, "May 10, 2026");
  assert.equal(page.records[1]!.summary.date, undefined);
  assert.deepEqual(page.next, { page: 6 });
  assert.equal(toSearchPage(fixture("serper", "search_tamil_nadu_page5.json"), 5, 4).records.length, 4, "never more than num");
});

// Serper's documented answer-box shape (serper.dev playground): title, answer or snippet, a link when the box has a source.
test("answer boxes: with a link they can be read; without one they have no url; Serper's extra keys stay", () => {
  const linked = answerBoxRecord({ title: "Speed of light", answer: "299,792,458 m/s", snippet: "The speed of light in vacuum…", snippetHighlighted: ["299,792,458 m/s"], link: "https://en.wikipedia.org/wiki/Speed_of_light" });
  assert.deepEqual(linked!.summary, {
    title: "Speed of light",
    url: "https://en.wikipedia.org/wiki/Speed_of_light",
    snippet: "The speed of light in vacuum…",
    kind: "answer_box",
    answer: "299,792,458 m/s",
    snippetHighlighted: ["299,792,458 m/s"],
  });
  assert.deepEqual(linked!.ref, { url: "https://en.wikipedia.org/wiki/Speed_of_light" });
  const bare = answerBoxRecord({ answer: "42" });
  assert.deepEqual(bare!.summary, { title: "42", snippet: "42", kind: "answer_box", answer: "42" });
  assert.equal(bare!.ref, undefined);
  const page = toSearchPage({ answerBox: { answer: "42" }, organic: [] }, 1, 10);
  assert.equal(page.records[0]!.summary.kind, "answer_box");
});

test("num counts organic results; the answer box and knowledge graph come on the first page only", () => {
  const organic = Array.from({ length: 3 }, (_, i) => ({ title: `R${i + 1}`, link: `https://example.com/${i + 1}`, position: i + 1 }));
  const body = { answerBox: { answer: "42" }, knowledgeGraph: { title: "Forty-two", type: "Number" }, organic };
  const first = toSearchPage(body, 1, 2);
  assert.deepEqual(
    first.records.map((r) => [r.summary.kind, r.summary.title]),
    [
      ["answer_box", "42"],
      ["knowledge_graph", "Forty-two"],
      ["organic", "R1"],
      ["organic", "R2"],
    ],
  );
  // A later page's box and knowledge graph would repeat the first page's records.
  const later = toSearchPage(body, 2, 2);
  assert.deepEqual(
    later.records.map((r) => r.summary.kind),
    ["organic", "organic"],
  );
});
