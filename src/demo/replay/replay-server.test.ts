/**
 * Tests for the replay upstream: recorded bodies served byte-for-byte, the matching rules, every
 * injectable fault as a client observes it, the request log, close() with hung requests, and the
 * replay environment.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { request } from "undici";
import { PROVIDERS } from "../../providers.ts";
import { DEFAULT_FIXTURES_DIR, loadFixtureIndex, prefixForFolder } from "./fixture-index.ts";
import { replayEnvironment } from "./replay-env.ts";
import { parseUnheldHeader } from "./replay-headers.ts";
import { REQUEST_LOG_LIMIT, type ReplayServer, startReplay } from "./replay-server.ts";

function fixture(folder: string, file: string): Buffer {
  return readFileSync(join(DEFAULT_FIXTURES_DIR, folder, file));
}

async function start(t: TestContext, options: Parameters<typeof startReplay>[0] = {}): Promise<ReplayServer> {
  const replay = await startReplay(options);
  t.after(() => replay.close());
  return replay;
}

async function get(
  replay: ReplayServer,
  path: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const res = await request(`${replay.url}${path}`);
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body };
}

/** A throwaway fixtures directory, for rules the committed recordings do not exercise. */
function tempFixtures(
  t: TestContext,
  folders: Record<string, { index: unknown[]; files: Record<string, string> }>,
) {
  const dir = mkdtempSync(join(tmpdir(), "quarry-replay-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [folder, { index, files }] of Object.entries(folders)) {
    mkdirSync(join(dir, folder));
    writeFileSync(join(dir, folder, "index.json"), JSON.stringify(index));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, folder, name), text);
  }
  return dir;
}

test("serves the recorded Deezer search body byte-identical to the file", async (t) => {
  const replay = await start(t);
  const res = await get(replay, "/deezer/search?q=Soliloquy");
  assert.equal(res.status, 200);
  assert.equal(res.headers["content-type"], "application/json; charset=utf-8");
  assert.equal(res.headers["x-replay-case"], "deezer/search_simple");
  assert.ok(res.body.equals(fixture("deezer", "search_simple.json")), "res.body.equals(fixture(\"deezer\", \"search_simple.json\"))");
});

test("query matching is by subset: extra params ignored, most matched params wins", async (t) => {
  const replay = await start(t);
  // Extra params the recording did not have do not prevent a match.
  const extra = await get(replay, "/deezer/search?q=Soliloquy&output=json&strict=on");
  assert.equal(extra.headers["x-replay-case"], "deezer/search_simple");
  // ... but they are named, for the demo to say its answer's recording was made without them.
  assert.equal(extra.headers["x-replay-unheld"], "output%3Djson&strict%3Don");
  assert.deepEqual(replay.requests.at(-1)?.unheld, ["output=json", "strict=on"]);
  // A body holding a lone surrogate (valid JSON text) is named too, never a crash.
  const odd = await request(`${replay.url}/serper/search`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: '{"q":"apple inc","page":1,"tbs":"\\ud800 x"}',
  });
  await odd.body.dump();
  assert.equal(odd.statusCode, 200);
  assert.equal(odd.headers["x-replay-unheld"], "tbs%3D%EF%BF%BD%20x");
  // `limit=2&q=Billy Jean` is recorded; without `limit` nothing at /search requires only that q.
  const both = await get(replay, "/deezer/search?q=Billy%20Jean&limit=2");
  assert.equal(both.headers["x-replay-case"], "deezer/search_limit2");
  assert.ok(both.body.equals(fixture("deezer", "search_limit2.json")), "both.body.equals(fixture(\"deezer\", \"search_limit2.json\"))");
  const partial = await get(replay, "/deezer/search?q=Billy+Jean");
  assert.equal(partial.status, 404);
});

