// Fitting MCP tool results to the host's limit: untouched under it; over it, the longest text fields
// cut to one common length at a word boundary, each marked, with a note where the answer keeps notes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { cutText, fitResult } from "./fit.ts";

const words = (n: number, word = "lorem") => Array.from({ length: n }, () => word).join(" ");

test("a result within the limit is returned as it is (the same object)", () => {
  const value = { results: [{ record_id: "rec_x", title: "t", content: words(100) }], notes: [] };
  assert.equal(fitResult(value, 10_000), value);
});

test("an execute answer over the limit: the longest fields are cut first, marked, and the answer's notes say so", () => {
  const long = words(4000); // 23,999 chars
  const mid = words(1200); // 7,199 chars
  const short = words(100); // kept whole
  const value = {
    search_id: "srch_x",
    results: [
      { record_id: "rec_a", title: "A", url: `https://example.com/${"x".repeat(600)}`, content: long },
      { record_id: "rec_b", title: "B", snippet: short, content: mid },
    ],
    notes: ["from the source"],
  };
  const fitted = fitResult(value, 20_000);
  const size = JSON.stringify(fitted).length;
  assert.ok(size <= 20_000, `fits: ${size}`);
  assert.ok(size > 19_000, `no more is cut than needed: ${size}`);
  const [a, b] = fitted.results;
  assert.match(a!.content, /^lorem( lorem)* … \[cut by Quarry: the first [\d,]+ of 23,999 characters\]$/);
  assert.equal(b!.content, mid, "the shorter field fits whole once the longest is cut");
  assert.equal(b!.snippet, short);
  assert.equal(a!.url, value.results[0]!.url, "URLs are never cut");
  assert.equal(fitted.notes[0], "from the source");
  assert.match(fitted.notes[1]!, /^This MCP result was cut to fit this deployment's limit of 20,000 characters \(MCP_MAX_RESULT_CHARS\): results\[0\]\.content \(23,999 characters\) ends with a "\[cut by Quarry …\]" mark\. For the rest: follow_up `details`/);
  assert.equal(value.results[0]!.content, long, "the caller's value is not changed");
});

test("several long fields are cut to one common length", () => {
  const value = { results: [1, 2, 3].map((i) => ({ record_id: `rec_${i}`, title: "t", content: words(2000 + i * 10) })) };
  const fitted = fitResult(value, 15_000) as typeof value & { notes: string[] };
  const kept = fitted.results.map((r) => Number(/the first ([\d,]+) of/.exec(r.content)![1]!.replace(/,/g, "")));
  assert.ok(Math.max(...kept) - Math.min(...kept) <= 10, `a common length: ${kept}`);
  assert.match(fitted.notes[0]!, /results\[0\]\.content .*, results\[1\]\.content .*, results\[2\]\.content .* end with/);
});

test("a record action's detail: the note goes into detail.notes; REST is named for the rest", () => {
  const value = { record_id: "rec_a", action: "details", detail: { text: words(5000), title: "x" }, links: [], charged_credits: 0 };
  const fitted = fitResult(value, 12_000) as typeof value & { detail: { notes: string[] } };
  assert.ok(JSON.stringify(fitted).length <= 12_000, "JSON.stringify(fitted).length <= 12_000");
  assert.match(fitted.detail.notes[0]!, /detail\.text .* For the rest: the same record action over REST/);
  assert.equal("notes" in fitted, false);
});

test("cutText: at a word boundary, never inside a surrogate pair, with the mark", () => {
  assert.equal(cutText("alpha beta gamma delta", 12), "alpha beta … [cut by Quarry: the first 10 of 22 characters]");
  const emoji = "😀".repeat(300);
  const cut = cutText(emoji, 101);
  assert.ok(!/[\ud800-\udbff] …/.test(cut), "no lone high surrogate before the mark");
});

test("a result with nothing long enough to cut is returned as it is", () => {
  const value = { results: Array.from({ length: 300 }, (_, i) => ({ record_id: `rec_${i}`, title: words(10) })) };
  assert.equal(fitResult(value, 10_000), value);
});
