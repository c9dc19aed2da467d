/**
 * music.search `details` end to end over real HTTP against the replay upstream: Deezer track and
 * album details gain `release` from `GET /album/{id}` on the first call (cached after it, free
 * either way); a failed album call is the spec's 502 provider_error envelope, charged nothing and
 * not cached; artist and MusicBrainz-fallback details stay stored (no provider call).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Harness, startHarness } from "./helpers/harness.ts";

let h: Harness;
let key: string;

before(async () => {
  h = await startHarness();
  ({ key } = await h.account());
});
after(async () => {
  await h.close();
});

const post = (path: string, body: unknown) => h.call("POST", path, { key, body });
const execute = (body: unknown) => post("/v1/capabilities/music.search/execute", body);
const details = (recordId: string) => post("/v1/follow-up", { record_id: recordId, action: "details" });
const used = async (): Promise<number> => (await h.call("GET", "/v1/account", { key })).body.credits.used;
/** Replay requests for Deezer albums since `from` (an index into h.replay.requests). */
const albumCalls = (from: number) =>
  h.replay.requests.slice(from).filter((r) => r.path.startsWith("/deezer/album/"));

describe("music.search details", () => {
  test("an album's first details fetches its release from GET /album/{id}; the repeat is cached; both free", async () => {
    const ex = await execute({ query: "Daft Punk", kind: "album", num: 5 });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    const discovery = ex.body.results[0];
    assert.equal(discovery.title, "Discovery");
    assert.equal(discovery.kind, "album");
    assert.equal("release" in discovery, false, "the summary keeps its spec keys");
    const usedBefore = await used();
    const from = h.replay.requests.length;

    const first = await details(discovery.record_id);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.detail.release.date, "2001-03-07");
    assert.equal(first.body.detail.release.title, "Discovery");
    assert.equal(first.body.cached, false);
    assert.equal(first.body.charged_credits, 0);
    const calls = albumCalls(from);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.path, "/deezer/album/302127");
    assert.equal(calls[0]?.matched, "deezer/get_album");
    // Every detail key of the search-time mapping is still there.
    assert.equal(first.body.detail.kind, "album");
    assert.equal(first.body.detail.title, "Discovery");
    assert.equal(first.body.detail.artist, "Daft Punk");
    assert.equal(first.body.detail.tracks, 14);
    assert.equal(first.body.detail.type, "album");
    assert.equal(first.body.detail.explicit, false);
    assert.equal(first.body.detail.metadata.source, "deezer");
    assert.equal(first.body.detail.metadata.deezer_id, 302127);
    assert.ok(first.body.links.some((l: { url: string }) => l.url === "https://www.deezer.com/album/302127"), "first.body.links.some((l: { url: string }) => l.url === \"https://www.deezer.com/album/3...");

    const again = await details(discovery.record_id);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.cached, true);
    assert.equal(again.body.charged_credits, 0);
    assert.deepEqual(again.body.detail, first.body.detail);
    assert.deepEqual(again.body.links, first.body.links);
    assert.equal(albumCalls(from).length, 1, "the repeat makes no provider call");
    assert.equal(await used(), usedBefore);
  });

  test("a track whose album is not recorded: 502 provider_error, nothing charged, retried on the next call", async () => {
    const ex = await execute({ query: "Soliloquy", num: 5 });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    const track = ex.body.results[0];
    assert.equal(track.kind, "track");
    const usedBefore = await used();
    const from = h.replay.requests.length;

    for (let attempt = 1; attempt <= 2; attempt++) {
      const res = await details(track.record_id);
      assert.equal(res.status, 502, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "provider_error");
      assert.equal(res.body.error.retryable, false, "a 404 from Deezer is a refusal");
      assert.match(res.body.error.requestId, /^req_/);
      const calls = albumCalls(from);
      assert.equal(calls.length, attempt, "a failure is not cached: each call asks Deezer again");
      assert.equal(calls.at(-1)?.path, "/deezer/album/259135282");
      assert.equal(calls.at(-1)?.matched, null);
    }
    assert.equal(await used(), usedBefore);
  });

  test("a failed album call can be retried: after a network failure the next call answers", async () => {
    const ex = await execute({ query: "Daft Punk", kind: "album", num: 5 });
    const discovery = ex.body.results[0];
    const usedBefore = await used();
    // The client retries a GET twice inside the deadline: three resets make the call fail.
    h.replay.setFault("deezer", { kind: "reset", times: 3 });
    try {
      const failed = await details(discovery.record_id);
      assert.equal(failed.status, 502, JSON.stringify(failed.body));
      assert.equal(failed.body.error.code, "provider_error");
      assert.equal(failed.body.error.retryable, true);
    } finally {
      h.replay.setFault("deezer", null);
    }
    const retried = await details(discovery.record_id);
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal(retried.body.cached, false);
    assert.equal(retried.body.detail.release.date, "2001-03-07");
    assert.equal(retried.body.charged_credits, 0);
    assert.equal(await used(), usedBefore);
  });

  test("artist details are unchanged: stored at search time, no provider call, no release", async () => {
    const ex = await execute({ query: "Daft Punk", kind: "artist" });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    const artist = ex.body.results[0];
    const from = h.replay.requests.length;
    const res = await details(artist.record_id);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.cached, true);
    assert.equal(res.body.charged_credits, 0);
    assert.equal(h.replay.requests.length, from, "no provider call");
    assert.deepEqual(res.body.detail, {
      kind: "artist",
      title: "Daft Punk",
      name: "Daft Punk",
      url: "https://www.deezer.com/artist/27",
      fans: 4117751,
      albums: 32,
      picture: artist.picture,
      metadata: { source: "deezer", deezer_id: 27, radio: true },
    });
    assert.ok(res.body.links.length > 0, "res.body.links.length > 0");
  });

  test("MusicBrainz-fallback records keep their stored details (release included), no provider call", async () => {
    // Deezer has no recording for this query (HTTP 404 → provider_error), so MusicBrainz answers.
    const ex = await execute({ query: "ミックスナッツ" });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    assert.ok(typeof ex.body.results[0].musicbrainz_id === "string", "typeof ex.body.results[0].musicbrainz_id === \"string\"");
    const from = h.replay.requests.length;
    const res = await details(ex.body.results[0].record_id);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.cached, true);
    assert.equal(res.body.charged_credits, 0);
    assert.equal(res.body.detail.metadata.source, "musicbrainz");
    assert.equal(typeof res.body.detail.release, "object", "MusicBrainz's stored release facts");
    assert.equal(h.replay.requests.length, from);
  });
});