test("a windowed recording answers the pages inside the items it holds, and 404 past them", async (t) => {
  const partial = '{"data":[{"n":0},{"n":1},{"n":2},{"n":3}],"total":10,"next":"as recorded"}';
  const whole = '{"items":[{"n":5},{"n":6},{"n":7}],"count":8}';
  const dir = tempFixtures(t, {
    paged: {
      index: [
        {
          case: "partial",
          method: "GET",
          url_path: "/search",
          query: { q: "a" },
          status: 200,
          window: { offset: "index", limit: "limit", items: "data", total: "total" },
        },
        {
          // Recorded at offset 5 and reaching the total: pages past its end are held (short or empty).
          case: "whole",
          method: "GET",
          url_path: "/list",
          query: { q: "b", offset: "5" },
          match_query: { q: "b" },
          status: 200,
          window: { offset: "offset", limit: "limit", items: "items", total: "count" },
        },
      ],
      files: { "partial.json": partial, "whole.json": whole },
    },
  });
  const replay = await start(t, { fixturesDir: dir });
  const json = async (path: string) => {
    const res = await get(replay, path);
    return { status: res.status, case: res.headers["x-replay-case"], body: JSON.parse(res.body.toString()) };
  };
  // The recorded page itself (no paging params, or exactly the recorded window): the file's bytes.
  assert.ok((await get(replay, "/paged/search?q=a")).body.equals(Buffer.from(partial)), "(await get(replay, \"/paged/search?q=a\")).body.equals(Buffer.from(partial))");
  assert.ok((await get(replay, "/paged/search?q=a&index=0&limit=4")).body.equals(Buffer.from(partial)), "(await get(replay, \"/paged/search?q=a&index=0&limit=4\")).body.equals(Buffer.from(partial))");
  // A page inside: those items, every other field as recorded, content-length of the page.
  const inside = await get(replay, "/paged/search?q=a&index=1&limit=2");
  assert.equal(inside.status, 200);
  assert.equal(inside.headers["x-replay-case"], "paged/partial");
  assert.equal(Number(inside.headers["content-length"]), inside.body.length);
  assert.deepEqual(JSON.parse(inside.body.toString()), {
    data: [{ n: 1 }, { n: 2 }],
    total: 10,
    next: "as recorded",
  });
  assert.deepEqual((await json("/paged/search?q=a&index=0&limit=2")).body.data, [{ n: 0 }, { n: 1 }]);
  // Past the recorded items while the provider has more: not held.
  const beyond = await json("/paged/search?q=a&index=3&limit=2");
  assert.equal(beyond.status, 404);
  assert.equal(beyond.body.error, "no recorded response for this page");
  assert.equal(beyond.body.items_held, "0-3");
  assert.equal((await json("/paged/search?q=a&index=4&limit=2")).status, 404);
  // Not a count: not held either.
  assert.equal((await json("/paged/search?q=a&index=x&limit=2")).status, 404);
  assert.equal((await json("/paged/search?q=a&index=-1&limit=2")).status, 404);
  // Recorded offset 5, reaching the total of 8.
  assert.deepEqual((await json("/paged/list?q=b&offset=6&limit=1")).body, { items: [{ n: 6 }], count: 8 });
  assert.deepEqual((await json("/paged/list?q=b&offset=7&limit=5")).body.items, [{ n: 7 }]);
  assert.deepEqual((await json("/paged/list?q=b&offset=9&limit=5")).body.items, []);
  assert.equal((await json("/paged/list?q=b&offset=4&limit=2")).status, 404, "before the recorded offset");
  // The request log says no recording served a page that was not held.
  assert.equal(replay.requests.at(-1)?.matched, null);
  assert.equal(replay.requests.at(-2)?.matched, "paged/whole");
});

test("a window over a body without its list is refused when the index loads", (t) => {
  const dir = tempFixtures(t, {
    paged: {
      index: [
        {
          case: "bad",
          method: "GET",
          url_path: "/search",
          status: 200,
          window: { offset: "index", limit: "limit", items: "data" },
        },
      ],
      files: { "bad.json": '{"results":[]}' },
    },
  });
  assert.throws(() => loadFixtureIndex(dir), /window\.items: the body has no list at "data"/);
});

