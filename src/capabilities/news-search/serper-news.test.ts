// news.search's mapper over the recorded Serper news answer.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture as recorded } from "../../../test/helpers/capability-kit.ts";
import { checkShape } from "../../upstream/response-check.ts";
import { type SerperNewsAnswer, serperNewsAnswer } from "../shared/serper.ts";
import { listedNewsCredits, toNewsPage } from "./serper-news.ts";

const fixture = (folder: string, file: string): SerperNewsAnswer => checkShape("serper", serperNewsAnswer, recorded(folder, file));

const AT = "2026-11-26T10:00:00.000Z";

test("the recorded news answer: metadata records, stored details, the credits Serper reports", () => {
  const page = toNewsPage(fixture("serper", "news_apple_inc.json"), 1, 10, AT);
  assert.equal(page.records.length, 10);
  assert.equal(page.units, 1);
  assert.deepEqual(page.next, { page: 2 }, "a full page of 10");
  const first = page.records[0]!;
  assert.deepEqual(first.summary, {
    title: "Apple Plots Expansion Into AI Robots, Home Security and Smart Displays",
    url: "https://finance.yahoo.com/news/apple-plots-expansion-ai-robots-182112041.html",
    snippet: "(Bloomberg) -- Apple Inc. is plotting its artificial intelligence comeback with an ambitious slate of new devices, including robots,...",
    publisher: "Yahoo Finance",
    published_label: "6 hours ago",
    source: "Google News (via Serper)",
    fetched_at: AT,
    content_scope: "indexed_metadata",
  });
  assert.equal("image_url" in first.summary, false, "no imageUrl in this recording: left out");
  assert.equal(first.detail?.position, 1);
  assert.match(String(first.detail?.note), /publisher's page is not included and must be read separately/);
  assert.deepEqual(first.links, [{ label: "Original article", url: first.summary.url! }]);
});

test("credits: as reported; the listed price when an answer does not say (1 up to 10 results, 2 above)", () => {
  assert.equal(toNewsPage({ news: [], credits: 2 }, 1, 20, AT).units, 2);
  assert.equal(toNewsPage({ news: [] }, 1, 10, AT).units, 1);
  assert.equal(toNewsPage({ news: [] }, 1, 11, AT).units, 2);
  assert.deepEqual([listedNewsCredits(1), listedNewsCredits(10), listedNewsCredits(20)], [1, 1, 2]);
  assert.equal(toNewsPage({ news: [{ title: "t", link: "https://x.example/a", imageUrl: "https://x.example/i.jpg" }] }, 1, 10, AT).records[0]!.summary.image_url, "https://x.example/i.jpg");
});
