/**
 * MusicBrainz (fallback) mapper tests: recorded recording and artist searches (fitting the declared
 * answers; a renamed list or field is drift naming it), a hand-made release body in the documented
 * shape, paging by `count`, MusicBrainz's error bodies, and the fallback note.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ApiError } from "../../errors.ts";
import { checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import type { MusicKind, MusicQuery } from "./music-query.ts";
import {
  escapeLucene,
  fallbackNote,
  musicBrainzProbe,
  musicBrainzRefusal,
  musicBrainzSearch,
  type MusicBrainzSearchBody,
  toMusicBrainzPage,
  toMusicBrainzRequest,
} from "./musicbrainz.ts";

function fixture(name: string): MusicBrainzSearchBody {
  const url = new URL(`../../../fixtures/providers/musicbrainz/${name}`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8")) as MusicBrainzSearchBody;
}

function query(kind: MusicKind = "track", num = 10): MusicQuery {
  return { query: "q", kind, num };
}

/** A release search body in MusicBrainz's documented shape (no recorded one exists). */
const releaseBody: MusicBrainzSearchBody = {
  count: 1,
  offset: 0,
  releases: [
    {
      id: "b6ccff85-1c9b-400a-bdbd-f0ffd0d91483",
      score: 100,
      title: "ミックスナッツEP",
      status: "Official",
      disambiguation: "first press",
      "artist-credit": [{ name: "Official髭男dism", artist: { id: "6ddd", name: "Official髭男dism" } }],
      "release-group": { id: "76f3", "primary-type": "EP" },
      date: "2022-06-22",
      country: "JP",
      "track-count": 4,
    },
  ],
};

test("toMusicBrainzRequest: entity path, query, offset, limit and fmt=json", () => {
  const req = toMusicBrainzRequest({ query: "YOASOBI", kind: "artist", num: 10 }, 20);
  assert.equal(req.provider, "musicbrainz");
  assert.equal(req.method, "GET");
  assert.equal(req.path, "/ws/2/artist");
  assert.deepEqual(req.query, { query: "YOASOBI", offset: 20, limit: 10, fmt: "json" });
  assert.equal(toMusicBrainzRequest(query("track"), 0).path, "/ws/2/recording");
  assert.equal(toMusicBrainzRequest(query("album"), 0).path, "/ws/2/release");
  for (const kind of ["track", "artist", "album"] as const) {
    assert.equal(toMusicBrainzRequest(query(kind), 0).response, musicBrainzSearch[kind], kind);
    assert.equal(toMusicBrainzRequest(query(kind), 0).refusal, musicBrainzRefusal);
  }
  assert.equal(musicBrainzProbe.provider, "musicbrainz");
  assert.deepEqual(musicBrainzProbe.request.query, { query: "YOASOBI", offset: 0, limit: 1, fmt: "json" });
});

test("the recordings (and the hand-made release body) fit the declared answers; a renamed list or field is drift naming it", () => {
  for (const [name, kind] of [
    ["artist_search.json", "artist"],
    ["artist_search_empty.json", "artist"],
    ["recording_search.json", "track"],
    ["recording_search_empty.json", "track"],
  ] as const) {
    checkShape("musicbrainz", musicBrainzSearch[kind], fixture(name));
  }
  checkShape("musicbrainz", musicBrainzSearch.album, releaseBody);
  const drift = (kind: MusicKind, body: unknown, pointer: string) =>
    assert.throws(
      () => checkShape("musicbrainz", musicBrainzSearch[kind], body),
      (e: unknown) => e instanceof ProviderDrift && e.pointer === pointer && e.message.startsWith("MusicBrainz answered in a shape Quarry does not read"),
    );
  const artists = fixture("artist_search.json");
  drift("track", artists, "/recordings");
  drift("artist", { ...artists, count: "2" }, "/count");
  const first = artists.artists![0]!;
  drift("artist", { count: 1, artists: [{ ...first, name: undefined, name_renamed: first.name }] }, "/artists/0/name");
  drift("artist", { count: 1, artists: [{ ...first, country: 392 }] }, "/artists/0/country");
  const recording = fixture("recording_search.json").recordings![0]!;
  drift("track", { count: 1, recordings: [{ ...recording, length: "213000" }] }, "/recordings/0/length");
});

test("MusicBrainz's error bodies (4xx) are provider_error in its words, not retried; its 503 and answers are not refusals", () => {
  const refused = musicBrainzRefusal({ error: "Invalid query", help: "For usage, please see: https://musicbrainz.org/development/mmd" }, 400);
  assert.ok(refused instanceof ApiError, "refused instanceof ApiError");
  assert.equal(refused.code, "provider_error");
  assert.equal(refused.retryable, false);
  assert.equal(refused.message, "MusicBrainz refused the search (HTTP 400): Invalid query.");
  assert.equal(musicBrainzRefusal({ error: "rate limited" }, 503), undefined);
  assert.equal(musicBrainzRefusal(fixture("artist_search.json"), 200), undefined);
  assert.equal(musicBrainzRefusal(undefined, 404), undefined);
});

test("escapeLucene: syntax characters in a plain query are escaped", () => {
  assert.equal(escapeLucene("AC/DC"), "AC\\/DC");
  assert.equal(escapeLucene('artist:"x"'), 'artist\\:\\"x\\"');
  assert.equal(escapeLucene("Guns N' Roses"), "Guns N' Roses");
  assert.equal(toMusicBrainzRequest({ query: "AC/DC", kind: "artist", num: 5 }, 0).query?.query, "AC\\/DC");
});