test("a recording's own headers are served (a redirect's status and Location); the replay's headers win", async (t) => {
  const dir = tempFixtures(t, {
    moved: {
      index: [
        {
          case: "see_other",
          method: "GET",
          url_path: "/resource/a",
          status: 303,
          content_type: "text/plain",
          headers: { location: "http://example.org/resource/b", "x-replay-case": "not this", "content-length": "99" },
          file: "empty.txt",
        },
      ],
      files: { "empty.txt": "" },
    },
  });
  const replay = await start(t, { fixturesDir: dir });
  const res = await get(replay, "/moved/resource/a");
  assert.equal(res.status, 303);
  assert.equal(res.headers.location, "http://example.org/resource/b");
  assert.equal(res.headers["x-replay-case"], "moved/see_other");
  assert.equal(res.headers["content-length"], "0");
  assert.throws(
    () => loadFixtureIndex(tempFixtures(t, { bad: { index: [{ case: "x", method: "GET", url_path: "/", status: 200, headers: { location: ["a"] }, file: "x.txt" }], files: { "x.txt": "" } } })),
    /headers\.location must be a string/,
  );
});

test("match_query, match_path_regex, templates, specificity and first-wins ties", async (t) => {
  const dir = tempFixtures(t, {
    demo: {
      index: [
        {
          case: "loose",
          method: "GET",
          url_path: "/find",
          query: { q: "a", noise: "1" },
          match_query: { q: "a" },
          status: 200,
        },
        { case: "tight", method: "GET", url_path: "/find", query: { q: "a", page: "2" }, status: 200 },
        { case: "first", method: "GET", url_path: "/tie", query: { x: "1" }, status: 200 },
        { case: "second", method: "GET", url_path: "/tie", query: { x: "1" }, status: 201 },
        {
          case: "by_id",
          method: "GET",
          url_path: "/item/{id}",
          match_path_regex: "/item/[0-9]+",
          status: 200,
        },
        {
          case: "tpl",
          method: "GET",
          url_path: "/doc/{accession}/file.xml",
          status: 200,
          content_type: "application/xml",
          file: "tpl.xml",
        },
        { case: "posted", method: "POST", url_path: "/find", status: 202 },
      ],
      files: {
        "loose.json": '{"case":"loose"}',
        "tight.json": '{"case":"tight"}',
        "first.json": "{}",
        "second.json": "{}",
        "by_id.json": '{"case":"by_id"}',
        "tpl.xml": "<doc/>",
        "posted.json": "{}",
      },
    },
  });
  const replay = await start(t, { fixturesDir: dir });
  // match_query lists only q; the recorded `noise` is not required.
  assert.equal((await get(replay, "/demo/find?q=a")).headers["x-replay-case"], "demo/loose");
  // Both match; `tight` matched two params against one.
  assert.equal((await get(replay, "/demo/find?q=a&page=2")).headers["x-replay-case"], "demo/tight");
  assert.equal((await get(replay, "/demo/find?q=b")).status, 404);
  const tie = await get(replay, "/demo/tie?x=1");
  assert.equal(tie.status, 200);
  assert.equal(tie.headers["x-replay-case"], "demo/first");
  assert.equal((await get(replay, "/demo/item/42")).headers["x-replay-case"], "demo/by_id");
  assert.equal((await get(replay, "/demo/item/abc")).status, 404);
  const tpl = await get(replay, "/demo/doc/0001-23/file.xml");
  assert.equal(tpl.headers["content-type"], "application/xml");
  assert.equal(tpl.body.toString(), "<doc/>");
  // Method is part of the match.
  const post = await request(`${replay.url}/demo/find`, { method: "POST", body: "{}" });
  await post.body.dump();
  assert.equal(post.statusCode, 202);
});

test("trailing slash and percent-encoding differences still match", async (t) => {
  const replay = await start(t);
  const q = "query=artist%3AYOASOBI&offset=0&limit=100&fmt=json";
  const noSlash = await get(replay, `/musicbrainz/ws/2/artist?${q}`);
  const slash = await get(replay, `/musicbrainz/ws/2/artist/?${q}`);
  assert.equal(noSlash.headers["x-replay-case"], "musicbrainz/artist_search");
  assert.equal(slash.headers["x-replay-case"], "musicbrainz/artist_search");
  // Recorded path `/api/json/...` has no trailing slash; a request with one still matches.
  assert.equal((await get(replay, "/themealdb/api/json/v1/1/lookup.php/?i=52772")).status, 200);
  assert.equal((await get(replay, "/bibleapi/john%203:16?translation=web")).status, 200);
});

