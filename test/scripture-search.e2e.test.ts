/**
 * scripture.search end to end over HTTP against the replay upstream: each inspect example executes
 * (bible-api.com's recorded John 3:16 in WEB, quran.com's recorded verse and documented search, the
 * shipped KJV), offset paging with `more`, `update` (same search_id, paging reset, free), `details`
 * (the whole chapter, free, cached after the first call), each field's bounds and each rule's
 * violation at its pointer (also under /params in an update), a KJV verse the KJV does not have
 * refused before any request, bible-api.com's 404 (another translation) as a 400 at /reference,
 * bible-api.com paced to one request every 2 s, both keyless variants available, the Quran through
 * the Quran Foundation's API with a client configured (token of scope `content`, `x-auth-token` and
 * `x-client-id`), and the same over MCP (execute, follow_up `more` and `details`, a rule's violation at
 * /params/…).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";

let kit: CapabilityKit;

before(async () => {
  kit = await startCapabilityKit("scripture.search");
});
after(async () => {
  await kit.close();
});

const calls = (from: number, prefix: string) =>
  kit.h.replay.requests.slice(from).filter((r) => r.prefix === prefix);
const titles = (body: { results: { title: string }[] }) => body.results.map((r) => r.title);

describe("scripture.search", () => {
  test("the catalog and inspect: available with no key set for either variant", async () => {
    const catalog = await kit.h.call("GET", "/v1/catalog", { key: kit.key });
    const entry = catalog.body.capabilities.find((c: { id: string }) => c.id === "scripture.search");
    assert.equal(entry.available, true);
    assert.equal(entry.unavailable_reason, undefined, "neither variant needs a key, so none is missing");
    assert.equal(entry.typical_credits, 0);
    const inspect = await kit.h.call("GET", "/v1/capabilities/scripture.search", { key: kit.key });
    assert.equal(inspect.status, 200);
    assert.deepEqual(inspect.body.execute.body_schema.required, ["text"]);
    assert.deepEqual(
      inspect.body.follow_ups.map((f: { action: string }) => f.action),
      ["more", "update", "details"],
    );
  });

  test("a KJV phrase: pages of the shipped index by offset, `more` until the end, all free, no provider call", async () => {
    const from = kit.h.replay.requests.length;
    const first = await kit.execute({ text: "bible", query: "love one another", num: 5 });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(titles(first.body), [
      "John 13:34",
      "John 15:12",
      "John 15:17",
      "Romans 13:8",
      "1 Thessalonians 4:9",
    ]);
    assert.equal(first.body.has_more, true);
    assert.equal(first.body.charged_credits, 0);
    assert.deepEqual(first.body.results[0], {
      record_id: first.body.results[0].record_id,
      title: "John 13:34",
      url: "https://bible-api.com/john%2013:34?translation=kjv",
      text: "A new commandment I give unto you, That ye love one another; as I have loved you, that ye also love one another.",
      book: "John",
      chapter: 13,
      verse: 34,
      translation: "kjv",
    });
    assert.match(first.body.notes[0], /12 verses hold the phrase/);
    const second = await kit.more(first.body.search_id);
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.deepEqual(titles(second.body), [
      "1 Peter 1:22",
      "1 John 3:11",
      "1 John 3:23",
      "1 John 4:7",
      "1 John 4:11",
    ]);
    assert.equal(second.body.has_more, true);
    const third = await kit.more(first.body.search_id);
    assert.deepEqual(titles(third.body), ["1 John 4:12", "2 John 1:5"]);
    assert.equal(third.body.has_more, false);
    assert.equal(third.body.charged_credits, 0);
    assert.equal(kit.h.replay.requests.length, from, "the KJV is searched locally");
  });

  test("update: merged into the stored query, same search_id, paging reset, free; its violations under /params", async () => {
    const ex = await kit.execute({ text: "bible", query: "love one another", num: 5 });
    await kit.more(ex.body.search_id);
    const updated = await kit.update(ex.body.search_id, { reference: "John 15" });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(updated.body.search_id, ex.body.search_id);
    assert.deepEqual(titles(updated.body), ["John 15:12", "John 15:17"]);
    assert.equal(updated.body.has_more, false);
    assert.equal(updated.body.charged_credits, 0);
    assert.match(updated.body.notes[0], /2 verses hold the phrase within John 15/);

    await kit.expectUpdateViolation(
      ex.body.search_id,
      { text: "quran" },
      "/params/text",
      /^reference \(from the search\): cannot read "John 15" as a Quran reference/,
    );
    await kit.expectUpdateViolation(
      ex.body.search_id,
      { translation: "niv" },
      "/params/translation",
      /unknown Bible translation "niv"/,
    );
    await kit.expectUpdateViolation(
      ex.body.search_id,
      { reference: null, translation: "web" },
      "/params/translation",
      /searches the public-domain King James Version/,
    );
    await kit.expectUpdateViolation(
      ex.body.search_id,
      { query: null, reference: null },
      "/params/query",
      /Provide `query` .* or `reference`/,
    );
    await kit.expectUpdateViolation(
      ex.body.search_id,
      { reference: "Hezekiah 2" },
      "/params/reference",
      /unknown book "Hezekiah"/,
    );
    await kit.expectUpdateViolation(ex.body.search_id, { num: 26 }, "/params/num");
  });

  test("details: the whole chapter from the shipped KJV, fetched free on the first call, then cached (cached: true, 0 credits)", async () => {
    const ex = await kit.execute({ text: "bible", query: "God so loved the world" });
    assert.deepEqual(titles(ex.body), ["John 3:16"]);
    const from = kit.h.replay.requests.length;
    const used = await kit.used();
    const first = await kit.action(ex.body.results[0].record_id, "details");
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.cached, false);
    assert.equal(first.body.charged_credits, 0);
    assert.equal(first.body.detail.reference, "John 3");
    assert.equal(first.body.detail.verse_count, 36);
    assert.equal(first.body.detail.verses[15].verse, 16);
    assert.match(first.body.detail.verses[15].text, /^For God so loved the world/);
    assert.deepEqual(first.body.links, [
      { label: "John 3 on bible-api.com", url: "https://bible-api.com/john%203?translation=kjv" },
    ]);
    const again = await kit.action(ex.body.results[0].record_id, "details");
    assert.equal(again.body.cached, true);
    assert.equal(again.body.charged_credits, 0);
    assert.deepEqual(again.body.detail, first.body.detail);
    assert.equal(kit.h.replay.requests.length, from);
    assert.equal(await kit.used(), used);
  });

  test("bible-api.com: John 3:16 in WEB (recorded), translation sent; its details (no chapter recorded) are a 502, not cached", async () => {
    const from = kit.h.replay.requests.length;
    const ex = await kit.execute({ text: "bible", reference: "jn 3:16", translation: "WEB" });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    assert.deepEqual(
      ex.body.results.map((r: object) => ({ ...r, record_id: "" })),
      [
        {
          record_id: "",
          title: "John 3:16",
          url: "https://bible-api.com/john%203:16?translation=web",
          text: "For God so loved the world, that he gave his one and only Son, that whoever believes in him should not perish, but have eternal life.",
          book: "John",
          chapter: 3,
          verse: 16,
          translation: "web",
        },
      ],
    );
    assert.equal(ex.body.has_more, false);
    const sent = calls(from, "bibleapi");
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.path, "/bibleapi/john%203:16");
    assert.deepEqual(sent[0]!.query, { translation: "web" });
    assert.equal(sent[0]!.matched, "bibleapi/john_3_16_web");

    for (let attempt = 1; attempt <= 2; attempt++) {
      const details = await kit.action(ex.body.results[0].record_id, "details");
      assert.equal(details.status, 502, JSON.stringify(details.body));
      assert.equal(details.body.error.code, "provider_error");
      assert.equal(details.body.error.retryable, false, "the replay has no chapter: a 404, a refusal");
      const chapterCalls = calls(from, "bibleapi").filter((r) => r.path === "/bibleapi/data/web/JHN/3");
      assert.equal(chapterCalls.length, attempt, "a failure is not cached: the next call asks again");
    }
  });

  test("a KJV verse the KJV does not have is 400 at /reference before any request; in another translation bible-api.com's documented 404 is; charged nothing; pacing holds 2 s", async () => {
    const from = kit.h.replay.requests.length;
    const used = await kit.used();
    await kit.expectViolation(
      { text: "bible", reference: "John 3:99" },
      "/reference",
      /^John 3 has 36 verses in the King James Version; "John 3:99" asks for verse 99$/,
    );
    assert.equal(calls(from, "bibleapi").length, 0, "never reaches bible-api.com (it blocks an address after 10 not-found answers in 30 s)");
    await kit.expectViolation(
      { text: "bible", reference: "John 3:99", translation: "web" },
      "/reference",
      /bible-api.com has no passage "John 3:99" in translation "web" \(it answered: not found\)/,
    );
    const sent = calls(from, "bibleapi");
    assert.equal(sent.at(-1)?.matched, "bibleapi/not_found_john_3_99_web");
    assert.deepEqual(sent.at(-1)?.query, { translation: "web" });
    assert.equal(await kit.used(), used);
    // bible-api.com is paced to one request every 2 s. The pacer's own start times are tested
    // exactly in src/upstream/client-pacing.test.ts; here, that this deployment paces it so. (Arrival
    // times at the replay are not start times: on a loaded host they come closer than 2 s apart.)
    assert.deepEqual(kit.h.upstream.pacingState("bibleapi")?.intervalMs, 2000);
  });

  test("quran: verse 1:1 in translation 131 (recorded, no Arabic in the body), its surah as details, free and cached", async () => {
    const ex = await kit.execute({ text: "quran", reference: "1:1" });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    const record = ex.body.results[0];
    assert.deepEqual(
      { ...record, record_id: "" },
      {
        record_id: "",
        title: "Al-Fatihah 1:1",
        url: "https://quran.com/1/1",
        text: "In the Name of Allah—the Most Compassionate, Most Merciful.",
        book: "Al-Fatihah",
        chapter: 1,
        verse: 1,
        translation: "131",
      },
    );
    assert.equal("arabic" in record, false, "the recording has no text_uthmani: `arabic` is left out");
    const details = await kit.action(record.record_id, "details");
    assert.equal(details.status, 200, JSON.stringify(details.body));
    assert.equal(details.body.cached, false);
    assert.equal(details.body.charged_credits, 0);
    assert.equal(details.body.detail.book, "Al-Fatihah");
    assert.equal(details.body.detail.verse_count, 7);
    assert.ok(
      details.body.detail.verses.every(
        (v: { arabic?: string; text?: string }) => typeof v.arabic === "string" && v.text === undefined,
      ), "details.body.detail.verses.every( (v: { arabic?: string; text?: string }) => typeof v.a...",
    );
    assert.equal(
      details.body.detail.note,
      "quran.com gave no text of translation 131 for any of the surah's 7 verses: they carry only the Arabic.",
      "the recording holds no translation: said, not silent",
    );
    const again = await kit.action(record.record_id, "details");
    assert.equal(again.body.cached, true);
    assert.equal(again.body.charged_credits, 0);
  });

  test("quran: a phrase through quran.com's search (documented answer) carries `arabic`; an update re-runs it", async () => {
    const from = kit.h.replay.requests.length;
    const ex = await kit.execute({ text: "quran", query: "mercy" });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    assert.equal(ex.body.results[0].translation, "20", "the translation the documented hit came from");
    assert.equal(typeof ex.body.results[0].arabic, "string");
    const sent = calls(from, "quran");
    assert.deepEqual(sent[0]?.query, { q: "mercy", size: "10", page: "1", translations: "131" });
    assert.equal(sent[0]?.matched, "quran/search_v4_mercy_documented");
    const updated = await kit.update(ex.body.search_id, { query: null, reference: "1:1" });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.deepEqual(titles(updated.body), ["Al-Fatihah 1:1"]);
    assert.equal(updated.body.results[0].translation, "131");
  });

  test("execute refuses each bound and each rule with a violation at its pointer, before any request", async () => {
    const from = kit.h.replay.requests.length;
    await kit.expectViolation({ reference: "John 3:16" }, "/text");
    await kit.expectViolation({ text: "torah", reference: "John 3:16" }, "/text");
    await kit.expectViolation({ text: "bible" }, "", /Provide `query` .* or `reference`/);
    await kit.expectViolation({ text: "bible", query: "" }, "/query");
    await kit.expectViolation({ text: "bible", query: "x".repeat(301) }, "/query");
    await kit.expectViolation({ text: "bible", query: "   " }, "/query", /must not be blank/);
    await kit.expectViolation({ text: "bible", reference: "x".repeat(61) }, "/reference");
    await kit.expectViolation(
      { text: "bible", reference: "John 3:16", translation: "x".repeat(21) },
      "/translation",
    );
    await kit.expectViolation({ text: "bible", reference: "John 3:16", num: 0 }, "/num");
    await kit.expectViolation({ text: "bible", reference: "John 3:16", num: 26 }, "/num");
    await kit.expectViolation(
      { text: "bible", reference: "John" },
      "/reference",
      /cannot read "John" as a Bible reference/,
    );
    await kit.expectViolation(
      { text: "bible", reference: "Hezekiah 3:1" },
      "/reference",
      /unknown book "Hezekiah"/,
    );
    await kit.expectViolation(
      { text: "bible", reference: "Psalm 151" },
      "/reference",
      /Psalms has 150 chapters/,
    );
    await kit.expectViolation(
      { text: "bible", reference: "John 3:16", translation: "niv" },
      "/translation",
      /unknown Bible translation "niv"/,
    );
    await kit.expectViolation(
      { text: "bible", query: "love", translation: "web" },
      "/translation",
      /King James Version shipped with Quarry/,
    );
    await kit.expectViolation({ text: "quran", reference: "115" }, "/reference", /no surah 115/);
    await kit.expectViolation({ text: "quran", reference: "2:287" }, "/reference", /has 286 verses/);
    await kit.expectViolation(
      { text: "quran", reference: "1:1", translation: "clear-quran" },
      "/translation",
      /numeric translation id/,
    );
    assert.equal(kit.h.replay.requests.length, from, "refused before any provider request");
  });

  test("quran with a Quran Foundation client: a token of scope content from its token endpoint, then the Content API with x-auth-token and x-client-id", async () => {
    const qf = await startCapabilityKit("scripture.search", { env: { QURAN_CLIENT_ID: "quarry-test-client", QURAN_CLIENT_SECRET: "s3cret" } });
    try {
      const ex = await qf.execute({ text: "quran", reference: "1:1" });
      assert.equal(ex.status, 200, JSON.stringify(ex.body));
      assert.deepEqual(ex.body.results.map((r: { title: string; translation: string }) => [r.title, r.translation]), [["Al-Fatihah 1:1", "131"]]);
      const sent = qf.h.replay.requests.filter((r) => r.prefix.startsWith("quran"));
      assert.deepEqual(
        sent.map((r) => [r.method, r.path, r.matched]),
        [
          ["POST", "/quran-oauth2/oauth2/token", "quran/oauth2_token_client_credentials_documented"],
          ["GET", "/quran-content/verses/by_key/1:1", "quran/verses_by_key_1_1_v4"],
        ],
      );
      assert.equal(sent[0]!.body, "grant_type=client_credentials&scope=content");
      assert.equal(sent[0]!.headers.authorization, `Basic ${Buffer.from("quarry-test-client:s3cret").toString("base64")}`);
      assert.equal(sent[1]!.headers["x-auth-token"], "YOUR_ACCESS_TOKEN", "the documented token");
      assert.equal(sent[1]!.headers["x-client-id"], "quarry-test-client");
      assert.equal(sent[1]!.headers.authorization, undefined);
    } finally {
      await qf.close();
    }
  });

  test("over MCP: execute, follow_up more and details, and a rule's violation under /params", async () => {
    const client = new Client({ name: "scripture-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${kit.h.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${kit.key}` } },
      }),
    );
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
        const block = res.content[0]!;
        return {
          isError: res.isError === true,
          value: JSON.parse(block.type === "text" ? block.text : "null"),
        };
      };
      const ex = await call("execute", {
        capability: "scripture.search",
        params: { text: "bible", query: "love one another", num: 5 },
      });
      assert.equal(ex.isError, false, JSON.stringify(ex.value));
      assert.deepEqual(titles(ex.value), [
        "John 13:34",
        "John 15:12",
        "John 15:17",
        "Romans 13:8",
        "1 Thessalonians 4:9",
      ]);
      const more = await call("follow_up", { search_id: ex.value.search_id, action: "more" });
      assert.equal(more.isError, false, JSON.stringify(more.value));
      assert.equal(more.value.results[0].title, "1 Peter 1:22");
      const details = await call("follow_up", {
        record_id: ex.value.results[0].record_id,
        action: "details",
      });
      assert.equal(details.isError, false, JSON.stringify(details.value));
      assert.equal(details.value.detail.reference, "John 13");
      assert.equal(details.value.charged_credits, 0);
      const refused = await call("execute", {
        capability: "scripture.search",
        params: { text: "quran", reference: "1:8" },
      });
      assert.equal(refused.isError, true);
      assert.equal(refused.value.error.code, "invalid_request");
      assert.equal(refused.value.error.violations[0].path, "/params/reference");
      assert.match(refused.value.error.violations[0].message, /has 7 verses/);
    } finally {
      await client.close();
    }
  });
});
