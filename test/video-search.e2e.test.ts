/**
 * video.search end to end over HTTP against the replay upstream: the search and its request, every
 * field's bounds (also through `update`), token paging, free cached `details`, the billed `transcript`
 * (4 credits once, cached after), a video without a transcript (a replay of its own: 400 at
 * /record_id, nothing charged), YouTube refusing the captions (its bot check, a proof-of-origin
 * token: replays of their own, 502 saying so, nothing charged, never "no transcript"; the age gate
 * and other reasons in youtube.test.ts),
 * and the capability unavailable without YOUTUBE_API_KEY.
 */
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type ReplayServer, startReplay } from "../src/demo/replay/replay-server.ts";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";

let kit: CapabilityKit;
let keyless: CapabilityKit;
let silent: CapabilityKit;
let silentReplay: ReplayServer;
const dirs: string[] = [];

/** A replay whose innertube player answers every video with one recorded player body (`file` of youtube_web). */
async function startPlayerReplay(file: string): Promise<ReplayServer> {
  const root = mkdtempSync(join(tmpdir(), "video-replay-"));
  dirs.push(root);
  const fixtures = new URL("../fixtures/providers/", import.meta.url);
  cpSync(new URL("youtube", fixtures), join(root, "youtube"), { recursive: true });
  mkdirSync(join(root, "youtube_web"));
  cpSync(new URL(`youtube_web/${file}`, fixtures), join(root, "youtube_web", "player.json"));
  const entry = { case: "player", file: "player.json", method: "POST", url_path: "/youtubei/v1/player", status: 200 };
  writeFileSync(join(root, "youtube_web", "index.json"), JSON.stringify([entry]));
  return startReplay({ fixturesDir: root });
}

/** The recorded unavailable-video body (no captions). */
const startSilentReplay = () => startPlayerReplay("innertube_player_video_unavailable.json");

before(async () => {
  kit = await startCapabilityKit("video.search");
  keyless = await startCapabilityKit("video.search", { env: { YOUTUBE_API_KEY: "" }, replay: kit.h.replay });
  silentReplay = await startSilentReplay();
  silent = await startCapabilityKit("video.search", { replay: silentReplay });
});
after(async () => {
  await silent.close();
  await silentReplay.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await keyless.close();
  await kit.close();
});

const searches = (k: CapabilityKit, from: number) => k.h.replay.requests.slice(from).filter((r) => r.path === "/youtube/youtube/v3/search");

