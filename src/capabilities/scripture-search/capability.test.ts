/**
 * scripture.search's declaration: metadata as spec 4.6 says (offset paging, free, fetched free
 * `details`, update offered, two keyless variants), every field's bounds, each rule's violation and
 * pointer (at execute and as an update sees it), and the sources' paging, caching and scoped
 * queries against a fake upstream serving recorded and documented bodies.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeContext, fixture, response, violationsOf } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import { bibleApiPassage, bibleApiRefusal } from "./bibleapi.ts";
import { NOT_FOUND_LIMIT } from "./bible-source.ts";
import type { JsonObject, JsonValue } from "../types.ts";
import { scriptureSearch } from "./capability.ts";

const cap = scriptureSearch;

test("metadata follows spec 4.6: offset paging, 15 s, free, fetched free details, update offered", () => {
  assert.equal(cap.id, "scripture.search");
  assert.equal(cap.paging, "offset");
  assert.equal(cap.deadlineMs, 15_000);
  assert.equal(cap.typicalCredits, 0);
  assert.equal(cap.offersUpdate, true);
  assert.deepEqual(cap.updateOnly, []);
  assert.deepEqual(
    Object.values(cap.actions).map((a) => [a.name, a.mode, a.credits]),
    [["details", "fetched", 0]],
  );
  for (const text of ["bible", "quran"]) {
    const q = { text, reference: "1:1", num: 10 };
    assert.equal(cap.maxCredits(q), 0);
    assert.equal(cap.actions.details!.maxCredits(q), 0);
    assert.equal(cap.pageSize(q), 10);
  }
});

test("neither variant needs a key: both available with no variable set", () => {
  assert.deepEqual(cap.availability(new Set()), {});
  assert.equal(cap.missingKeyFor(new Set(), { text: "bible", reference: "John 3:16" }), undefined);
  assert.equal(cap.missingKeyFor(new Set(), { text: "quran", reference: "1:1" }), undefined);
});

test("the schema: text required (bible or quran), bounds of query, reference, translation and num, num defaults to 10", () => {
  const body: JsonObject = { text: "bible", reference: "John 3:16" };
  assert.deepEqual(violationsOf(cap, body), []);
  assert.equal(body.num, 10);
  assert.deepEqual(
    violationsOf(cap, {
      text: "quran",
      query: "x".repeat(300),
      reference: "x".repeat(60).replace(/^x+$/, "2:255"),
      num: 25,
    }),
    [],
  );
  const refused: [JsonObject, string][] = [
    [{ reference: "John 3:16" }, "/text"],
    [{ text: "torah", reference: "John 3:16" }, "/text"],
    [{ text: "bible", query: "" }, "/query"],
    [{ text: "bible", query: "x".repeat(301) }, "/query"],
    [{ text: "bible", reference: "" }, "/reference"],
    [{ text: "bible", reference: "x".repeat(61) }, "/reference"],
    [{ text: "bible", reference: "John 3:16", translation: "" }, "/translation"],
    [{ text: "bible", reference: "John 3:16", translation: "x".repeat(21) }, "/translation"],
    [{ text: "bible", reference: "John 3:16", num: 0 }, "/num"],
    [{ text: "bible", reference: "John 3:16", num: 26 }, "/num"],
    [{ text: "bible", reference: "John 3:16", num: 2.5 }, "/num"],
    [{ text: "bible", reference: "John 3:16", limit: 5 }, "/limit"],
  ];
  for (const [b, pointer] of refused) {
    const v = violationsOf(cap, b);
    assert.ok(
      v.some((x) => x.path === pointer),
      `${JSON.stringify(b)} → ${JSON.stringify(v)}`,
    );
  }
});

test("each rule refuses with a violation at its field", () => {
  const at = (b: JsonObject) => violationsOf(cap, b).map((v) => `${v.path} ${v.message}`);
  assert.deepEqual(at({ text: "bible" }), [
    " Provide `query` (a phrase to find) or `reference` (a passage), or both.",
  ]);
  assert.match(at({ text: "bible", query: " \u200b " })[0]!, /^\/query must not be blank/);
  assert.match(
    at({ text: "bible", reference: "John" })[0]!,
    /^\/reference cannot read "John" as a Bible reference/,
  );
  assert.match(at({ text: "bible", reference: "Hezekiah 1:1" })[0]!, /^\/reference unknown book "Hezekiah"/);
  assert.match(at({ text: "bible", reference: "John 22" })[0]!, /^\/reference John has 21 chapters/);
  assert.match(
    at({ text: "quran", reference: "John 3:16" })[0]!,
    /^\/reference cannot read "John 3:16" as a Quran reference/,
  );
  assert.match(
    at({ text: "quran", reference: "1:8" })[0]!,
    /^\/reference surah 1 \(Al-Fatihah\) has 7 verses/,
  );
  assert.match(
    at({ text: "bible", reference: "John 3:16", translation: "niv" })[0]!,
    /^\/translation unknown Bible translation "niv"; bible-api.com offers cherokee, cuv/,
  );
  assert.match(
    at({ text: "quran", reference: "1:1", translation: "sahih" })[0]!,
    /^\/translation a Quran translation is a quran.com numeric translation id/,
  );
  assert.match(
    at({ text: "bible", query: "love", translation: "web" })[0]!,
    /^\/translation a full-text query over the whole Bible searches the public-domain King James Version/,
  );
  // Accepted: any case of a Bible code, a KJV query, a query in another translation within a reference.
  assert.deepEqual(at({ text: "bible", reference: "John 3:16", translation: "WEB" }), []);
  assert.deepEqual(at({ text: "bible", query: "love", translation: "KJV" }), []);
  assert.deepEqual(at({ text: "bible", query: "love", reference: "John 15", translation: "web" }), []);
  assert.deepEqual(at({ text: "quran", query: "mercy", translation: "20" }), []);
});

test("in an update, a rule broken by a stored value points at the field the caller sent", () => {
  const checked = (query: JsonObject, sent: string[]) =>
    cap.checkRules(query, new Set(sent), { query: {}, filters: [] });
  // text switched to quran; the stored Bible reference no longer parses.
  const v1 = checked({ text: "quran", reference: "John 3:16", num: 10 }, ["text"]);
  assert.equal(v1[0]?.path, "/text");
  assert.match(
    v1[0]!.message,
    /^reference \(from the search\): cannot read "John 3:16" as a Quran reference/,
  );
  // text switched to quran; the stored Bible translation is no Quran id.
  const v2 = checked({ text: "quran", reference: "1:1", translation: "kjv", num: 10 }, ["text", "reference"]);
  assert.deepEqual(
    v2.map((v) => v.path),
    ["/text"],
  );
  // the reference removed; the stored query in WEB is now a whole-Bible query.
  const v3 = checked({ text: "bible", query: "love", translation: "web", num: 10 }, ["reference"]);
  assert.deepEqual(
    v3.map((v) => v.path),
    ["/reference"],
  );
  // both removed.
  const v4 = checked({ text: "bible", num: 10 }, ["reference"]);
  assert.deepEqual(
    v4.map((v) => v.path),
    ["/reference"],
  );
});

/** A fake upstream answering by path; requests are kept. */
function upstream(answers: Record<string, unknown>) {
  return fakeContext((r: UpstreamRequest) => {
    const hit = answers[r.path];
    if (hit === undefined) return response(404, { error: "no recorded response" });
    return hit;
  });
}