test("api_key is ignored whether absent, placeholder or real", async (t) => {
  const replay = await start(t);
  const base = "/serpapi/search.json?engine=google_finance&q=GOOGL:NASDAQ&hl=en";
  for (const suffix of ["", "&api_key=real-secret", "&api_key=%3CSERPAPI_KEY%3E"]) {
    const res = await get(replay, base + suffix);
    assert.equal(res.status, 200, suffix);
    assert.ok(res.body.equals(fixture("serpapi-google_finance", "quote.json")), suffix);
  }
});

test("404 with a JSON explanation for unknown paths, prefixes and non-matching queries", async (t) => {
  const replay = await start(t);
  const unknownPath = await get(replay, "/deezer/nothing/here?q=x");
  assert.equal(unknownPath.status, 404);
  assert.equal(unknownPath.headers["content-type"], "application/json");
  assert.deepEqual(JSON.parse(unknownPath.body.toString()), {
    error: "no recorded response",
    method: "GET",
    path: "/deezer/nothing/here",
  });
  assert.equal((await get(replay, "/deezer/search?q=Something%20Else")).status, 404);
  assert.equal((await get(replay, "/nosuchprovider/search?q=Soliloquy")).status, 404);
  // Right path and query but another provider's prefix.
  assert.equal((await get(replay, "/themealdb/search?q=Soliloquy")).status, 404);
});

test("serpapi: one prefix for all engine folders, told apart by the engine param", async (t) => {
  const replay = await start(t);
  const finance = await get(replay, "/serpapi/search.json?engine=google_finance&q=GOOGL:NASDAQ&hl=en");
  assert.equal(finance.headers["x-replay-case"], "serpapi-google_finance/quote");
  assert.ok(finance.body.equals(fixture("serpapi-google_finance", "quote.json")), "finance.body.equals(fixture(\"serpapi-google_finance\", \"quote.json\"))");
  const news = await get(replay, "/serpapi/search.json?engine=google_news&q=anime");
  assert.equal(news.headers["x-replay-case"], "serpapi-google_news/news_anime");
  // Same q and hl under an engine with no such recording.
  assert.equal(
    (await get(replay, "/serpapi/search.json?engine=google_news&q=GOOGL:NASDAQ&hl=en")).status,
    404,
  );
  // The recording requires hl=en (it is in its query and there is no match_query).
  assert.equal((await get(replay, "/serpapi/search.json?engine=google_finance&q=GOOGL:NASDAQ")).status, 404);
});

test("multi-host prefix `<id>-<host>` falls back to the provider's recordings", async (t) => {
  const replay = await start(t);
  const res = await get(replay, "/sec-data/submissions/CIK0000320193.json");
  assert.equal(res.headers["x-replay-case"], "sec/submissions_CIK0000320193");
  const xml = await get(replay, "/sec-www/Archives/edgar/data/1065280/000106528010000031/nflx-20100930.xml");
  assert.equal(xml.headers["content-type"], "application/xml");
  assert.ok(xml.body.equals(fixture("sec", "xbrl_instance_nflx_10q_2010q3.xml")), "xml.body.equals(fixture(\"sec\", \"xbrl_instance_nflx_10q_2010q3.xml\"))");
});

test("POST recordings match by body subset: the recorded body wins, a different value does not match it", async (t) => {
  const replay = await start(t);
  const post = async (body: unknown) => {
    const res = await request(`${replay.url}/serper/search`, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json" },
    });
    await res.body.arrayBuffer();
    return res.headers["x-replay-case"];
  };
  const recorded = { q: "apple inc", page: 1 };
  assert.equal(await post(recorded), "serper/search_apple_inc");
  // Extra keys in the request do not disqualify; a different value does.
  assert.equal(await post({ ...recorded, num: 10, gl: "us" }), "serper/search_apple_inc");
  assert.notEqual(await post({ ...recorded, q: "apple pie" }), "serper/search_apple_inc");
  assert.notEqual(await post({ ...recorded, page: 2 }), "serper/search_apple_inc");
});

