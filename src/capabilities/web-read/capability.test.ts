// web.read end to end over HTTP against the replay upstream's recorded pages (the reader in the
// replay environment): the record's keys, both formats, max_chars, every field's bounds, the
// credits, and what a single-result capability refuses.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "../../../test/helpers/capability-kit.ts";
import { webRead } from "./capability.ts";

let kit: CapabilityKit;
const ARTICLE = "https://hacks.mozilla.org/2015/03/this-api-is-so-fetching/";

before(async () => {
  kit = await startCapabilityKit("web.read");
});
after(async () => {
  await kit.close();
});

test("reads the page's main content as Markdown: one record, 5 credits", async () => {
  const used = await kit.used();
  const res = await kit.execute({ url: ARTICLE });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.charged_credits, 5);
  assert.equal((await kit.used()) - used, 5);
  assert.equal(res.body.results.length, 1);
  const [page] = res.body.results;
  assert.deepEqual(Object.keys(page).sort(), ["chars", "content", "format", "record_id", "title", "truncated", "url"]);
  assert.equal(page.title, "This API is so Fetching!");
  assert.equal(page.url, ARTICLE);
  assert.equal(page.format, "markdown");
  assert.equal(page.truncated, false);
  assert.equal(page.chars, [...page.content].length);
  assert.match(page.content, /^For more than a decade the Web has used XMLHttpRequest/);
  assert.match(page.content, /The \[Fetch API\]\(https:\/\/developer\.mozilla\.org\/en-US\/docs\/Web\/API\/Fetch_API\)/);
  assert.doesNotMatch(page.content, /<script|Mozilla Hacks – the Web developer blog/, "navigation and markup left out");
  assert.deepEqual(res.body.record_actions, []);
  assert.equal(res.body.has_more, false);
  assert.deepEqual(res.body.next.actions, []);
  assert.match(res.body.notes.join(" "), /^DEMO: read from the offline demo's recorded copy of https:\/\/hacks\.mozilla\.org/);
});

test("text format and max_chars: at most max_chars characters, chars counts the whole content", async () => {
  const full = (await kit.execute({ url: ARTICLE, format: "text" })).body.results[0];
  assert.equal(full.format, "text");
  assert.doesNotMatch(full.content, /\]\(https?:/, "no Markdown links in text");
  assert.match(full.content, /The Fetch API intends to fix most of these problems\./);
  const cut = (await kit.execute({ url: ARTICLE, format: "text", max_chars: 500 })).body.results[0];
  assert.equal([...cut.content].length, 500);
  assert.equal(cut.truncated, true);
  assert.equal(cut.chars, full.chars);
  assert.equal(cut.content, [...full.content].slice(0, 500).join(""));
  const exact = (await kit.execute({ url: ARTICLE, format: "text", max_chars: full.chars })).body.results[0];
  assert.equal(exact.truncated, false);
});

test("every field's bounds and patterns", async () => {
  await kit.expectViolation({}, "/url");
  await kit.expectViolation({ url: "" }, "/url");
  await kit.expectViolation({ url: "not a url" }, "/url");
  await kit.expectViolation({ url: ARTICLE, format: "html" }, "/format");
  await kit.expectViolation({ url: ARTICLE, max_chars: 499 }, "/max_chars");
  await kit.expectViolation({ url: ARTICLE, max_chars: 200_001 }, "/max_chars");
  await kit.expectViolation({ url: ARTICLE, max_chars: 1000.5 }, "/max_chars");
  await kit.expectViolation({ url: ARTICLE, num: 1 }, "/num");
  for (const max of [500, 200_000]) assert.equal((await kit.execute({ url: ARTICLE, max_chars: max })).status, 200, String(max));
  assert.equal((await kit.execute({ url: ARTICLE })).body.results[0].content.length <= 20_000, true, "default max_chars 20000");
});

test("single result: `more` and `update` are refused, nothing charged", async () => {
  const res = await kit.execute({ url: ARTICLE, max_chars: 500 });
  const used = await kit.used();
  const more = await kit.more(res.body.search_id);
  assert.equal(more.status, 400);
  const update = await kit.update(res.body.search_id, { max_chars: 600 });
  assert.equal(update.status, 400);
  assert.equal(await kit.used(), used);
});

test("a URL the reader refuses is 400 at /url and free", async () => {
  const used = await kit.used();
  const res = await kit.execute({ url: "ftp://example.com/file.txt" });
  assert.equal(res.status, 400);
  assert.deepEqual(res.body.error.violations, [{ path: "/url", message: "the scheme ftp is not read: only http and https URLs are" }]);
  assert.equal(await kit.used(), used);
});

test("always available with the local engine; declared with no record actions and no update", () => {
  assert.deepEqual(webRead.availability(new Set()), {});
  assert.deepEqual(Object.keys(webRead.actions), []);
  assert.equal(webRead.offersUpdate, false);
  assert.equal(webRead.paging, "single");
  assert.equal(webRead.maxCredits({ url: ARTICLE }), 5);
});