async function page(ctx: ReturnType<typeof upstream>["ctx"], body: JsonObject, cursor: JsonValue = null) {
  assert.deepEqual(violationsOf(cap, body), []);
  return cap.search(ctx, body, cursor);
}

test("bible: a reference is one bible-api.com request; pages slice its verses; the answer is cached for `more`", async () => {
  const verses = Array.from({ length: 7 }, (_, i) => ({
    book_id: "JHN",
    book_name: "John",
    chapter: 3,
    verse: 14 + i,
    text: `\nverse ${14 + i}\n`,
  }));
  const { ctx, requests } = upstream({
    "/john%203:14-20": {
      reference: "John 3:14-20",
      verses,
      text: "",
      translation_id: "web",
      translation_name: "World English Bible",
    },
  });
  const first = await page(ctx, { text: "bible", reference: "John 3:14-20", translation: "WEB", num: 3 });
  assert.deepEqual(requests, [
    {
      provider: "bibleapi",
      method: "GET",
      path: "/john%203:14-20",
      query: { translation: "web" },
      acceptStatus: [404],
      response: bibleApiPassage,
      refusal: bibleApiRefusal,
    },
  ]);
  assert.deepEqual(
    first.records.map((r) => r.summary.title),
    ["John 3:14", "John 3:15", "John 3:16"],
  );
  assert.equal(first.records[0]!.summary.text, "verse 14");
  assert.deepEqual(
    first.next,
    { source: "bible", cursor: { offset: 3 } },
    "the chain names the source that answered",
  );
  const second = await page(
    ctx,
    { text: "bible", reference: "John 3:14-20", translation: "WEB", num: 3 },
    first.next,
  );
  assert.deepEqual(
    second.records.map((r) => r.summary.verse),
    [17, 18, 19],
  );
  const last = await page(
    ctx,
    { text: "bible", reference: "John 3:14-20", translation: "WEB", num: 3 },
    second.next,
  );
  assert.deepEqual(
    last.records.map((r) => r.summary.verse),
    [20],
  );
  assert.equal(last.next, null);
  assert.equal(requests.length, 1, "`more` reads the cached answer");
});