describe("video.search", () => {
  test("execute: videos only, the key as a query parameter; records with channel, date, medium thumbnail", async () => {
    const from = kit.h.replay.requests.length;
    const res = await kit.execute({ query: "actions on google" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.charged_credits, 0);
    assert.deepEqual(res.body.record_actions, ["details", "transcript"]);
    assert.equal(res.body.has_more, false);
    const [v] = res.body.results;
    assert.equal(v.title, "What are Actions on Google (Assistant on Air)");
    assert.equal(v.url, "https://www.youtube.com/watch?v=D-lhorsDlUQ");
    assert.equal(v.channel, "Google Developers");
    assert.equal(v.published_at, "2019-03-21T20:37:49.000Z");
    assert.equal(v.thumbnail, "https://i.ytimg.com/vi/D-lhorsDlUQ/mqdefault.jpg");
    const [sent] = searches(kit, from);
    assert.deepEqual(sent?.query, { part: "snippet", type: "video", q: "actions on google", maxResults: "10", key: "demo-key" });
  });

  test("bounds: query 1-300, num 1-50, published_after RFC 3339 date-time, duration", async () => {
    await kit.expectViolation({}, "/query");
    await kit.expectViolation({ query: "" }, "/query");
    await kit.expectViolation({ query: "x".repeat(301) }, "/query");
    await kit.expectViolation({ query: "x", num: 0 }, "/num");
    await kit.expectViolation({ query: "x", num: 51 }, "/num");
    // num 50 is accepted (the replay has no recording for 50 a page: the provider's 404 is a 502, not a 400).
    assert.equal((await kit.execute({ query: "surfing", num: 50 })).status, 502);
    await kit.expectViolation({ query: "x", published_after: "2024-01-01" }, "/published_after", /date-time/);
    await kit.expectViolation({ query: "x", published_after: "2024-01-01T00:00:00" }, "/published_after", /date-time/);
    await kit.expectViolation({ query: "x", published_after: "2024-02-30T00:00:00Z" }, "/published_after");
    await kit.expectViolation({ query: "x", duration: "any" }, "/duration");
    await kit.expectViolation({ query: "x", order: "date" }, "/order");
    const from = kit.h.replay.requests.length;
    const ok = await kit.execute({ query: "surfing", num: 25, published_after: "2019-01-01 00:00:00z", duration: "short" });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const [sent] = searches(kit, from);
    assert.equal(sent?.query.maxResults, "25");
    assert.equal(sent?.query.publishedAfter, "2019-01-01T00:00:00Z");
    assert.equal(sent?.query.videoDuration, "short");
  });

  test("token paging: more sends the page token YouTube gave", async () => {
    const first = await kit.execute({ query: "surfing", num: 25 });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.results.length, 25);
    assert.equal(first.body.has_more, true);
    const from = kit.h.replay.requests.length;
    const next = await kit.more(first.body.search_id);
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.equal(next.body.charged_credits, 0);
    assert.equal(searches(kit, from)[0]?.query.pageToken, "CBkQAA");
  });

  test("update: merged (duration), same search id, paging reset, free; bounds under /params", async () => {
    const ex = await kit.execute({ query: "actions on google" });
    const from = kit.h.replay.requests.length;
    const up = await kit.update(ex.body.search_id, { duration: "long" });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(up.body.search_id, ex.body.search_id);
    assert.equal(up.body.charged_credits, 0);
    const [sent] = searches(kit, from);
    assert.equal(sent?.query.videoDuration, "long");
    assert.equal(sent?.query.pageToken, undefined);
    await kit.expectUpdateViolation(ex.body.search_id, { num: 51 }, "/params/num");
    await kit.expectUpdateViolation(ex.body.search_id, { published_after: "soon" }, "/params/published_after");
    await kit.expectUpdateViolation(ex.body.search_id, { duration: "epic" }, "/params/duration");
  });

  test("details: free, fetched once; statistics as numbers; the repeat is cached", async () => {
    const ex = await kit.execute({ query: "actions on google" });
    const recordId = ex.body.results[0].record_id;
    const usedBefore = await kit.used();
    const from = kit.h.replay.requests.length;
    const first = await kit.action(recordId, "details");
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.cached, false);
    assert.equal(first.body.charged_credits, 0);
    assert.equal(first.body.detail.duration_seconds, 1267);
    assert.equal(first.body.detail.views, 7920);
    assert.equal(first.body.detail.likes, 190);
    assert.equal(first.body.detail.comments, 32);
    assert.equal(first.body.detail.tags.length, 10);
    assert.equal(first.body.detail.definition, "hd");
    assert.deepEqual(kit.h.replay.requests[from]?.query, { part: "snippet,contentDetails,statistics", id: "D-lhorsDlUQ", key: "demo-key" });
    const again = await kit.action(recordId, "details");
    assert.equal(again.body.cached, true);
    assert.equal(again.body.charged_credits, 0);
    assert.deepEqual(again.body.detail, first.body.detail);
    assert.equal(kit.h.replay.requests.length, from + 1);
    assert.equal(await kit.used(), usedBefore);
  });

  test("transcript: 4 credits on the first call, then cached at 0; text and timestamps from the captions", async () => {
    const ex = await kit.execute({ query: "surface go review", num: 5 });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    const recordId = ex.body.results[0].record_id;
    const usedBefore = await kit.used();
    const from = kit.h.replay.requests.length;
    const first = await kit.action(recordId, "transcript");
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.cached, false);
    assert.equal(first.body.charged_credits, 4);
    assert.equal(first.body.detail.language, "en");
    assert.equal(first.body.detail.segments, 3);
    assert.equal(first.body.detail.timestamps.length, 3);
    assert.deepEqual(first.body.detail.timestamps[1], { start: 1.54, duration: 4.16, text: "this is not the original transcript" });
    assert.equal(first.body.detail.timestamps_truncated, false);
    assert.ok(first.body.detail.available_languages.includes("de"), "first.body.detail.available_languages.includes(\"de\")");
    assert.equal(await kit.used(), usedBefore + 4);
    const calls = kit.h.replay.requests.slice(from);
    assert.equal(calls[0]?.method, "POST");
    assert.equal(calls[0]?.path, "/youtube_web/youtubei/v1/player");
    assert.equal(calls[0]?.query.key, undefined, "the Data API key never goes to www.youtube.com");
    assert.equal(JSON.parse(calls[0]?.body ?? "{}").videoId, "GJLlxj_dtq8");
    assert.equal(calls[1]?.path, "/youtube_web/api/timedtext");
    assert.equal(calls[1]?.matched, "youtube_web/transcript_timedtext");
    const again = await kit.action(recordId, "transcript");
    assert.equal(again.status, 200);
    assert.equal(again.body.cached, true);
    assert.equal(again.body.charged_credits, 0);
    assert.deepEqual(again.body.detail, first.body.detail);
    assert.equal(await kit.used(), usedBefore + 4, "billed once");
    assert.equal(kit.h.replay.requests.length, from + 2);
  });

  test("a video without a transcript: 400 invalid_request at /record_id, nothing charged, asked again next time", async () => {
    const ex = await silent.execute({ query: "surface go review", num: 5 });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    const usedBefore = await silent.used();
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await silent.action(ex.body.results[0].record_id, "transcript");
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "invalid_request");
      assert.equal(res.body.error.violations[0].path, "/record_id");
      assert.match(res.body.error.violations[0].message, /This video is unavailable/);
      assert.match(res.body.error.hint, /no transcript/);
    }
    assert.equal(await silent.used(), usedBefore);
  });

  test("YouTube refusing the captions is 502 provider_error saying why, never \"no transcript\"; nothing charged", async () => {
    const cases = [
      // LOGIN_REQUIRED "Sign in to confirm you're not a bot": the player's bot check (most cloud addresses get it).
      { file: "innertube_player_request_blocked.json", message: /bot check \("Sign in to confirm you.re not a bot"\)/ },
      // The English track's address names the exp=xpe experiment: a proof-of-origin token is needed; its captions are not asked for.
      { file: "innertube_player_po_token_required.json", message: /proof-of-origin \(PO\) token for the captions of video GJLlxj_dtq8/ },
    ];
    for (const c of cases) {
      const replay = await startPlayerReplay(c.file);
      const k = await startCapabilityKit("video.search", { replay });
      try {
        const ex = await k.execute({ query: "surface go review", num: 5 });
        assert.equal(ex.status, 200, JSON.stringify(ex.body));
        const usedBefore = await k.used();
        const res = await k.action(ex.body.results[0].record_id, "transcript");
        assert.equal(res.status, 502, `${c.file}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error.code, "provider_error");
        assert.match(res.body.error.message, c.message, c.file);
        assert.doesNotMatch(JSON.stringify(res.body), /has no transcript/, c.file);
        assert.equal(await k.used(), usedBefore, `${c.file}: nothing charged`);
        assert.equal(k.h.replay.requests.filter((r) => r.path.endsWith("/api/timedtext")).length, 0, `${c.file}: no caption track asked for`);
        assert.equal(res.body.error.retryable, false, c.file);
      } finally {
        await k.close();
        await replay.close();
      }
    }
  });

  // (A player answer about another video is a provider error too: youtube.test.ts, captionTracks.)
  test("a video the player has no recording for is a provider error, charged nothing", async () => {
    const ex = await kit.execute({ query: "actions on google" });
    const usedBefore = await kit.used();
    const res = await kit.action(ex.body.results[0].record_id, "transcript");
    assert.equal(res.status, 502, JSON.stringify(res.body));
    assert.equal(res.body.error.code, "provider_error");
    assert.equal(await kit.used(), usedBefore);
  });

  test("without YOUTUBE_API_KEY: 503 capability_unavailable naming it", async () => {
    const res = await keyless.execute({ query: "surfing" });
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.error.code, "capability_unavailable");
    assert.match(res.body.error.message, /YOUTUBE_API_KEY/);
    const catalog = (await keyless.h.call("GET", "/v1/catalog", { key: keyless.key })).body.capabilities.find(
      (c: { id: string }) => c.id === "video.search",
    );
    assert.equal(catalog.available, false);
    assert.match(catalog.unavailable_reason, /YOUTUBE_API_KEY/);
  });
});