test("recordings: the smaller key set, with country and musicbrainz_id", () => {
  const page = toMusicBrainzPage(fixture("recording_search.json"), query(), 0);
  assert.equal(page.records.length, 3);
  const first = page.records[0];
  assert.ok(first, "first");
  assert.deepEqual(first.summary, {
    title: "ミックスナッツ",
    kind: "track",
    url: "https://musicbrainz.org/recording/30ed18b6-d95b-4efe-a332-6fcc0e07b087",
    artist: "Official髭男dism",
    album: "ミックスナッツEP",
    duration: "3:33",
    country: "JP",
    musicbrainz_id: "30ed18b6-d95b-4efe-a332-6fcc0e07b087",
  });
  assert.deepEqual(first.ref, {
    source: "musicbrainz",
    musicbrainz_id: "30ed18b6-d95b-4efe-a332-6fcc0e07b087",
  });
});

test("recordings: the stored detail carries album, duration, release and metadata", () => {
  const detail = toMusicBrainzPage(fixture("recording_search.json"), query(), 0).records[0]?.detail;
  assert.ok(detail, "detail");
  assert.equal(detail.duration_seconds, 213);
  assert.deepEqual(detail.album, {
    title: "ミックスナッツEP",
    url: "https://musicbrainz.org/release/b6ccff85-1c9b-400a-bdbd-f0ffd0d91483",
  });
  // The first official release, not the first listed (a pseudo-release).
  assert.deepEqual(detail.release, {
    title: "ミックスナッツEP",
    date: "2022-06-22",
    country: "JP",
    status: "Official",
    type: "ep",
    musicbrainz_id: "b6ccff85-1c9b-400a-bdbd-f0ffd0d91483",
  });
  assert.equal(detail.first_release_date, "2022-04-15");
  assert.deepEqual(detail.isrcs, ["JPPC02210469"]);
  assert.equal((detail.metadata as { source: string }).source, "musicbrainz");
});

test("recordings: no length means no duration key", () => {
  const second = toMusicBrainzPage(fixture("recording_search.json"), query(), 0).records[1];
  assert.ok(second, "second");
  assert.equal("duration" in second.summary, false);
  assert.equal("explicit" in second.summary, false);
  assert.equal("preview_url" in second.summary, false);
});

test("the fallback note says the primary source was unavailable and which keys are absent (the chain adds it to every fallback page)", () => {
  assert.match(fallbackNote("track"), /Deezer\) was unavailable/);
  assert.match(fallbackNote("track"), /explicit, preview_url/);
  assert.match(fallbackNote("artist"), /fans, albums, picture/);
  assert.match(fallbackNote("album"), /cover/);
});

test("artists: country and id; details carry equal title and name", () => {
  const page = toMusicBrainzPage(fixture("artist_search.json"), query("artist"), 0);
  assert.equal(page.records.length, 2);
  const first = page.records[0];
  assert.deepEqual(first?.summary, {
    title: "YOASOBI",
    kind: "artist",
    url: "https://musicbrainz.org/artist/df6c619f-4334-43e2-8b6a-4a32af1e4f85",
    country: "JP",
    musicbrainz_id: "df6c619f-4334-43e2-8b6a-4a32af1e4f85",
  });
  assert.equal(first?.detail?.title, "YOASOBI");
  assert.equal(first?.detail?.name, "YOASOBI");
  assert.deepEqual(first?.detail?.life_span, { begin: "2019-09-30" });
  assert.equal(page.next, null, "count 2 reached");
});

test("releases: artist, tracks, lower-cased type, country, disambiguation", () => {
  const page = toMusicBrainzPage(releaseBody, query("album"), 0);
  assert.deepEqual(page.records[0]?.summary, {
    title: "ミックスナッツEP",
    kind: "album",
    url: "https://musicbrainz.org/release/b6ccff85-1c9b-400a-bdbd-f0ffd0d91483",
    artist: "Official髭男dism",
    tracks: 4,
    type: "ep",
    country: "JP",
    disambiguation: "first press",
    musicbrainz_id: "b6ccff85-1c9b-400a-bdbd-f0ffd0d91483",
  });
  assert.deepEqual(page.records[0]?.detail?.release, {
    title: "ミックスナッツEP",
    date: "2022-06-22",
    country: "JP",
    status: "Official",
    type: "ep",
    musicbrainz_id: "b6ccff85-1c9b-400a-bdbd-f0ffd0d91483",
  });
});

test("paging: next offset while count goes beyond the slice, remembering the source", () => {
  const artists = fixture("artist_search.json").artists ?? [];
  const body: MusicBrainzSearchBody = { count: 40, offset: 0, artists };
  assert.deepEqual(toMusicBrainzPage(body, query("artist", 2), 0).next, { offset: 2, source: "musicbrainz" });
  assert.equal(toMusicBrainzPage({ ...body, count: 40 }, query("artist", 2), 38).next, null);
  assert.equal(toMusicBrainzPage({ count: 40, artists: [] }, query("artist", 2), 40).next, null);
});

test("empty results are an empty page", () => {
  for (const [name, kind] of [
    ["artist_search_empty.json", "artist"],
    ["recording_search_empty.json", "track"],
  ] as const) {
    const page = toMusicBrainzPage(fixture(name), query(kind), 0);
    assert.deepEqual(page.records, [], name);
    assert.equal(page.next, null, name);
  }
});

test("a body without the entity list is drift at the list, before the mapper", () => {
  assert.throws(
    () => checkShape("musicbrainz", musicBrainzSearch.track, fixture("artist_search.json")),
    (err: unknown) => err instanceof ProviderDrift && err.code === "provider_error" && err.pointer === "/recordings",
  );
});