test("bible: KJV query over the shipped index (no request), scoped by a reference; a query in WEB filters the passage", async () => {
  const { ctx, requests } = upstream({
    "/john%2013": {
      verses: [
        {
          book_id: "JHN",
          book_name: "John",
          chapter: 13,
          verse: 34,
          text: "“A new commandment I give to you, that you love one another. Just as I have loved you, you also love one another.",
        },
        {
          book_id: "JHN",
          book_name: "John",
          chapter: 13,
          verse: 35,
          text: "By this everyone will know that you are my disciples, if you have love for one another.”",
        },
      ],
      translation_id: "web",
    },
  });
  const kjv = await page(ctx, { text: "bible", query: "love one another", num: 5 });
  assert.equal(requests.length, 0);
  assert.deepEqual(
    kjv.records.map((r) => r.summary.title),
    ["John 13:34", "John 15:12", "John 15:17", "Romans 13:8", "1 Thessalonians 4:9"],
  );
  assert.deepEqual(kjv.next, { source: "bible", cursor: { offset: 5 } });
  assert.match(
    kjv.notes![0]!,
    /public-domain King James Version shipped with Quarry .*: 12 verses hold the phrase\.$/,
  );
  const scoped = await page(ctx, { text: "bible", query: "love one another", reference: "John 15" });
  assert.deepEqual(
    scoped.records.map((r) => r.summary.title),
    ["John 15:12", "John 15:17"],
  );
  assert.equal(scoped.next, null);
  const web = await page(ctx, {
    text: "bible",
    query: "love one another",
    reference: "John 13",
    translation: "web",
  });
  assert.equal(requests.length, 1);
  assert.deepEqual(
    web.records.map((r) => [r.summary.title, r.summary.translation]),
    [["John 13:34", "web"]],
  );
  assert.deepEqual(web.notes, ["1 verse of John 13 (web) holds the phrase."]);
});

test("quran: a verse by key, a surah page by offset, a search page by offset; a scoped query filters the surah", async () => {
  const { ctx, requests } = upstream({
    "/verses/by_key/1:1": fixture("quran", "verses_by_key_1_1_translation_131.json"),
    "/verses/by_chapter/1": fixture("quran", "verses_by_chapter_1_per_page_1_documented.json"),
    "/search": {
      search: {
        query: "x",
        total_results: 25,
        current_page: 2,
        total_pages: 3,
        results: (fixture("quran", "search_v4_mercy_documented.json") as { search: { results: JsonValue[] } })
          .search.results,
      },
    },
  });
  const verse = await page(ctx, { text: "quran", reference: "1:1" });
  assert.deepEqual(
    verse.records.map((r) => r.summary.translation),
    ["131"],
  );
  assert.equal(verse.next, null);
  const surah = await page(ctx, { text: "quran", reference: "1", num: 1 }, { offset: 2 });
  assert.deepEqual(requests.at(-1)?.query, {
    translations: "131",
    fields: "text_uthmani",
    page: 3,
    per_page: 1,
  });
  assert.deepEqual(surah.next, { offset: 3 }, "quran.com announces a next page");
  const search = await page(
    ctx,
    { text: "quran", query: "mercy", translation: "20", num: 10 },
    { offset: 10 },
  );
  assert.deepEqual(requests.at(-1)?.query, { q: "mercy", size: 10, page: 2, translations: "20" });
  assert.deepEqual(
    search.records.map((r) => r.summary.arabic !== undefined),
    [true],
  );
  assert.deepEqual(search.next, { offset: 20 });
  const before = requests.length;
  const scoped = await page(ctx, { text: "quran", query: "most merciful", reference: "1" });
  assert.deepEqual(
    requests.slice(before).map((r) => r.query),
    [{ translations: "131", fields: "text_uthmani", page: 1, per_page: 50 }],
    "surah 1 has 7 verses: one page of 50 (the documented page's next_page is not followed past the surah's length)",
  );
  assert.deepEqual(
    scoped.records.map((r) => r.summary.title),
    ["Al-Fatihah 1:1"],
  );
  assert.deepEqual(scoped.notes, ["1 verse of surah 1 holds the phrase."]);
  await page(ctx, { text: "quran", query: "merciful", reference: "1" });
  assert.equal(requests.length, before + 1, "the surah is cached");
});