test("every committed recording is served for its own recorded request", async (t) => {
  const replay = await start(t);
  assert.ok(replay.index.entries.length >= 50, "fixtures loaded");
  for (const entry of replay.index.entries) {
    // A re-keyed recording's own request is the one its match_query names (its recorded query, with
    // the required values in place).
    const query: Record<string, string> = { ...entry.query };
    for (const [name, value] of entry.required) query[name] = value ?? query[name] ?? "x";
    const qs = new URLSearchParams(query).toString();
    // `{accession}`-style template segments need a concrete value to be a valid request path.
    const path = entry.urlPath.replace(/\{[^/{}]+\}/g, "x");
    const res = await request(`${replay.url}/${entry.prefix}${path}${qs === "" ? "" : `?${qs}`}`, {
      method: entry.method as "GET",
      ...(entry.requestBody === undefined && entry.bodyPattern === undefined
        ? {}
        : { body: JSON.stringify(entry.requestBody ?? entry.bodyPattern), headers: { "content-type": "application/json" } }),
    });
    const body = Buffer.from(await res.body.arrayBuffer());
    assert.equal(res.headers["x-replay-case"], entry.id, `${entry.id} served by another recording`);
    // Its own request is held, but for a stand-in's placeholder (the recording answers any value).
    const standIns = [...(entry.standInPath ? [`path=${path}`] : []), ...[...entry.standIns].map((name) => `${name}=${query[name]}`)];
    assert.deepEqual(parseUnheldHeader(res.headers["x-replay-unheld"]), standIns, entry.id);
    assert.equal(res.statusCode, entry.status, entry.id);
    assert.ok(body.equals(entry.body), entry.id);
  }
});

test("fault reset: the client gets a connection error", async (t) => {
  const replay = await start(t);
  replay.setFault("deezer", { kind: "reset" });
  await assert.rejects(request(`${replay.url}/deezer/search?q=Soliloquy`));
  // Other prefixes are unaffected.
  assert.equal((await get(replay, "/themealdb/api/json/v1/1/categories.php")).status, 200);
});

test("fault truncate: full content-length, half the body, then the socket closes", async (t) => {
  const replay = await start(t);
  const full = fixture("deezer", "search_simple.json").length;
  replay.setFault("/deezer", { kind: "truncate" });
  const res = await request(`${replay.url}/deezer/search?q=Soliloquy`);
  assert.equal(res.headers["content-length"], String(full));
  let received: number | undefined;
  try {
    received = (await res.body.arrayBuffer()).byteLength;
  } catch {
    received = undefined; // undici reports the premature close as an error: the expected outcome.
  }
  if (received !== undefined) assert.ok(received < full, `received ${received} of ${full}`);
});

test("fault hang: no answer until the client aborts", async (t) => {
  const replay = await start(t);
  replay.setFault("*", { kind: "hang" });
  const started = Date.now();
  await assert.rejects(
    request(`${replay.url}/deezer/search?q=Soliloquy`, { signal: AbortSignal.timeout(150) }),
    (err: Error) => err.name === "TimeoutError" || err.name === "AbortError",
  );
  assert.ok(Date.now() - started >= 140, "Date.now() - started >= 140");
  assert.equal(replay.requests.at(-1)?.fault, "hang");
});

test("fault latency and the latencyMs option delay a normal answer", async (t) => {
  const replay = await start(t);
  replay.setFault("deezer", { kind: "latency", ms: 120 });
  let started = Date.now();
  const res = await get(replay, "/deezer/search?q=Soliloquy");
  assert.ok(Date.now() - started >= 115, "fault latency");
  assert.ok(res.body.equals(fixture("deezer", "search_simple.json")), "res.body.equals(fixture(\"deezer\", \"search_simple.json\"))");
  assert.equal(replay.requests.at(-1)?.matched, "deezer/search_simple");

  const slow = await start(t, { latencyMs: 80 });
  started = Date.now();
  assert.equal((await get(slow, "/deezer/search?q=Soliloquy")).status, 200);
  assert.ok(Date.now() - started >= 75, "base latency");
});