test("details: a KJV record's chapter from the index (no request); a quran record's surah; a record without ids refused", async () => {
  const { ctx, requests } = upstream({
    "/verses/by_chapter/1": fixture("quran", "verses_by_chapter_1_words.json"),
  });
  const details = cap.actions.details!;
  const kjv = await details.run!(ctx, {
    summary: { title: "John 3:16" },
    ref: { source: "kjv-index", book_id: "JHN", chapter: 3, verse: 16, translation: "kjv" },
    detail: null,
    query: { text: "bible", query: "so loved", num: 10 },
  });
  assert.equal(requests.length, 0);
  assert.equal(kjv.credits, 0);
  assert.equal((kjv.detail as JsonObject).verse_count, 36);
  const quran = await details.run!(ctx, {
    summary: { title: "Al-Fatihah 1:1" },
    ref: { source: "quran", chapter: 1, verse: 1, translation: "131" },
    detail: null,
    query: { text: "quran", reference: "1:1", num: 10 },
  });
  assert.equal(requests.length, 1, "one page of 50 holds the 7 verses");
  assert.equal((quran.detail as JsonObject).verse_count, 7);
  await assert.rejects(
    details.run!(ctx, {
      summary: { title: "x" },
      ref: null,
      detail: null,
      query: { text: "bible", reference: "John 3:16", num: 10 },
    }),
    (e: { code?: string; violations?: { path: string }[] }) =>
      e.code === "invalid_request" && e.violations?.[0]?.path === "/record_id",
  );
});