test("fault status: injected 5xx with default or given body", async (t) => {
  const replay = await start(t);
  replay.setFault("deezer", { kind: "status", status: 503 });
  const res = await get(replay, "/deezer/search?q=Soliloquy");
  assert.equal(res.status, 503);
  assert.equal(JSON.parse(res.body.toString()).status, 503);
  replay.setFault("deezer", { kind: "status", status: 502, body: "Bad Gateway" });
  const text = await get(replay, "/deezer/search?q=Soliloquy");
  assert.equal(text.status, 502);
  assert.equal(text.body.toString(), "Bad Gateway");
  assert.match(String(text.headers["content-type"]), /^text\/plain/);
});

test("fault rate_limit: 429 with Retry-After", async (t) => {
  const replay = await start(t);
  replay.setFault("serpapi", { kind: "rate_limit", retryAfterSeconds: 7 });
  const res = await get(replay, "/serpapi/search.json?engine=google_news&q=anime");
  assert.equal(res.status, 429);
  assert.equal(res.headers["retry-after"], "7");
});

test("fault invalid_json: 200 application/json that does not parse", async (t) => {
  const replay = await start(t);
  replay.setFault("deezer", { kind: "invalid_json" });
  const res = await get(replay, "/deezer/search?q=Soliloquy");
  assert.equal(res.status, 200);
  assert.equal(res.headers["content-type"], "application/json");
  assert.throws(() => JSON.parse(res.body.toString()), SyntaxError);
});

test("fault oversized: a valid JSON body of exactly the requested size, streamed", async (t) => {
  const replay = await start(t);
  const bytes = 3 * 1024 * 1024 + 17;
  replay.setFault("deezer", { kind: "oversized", bytes });
  const res = await get(replay, "/deezer/search?q=Soliloquy");
  assert.equal(res.headers["content-length"], String(bytes));
  assert.equal(res.body.length, bytes);
  assert.equal(typeof JSON.parse(res.body.toString()).padding, "string");

  replay.setFault("deezer", { kind: "oversized", bytes: 200_000, chunked: true });
  const chunked = await get(replay, "/deezer/search?q=Soliloquy");
  assert.equal(chunked.headers["content-length"], undefined);
  assert.equal(chunked.body.length, 200_000);

  replay.setFault("deezer", { kind: "oversized", bytes: 5 });
  assert.equal(JSON.parse((await get(replay, "/deezer/search?q=Soliloquy")).body.toString()), 0);
});

test("fault times: applies to the next N requests, then clears; null clears; specific beats *", async (t) => {
  const replay = await start(t);
  replay.setFault("deezer", { kind: "status", status: 500, times: 2 });
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await get(replay, "/deezer/search?q=Soliloquy")).status);
  assert.deepEqual(statuses, [500, 500, 200, 200]);

  replay.setFault("*", { kind: "status", status: 502 });
  replay.setFault("deezer", { kind: "rate_limit", retryAfterSeconds: 1, times: 1 });
  assert.equal((await get(replay, "/deezer/search?q=Soliloquy")).status, 429);
  assert.equal((await get(replay, "/deezer/search?q=Soliloquy")).status, 502);
  assert.equal((await get(replay, "/themealdb/api/json/v1/1/categories.php")).status, 502);
  replay.setFault("*", null);
  assert.equal((await get(replay, "/deezer/search?q=Soliloquy")).status, 200);
});

test("requests log records method, path, query, headers and body, bounded to the last 1000", async (t) => {
  const replay = await start(t);
  await get(replay, "/deezer/search?q=Soliloquy&limit=3&api_key=k1");
  const first = replay.requests[0];
  assert.ok(first, "first");
  assert.equal(first.method, "GET");
  assert.equal(first.path, "/deezer/search");
  assert.equal(first.prefix, "deezer");
  assert.deepEqual(first.query, { q: "Soliloquy", limit: "3", api_key: "k1" });
  assert.equal(first.matched, "deezer/search_simple");

  const post = await request(`${replay.url}/ors/v2/matrix/driving-car`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "demo-key" },
    body: JSON.stringify({ locations: [[1, 2]] }),
  });
  await post.body.dump();
  assert.equal(post.statusCode, 200);
  const last = replay.requests.at(-1);
  assert.equal(last?.method, "POST");
  assert.equal(last?.headers.authorization, "demo-key");
  assert.deepEqual(JSON.parse(last?.body ?? ""), { locations: [[1, 2]] });

  replay.requests.length = 0;
  const total = REQUEST_LOG_LIMIT + 5;
  for (let i = 0; i < total; i++) {
    const res = await request(`${replay.url}/nowhere?i=${i}`);
    await res.body.dump();
  }
  assert.equal(replay.requests.length, REQUEST_LOG_LIMIT);
  assert.equal(replay.requests[0]?.query.i, "5");
  assert.equal(replay.requests.at(-1)?.query.i, String(total - 1));
});

test("requestLog sets how many requests are kept; 0 keeps none and still answers and injects faults", async () => {
  const few = await startReplay({ requestLog: 3 });
  const none = await startReplay({ requestLog: 0 });
  try {
    for (let i = 0; i < 5; i++) await (await request(`${few.url}/nowhere?i=${i}`)).body.dump();
    assert.deepEqual(few.requests.map((r) => r.query.i), ["2", "3", "4"]);

    const ok = await request(`${none.url}/deezer/search?q=Soliloquy`);
    assert.equal(ok.statusCode, 200);
    assert.ok(Array.isArray(((await ok.body.json()) as { data?: unknown }).data), "Array.isArray(((await ok.body.json()) as { data?: unknown }).data)");
    none.setFault("*", { kind: "status", status: 503, times: 1 });
    const failed = await request(`${none.url}/deezer/search?q=Soliloquy`);
    await failed.body.dump();
    assert.equal(failed.statusCode, 503);
    assert.equal(none.requests.length, 0);
  } finally {
    await few.close();
    await none.close();
  }
});

test("close() resolves promptly with a hung request pending, and the request fails", async () => {
  const replay = await startReplay();
  replay.setFault("*", { kind: "hang" });
  const pending = request(`${replay.url}/deezer/search?q=Soliloquy`);
  const outcome = pending.then(
    () => "answered",
    () => "failed",
  );
  // Wait until the server has the request, so close() has a live hung socket to deal with.
  for (let i = 0; i < 100 && replay.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(replay.requests.length, 1);
  const started = Date.now();
  await replay.close();
  assert.ok(Date.now() - started < 1000, `close took ${Date.now() - started} ms`);
  assert.equal(await outcome, "failed");
});

test("replayEnvironment maps every provider host and key variable", async (t) => {
  const replay = await start(t);
  const env = replayEnvironment(`${replay.url}/`);
  for (const provider of Object.values(PROVIDERS)) {
    for (const [hostName, host] of Object.entries(provider.hosts)) {
      const suffix = hostName === "default" ? provider.id : `${provider.id}-${hostName}`;
      assert.equal(env[host.baseUrlVar], `${replay.url}/${suffix}`);
    }
  }
  assert.equal(env.SERPAPI_API_KEY, "demo-key");
  assert.equal(env.OPENALEX_API_KEY, "demo-key");
  // TheMealDB's public key is part of the recorded paths (`/api/json/v1/1/...`).
  assert.equal(env.THEMEALDB_API_KEY, "1");
  // The mapped base URLs reach recordings, as a client would use them.
  const meal = await request(
    `${env.THEMEALDB_BASE_URL}/api/json/v1/${env.THEMEALDB_API_KEY}/lookup.php?i=52772`,
  );
  await meal.body.dump();
  assert.equal(meal.statusCode, 200);
  const deezer = await request(`${env.DEEZER_BASE_URL}/search?q=Soliloquy`);
  await deezer.body.dump();
  assert.equal(deezer.statusCode, 200);
});

test("folder prefixes follow the provider-id rule", () => {
  assert.equal(prefixForFolder("serpapi-google_finance"), "serpapi");
  assert.equal(prefixForFolder("x-api-v2"), "xapi");
  assert.equal(prefixForFolder("sec"), "sec");
  assert.equal(prefixForFolder("openalex"), "openalex");
  const index = loadFixtureIndex();
  assert.equal(index.folders["serpapi-google_news"], "serpapi");
  assert.ok(index.prefixes.includes("xapi"), "index.prefixes.includes(\"xapi\")");
  assert.ok(!index.prefixes.includes("x-api-v2"), "!index.prefixes.includes(\"x-api-v2\")");
  for (const id of Object.keys(PROVIDERS)) assert.ok(index.prefixes.includes(id), `no recordings for ${id}`);
});