test("bible: when bible-api.com fails, a KJV reference is answered from the shipped KJV (said in notes); other translations fail", async () => {
  const { ctx, requests } = fakeContext(() => {
    throw new ApiError(
      "provider_error",
      "bibleapi was not called: its turn would come after the request's deadline.",
    );
  });
  const kjv = await page(ctx, { text: "bible", reference: "John 3:16-17" });
  assert.deepEqual(
    kjv.records.map((r) => [r.summary.title, r.summary.translation]),
    [
      ["John 3:16", "kjv"],
      ["John 3:17", "kjv"],
    ],
  );
  assert.match(
    kjv.notes![0]!,
    /^Answered by the public-domain KJV shipped with Quarry because bible-api.com failed \(bibleapi was not called/,
  );
  assert.equal(requests.length, 1);
  const scoped = await page(ctx, { text: "bible", reference: "John 3", query: "so loved", num: 5 });
  assert.deepEqual(
    scoped.records.map((r) => r.summary.title),
    ["John 3:16"],
  );
  await assert.rejects(
    page(ctx, { text: "bible", reference: "John 3:16", translation: "web" }),
    (e: unknown) =>
      e instanceof ApiError &&
      e.code === "provider_error" &&
      /Every source failed\. .*holds only the KJV, not "web"/.test(e.message),
  );
  await assert.rejects(
    page(ctx, { text: "bible", reference: "John 3:99" }),
    (e: unknown) =>
      e instanceof ApiError && e.code === "invalid_request" && e.violations?.[0]?.path === "/reference",
    "a KJV verse the KJV does not have is refused before either source",
  );
  assert.equal(requests.length, 2, "bible-api.com was asked for John 3:16-17 and John 3:16 (web) only");
});

test("bible: the chain's answer is as retryable as bible-api.com's failure when the KJV cannot stand in (another translation)", async () => {
  for (const retryable of [true, false]) {
    const { ctx } = fakeContext(() => {
      throw new ApiError("provider_error", "bible-api.com failed", { retryable });
    });
    await assert.rejects(
      page(ctx, { text: "bible", reference: "John 3:16", translation: "web" }),
      (e: unknown) => e instanceof ApiError && e.code === "provider_error" && e.retryable === retryable,
    );
  }
});

test("bible: a KJV reference to a verse the KJV does not have is 400 at /reference with no request; chapters past a book's end too", async () => {
  const { ctx, requests } = fakeContext(() => {
    throw new Error("no request expected");
  });
  for (const [reference, message] of [
    ["John 3:99", /^John 3 has 36 verses in the King James Version; "John 3:99" asks for verse 99$/],
    ["John 3:35-37", /asks for verse 37$/],
    ["Jude 26", /^Jude 1 has 25 verses/],
  ] as const) {
    await assert.rejects(
      cap.search(ctx, { text: "bible", reference, num: 10 }, null),
      (e: unknown) =>
        e instanceof ApiError && e.code === "invalid_request" && e.violations?.[0]?.path === "/reference" && message.test(e.violations[0].message),
      reference,
    );
  }
  await assert.rejects(
    cap.search(ctx, { text: "bible", reference: "John 3:99", query: "love", num: 10 }, null),
    (e: unknown) => e instanceof ApiError && e.code === "invalid_request",
    "also with a query over the shipped KJV",
  );
  assert.deepEqual(violationsOf(cap, { text: "bible", reference: "John 22:1", translation: "web" }).map((v) => v.path), ["/reference"], "chapters are checked for every translation");
  assert.equal(requests.length, 0);
});

test("bible: in another translation verse numbers are not checked (versification differs); bible-api.com's 404 is a 400, and after a few Quarry stops asking", async () => {
  const { ctx, requests } = fakeContext(() => response(404, fixture("bibleapi", "not_found_documented.json")));
  // 3 John 1:15 exists in the WEB (the KJV has 14 verses): sent, not refused locally.
  await assert.rejects(
    page(ctx, { text: "bible", reference: "3 John 15", translation: "web" }),
    (e: unknown) => e instanceof ApiError && e.code === "invalid_request" && /bible-api.com has no passage "3 John 15" in translation "web"/.test(e.violations?.[0]?.message ?? ""),
  );
  assert.equal(requests[0]?.path, "/3%20john%201:15");
  for (let i = 2; i <= NOT_FOUND_LIMIT; i++) {
    await assert.rejects(page(ctx, { text: "bible", reference: `John 3:${100 + i}`, translation: "web" }), (e: ApiError) => e.code === "invalid_request");
  }
  assert.equal(requests.length, NOT_FOUND_LIMIT);
  await assert.rejects(
    page(ctx, { text: "bible", reference: "John 3:16", translation: "asv" }),
    (e: unknown) =>
      e instanceof ApiError &&
      e.code === "provider_error" &&
      /bible-api.com was not called: it answered "not found" \d+ times in the last 30 s, and it blocks an address for an hour after more than 10/.test(e.message) &&
      typeof e.retryAfter === "number" &&
      e.retryAfter > 0 &&
      e.retryAfter <= 30,
  );
  assert.equal(requests.length, NOT_FOUND_LIMIT, "not sent");
});

test("bible: a passage bible-api.com does not serve (chapters, or more than one chapter boundary): the KJV answers it locally, other translations are refused", async () => {
  const { ctx, requests } = fakeContext(() => {
    throw new Error("no request expected");
  });
  const chapters = await page(ctx, { text: "bible", reference: "Ruth 1-2", num: 25 });
  assert.equal(chapters.records[0]?.summary.title, "Ruth 1:1");
  assert.match(chapters.notes![0]!, /^Answered by the public-domain KJV shipped with Quarry: bible-api.com serves one whole chapter at a time/);
  await assert.rejects(
    page(ctx, { text: "bible", reference: "John 3:16-5:1", translation: "web" }),
    (e: unknown) =>
      e instanceof ApiError && e.code === "invalid_request" && /verse ranges across at most one chapter boundary/.test(e.violations?.[0]?.message ?? ""),
  );
  assert.equal(requests.length, 0);
});

test("quran with a Quran Foundation client: verses through the same requests (the client sends them to the Content API), a phrase through the Search API, each hit's text from the Content API, cached", async () => {
  // 2:163 is hand-made in the recorded verse's shape (no recording holds it); the rest are recorded or documented.
  const hand = { verse: { verse_key: "2:163", text_uthmani: "وَإِلَٰهُكُمْ", translations: [{ resource_id: 131, text: "Your God is One God." }] } };
  const { ctx, requests } = fakeContext(
    (r: UpstreamRequest) =>
      r.path === "/api/v1/search"
        ? fixture("quran", "search_api_v1_advanced_documented.json")
        : r.path === "/verses/by_key/1:1"
          ? fixture("quran", "verses_by_key_1_1_translation_131.json")
          : r.path === "/verses/by_key/2:163"
            ? hand
            : response(404, {}),
    { env: { QURAN_CLIENT_ID: "id", QURAN_CLIENT_SECRET: "secret" } },
  );
  const verse = await page(ctx, { text: "quran", reference: "1:1" });
  assert.deepEqual(verse.records.map((r) => r.summary.text), ["In the Name of Allah—the Most Compassionate, Most Merciful."]);
  assert.equal(requests[0]?.host, undefined, "a default-host request: the upstream client moves it to the Content API with the token");
  const refused = requests[0]?.refusal?.(undefined, 403, {});
  assert.ok(refused instanceof ApiError && /^The Quran Foundation API refused/.test(refused.message), "the Quran Foundation's refusals");
  const found = await page(ctx, { text: "quran", query: "mercy" });
  assert.deepEqual(
    requests.slice(1).map((r) => [r.host ?? "default", r.path, r.query]),
    [["search", "/api/v1/search", { mode: "advanced", query: "mercy", page: 1, size: 10, translation_ids: "131" }], ["default", "/verses/by_key/2:163", { translations: "131", fields: "text_uthmani" }]],
    "1:1 was read already (cached); 2:163 is read from the Content API",
  );
  assert.deepEqual(
    found.records.map((r) => [r.summary.title, r.summary.text, r.summary.arabic ?? null]),
    [
      ["Al-Fatihah 1:1", "In the Name of Allah—the Most Compassionate, Most Merciful.", null],
      ["Al-Baqarah 2:163", "Your God is One God.", "وَإِلَٰهُكُمْ"],
    ],
  );
  assert.deepEqual(found.next, { offset: 10 }, "the Search API announces page 2");
  await page(ctx, { text: "quran", query: "mercy" }, { offset: 10 });
  assert.deepEqual(requests.at(-1)?.query, { mode: "advanced", query: "mercy", page: 2, size: 10, translation_ids: "131" });
  assert.equal(requests.length, 4, "the second page's verses are cached too");
});

test("quran: a translation with no text at the provider is 400 at /translation, never an empty page", async () => {
  const noText = { verse: { verse_key: "2:255", text_uthmani: "ٱللَّهُ", translations: [] } };
  const { ctx } = fakeContext(() => noText);
  await assert.rejects(
    page(ctx, { text: "quran", reference: "2:255" }),
    (e: unknown) =>
      e instanceof ApiError &&
      e.code === "invalid_request" &&
      e.violations?.[0]?.path === "/translation" &&
      /^quran\.com gave no text of translation 131 \(the default, .*The Clear Quran.*\) for 2:255; send another numeric translation id, e\.g\. "20"/.test(e.violations[0].message),
  );
  await assert.rejects(page(ctx, { text: "quran", reference: "2:255", query: "Allah" }), (e: ApiError) => e.violations?.[0]?.path === "/translation");
});

test("details of a KJV record found through bible-api.com read the shipped KJV (no request)", async () => {
  const { ctx, requests } = fakeContext(() => {
    throw new Error("no request expected");
  });
  const out = await cap.actions.details!.run!(ctx, {
    summary: { title: "John 3:16" },
    ref: { source: "bibleapi", book_id: "JHN", chapter: 3, verse: 16, translation: "kjv" },
    detail: null,
    query: { text: "bible", reference: "John 3:16", num: 10 },
  });
  assert.equal((out.detail as JsonObject).verse_count, 36);
  assert.equal(requests.length, 0);
});
