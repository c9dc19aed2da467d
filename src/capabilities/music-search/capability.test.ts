/**
 * music.search capability tests: schema bounds and defaults, and the search and details glue
 * against an in-memory upstream serving recorded Deezer and MusicBrainz bodies, including the
 * fallback from Deezer to MusicBrainz, source-pinned paging, and the album call that completes
 * Deezer track and album details with `release` (end to end over HTTP: test/music-search.e2e.test.ts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Ajv } from "ajv";
import { fakeContext as kitContext, fixture as recorded } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { JsonObject, RecordDraft, StoredRecordView } from "../types.ts";
import { musicSearch, musicSearchSchema } from "./capability.ts";
import { type MusicQuery, parseCursor } from "./music-query.ts";

function fixture(path: string): unknown {
  const [folder, file] = path.split("/") as [string, string];
  return recorded(folder, file);
}

const details = musicSearch.actions.details!;

const validate = new Ajv({ allErrors: true, useDefaults: true, strict: false }).compile(musicSearchSchema);

function accept(body: JsonObject): MusicQuery | null {
  const copy = structuredClone(body);
  return validate(copy) ? (copy as MusicQuery) : null;
}

function q(body: JsonObject): MusicQuery {
  const query = accept(body);
  assert.ok(query, JSON.stringify(body));
  return query;
}

type Answer = (req: UpstreamRequest) => unknown;

/** An upstream whose answers are chosen per provider; it remembers every request it received. */
function fakeContext(
  answers: { deezer?: Answer; musicbrainz?: Answer },
  signal = new AbortController().signal,
) {
  const { ctx, requests: sent } = kitContext(
    (request: UpstreamRequest) => {
      const answer = answers[request.provider as "deezer" | "musicbrainz"];
      if (answer === undefined) throw new Error(`unexpected call to ${request.provider}`);
      return answer(request);
    },
    { signal },
  );
  return { ctx, sent, providers: () => sent.map((r) => r.provider) };
}

const deezerDown: Answer = () => {
  throw new ApiError("provider_error", "Deezer answered 503");
};

test("capability metadata follows spec 4.6", () => {
  assert.equal(musicSearch.id, "music.search");
  assert.equal(musicSearch.topic, "media and entertainment");
  assert.equal(musicSearch.paging, "offset");
  assert.equal(musicSearch.deadlineMs, 15_000);
  assert.equal(musicSearch.typicalCredits, 0);
  assert.equal(musicSearch.offersUpdate, true);
  assert.deepEqual(musicSearch.availability(new Set()), {});
  assert.deepEqual(
    Object.values(musicSearch.actions).map((a) => [a.name, a.mode, a.credits]),
    [["details", "stored", 0]],
  );
  assert.equal(musicSearch.maxCredits(q({ query: "x" })), 0);
  assert.equal(musicSearch.pageSize(q({ query: "x", num: 4 })), 4);
});

test("schema applies the defaults: kind track, num 10", () => {
  assert.deepEqual(accept({ query: "Soliloquy" }), { query: "Soliloquy", kind: "track", num: 10 });
});

test("schema accepts the bounds and refuses what lies outside", () => {
  assert.ok(accept({ query: "x".repeat(300), kind: "album", num: 25 }), "accept({ query: \"x\".repeat(300), kind: \"album\", num: 25 })");
  assert.ok(accept({ query: "x", kind: "artist", num: 1 }), "accept({ query: \"x\", kind: \"artist\", num: 1 })");
  const refused: JsonObject[] = [
    {},
    { query: "" },
    { query: "x".repeat(301) },
    { query: "x", num: 0 },
    { query: "x", num: 26 },
    { query: "x", num: "10" },
    { query: "x", kind: "playlist" },
    { query: "x", offset: 10 },
  ];
  for (const body of refused) assert.equal(accept(body), null, JSON.stringify(body));
});

test("examples are valid bodies", () => {
  assert.ok(musicSearch.examples.length >= 2 && musicSearch.examples.length <= 3, "musicSearch.examples.length >= 2 && musicSearch.examples.length <= 3");
  for (const example of musicSearch.examples) assert.ok(accept(example.body), example.title);
});

test("parseCursor: null is the first slice; a cursor names its source (Deezer unless stated)", () => {
  assert.deepEqual(parseCursor(null), { offset: 0, source: null });
  assert.deepEqual(parseCursor({ offset: 10, source: "musicbrainz" }), { offset: 10, source: "musicbrainz" });
  assert.deepEqual(parseCursor({ offset: 10, source: "deezer" }), { offset: 10, source: "deezer" });
  assert.deepEqual(parseCursor({ offset: 20 }), { offset: 20, source: "deezer" });
  assert.deepEqual(parseCursor({ offset: -5, source: "musicbrainz" }), { offset: 0, source: "musicbrainz" });
  assert.deepEqual(parseCursor({ offset: 2.5 }), { offset: 0, source: "deezer" });
});

test("search: Deezer answers the first slice; track details wait for their album's release", async () => {
  const { ctx, sent } = fakeContext({ deezer: () => fixture("deezer/search_simple.json") });
  const page = await musicSearch.search(ctx, q({ query: "Soliloquy" }), null);
  assert.equal(sent.length, 1);
  assert.equal(sent[0]?.path, "/search");
  assert.deepEqual(sent[0]?.query, { q: "Soliloquy", index: 0, limit: 10 });
  assert.equal(page.records.length, 10);
  assert.deepEqual(page.next, { offset: 10, source: "deezer" });
  assert.equal(page.notes, undefined);
  assert.equal(page.credits, 0);
  for (const record of page.records) {
    assert.equal(record.summary.kind, "track");
    assert.equal(record.detail, undefined, "completed by the first details call");
    const ref = record.ref ?? {};
    assert.equal((ref.detail as JsonObject).kind, "track");
    assert.ok((ref.links as unknown[]).length > 0, "(ref.links as unknown[]).length > 0");
  }
});

/** A record as the service hands it to runAction after storing the draft. */
function view(draft: RecordDraft | undefined): StoredRecordView {
  assert.ok(draft, "draft");
  return { summary: draft.summary, ref: draft.ref ?? null, detail: draft.detail ?? null, query: {} };
}

test("details: an album record asks GET /album/{id} and gains release; credits 0", async () => {
  const search = fakeContext({ deezer: () => fixture("deezer/search_album.json") });
  const page = await musicSearch.search(search.ctx, q({ query: "Daft Punk", kind: "album", num: 5 }), null);
  const discovery = page.records[0];
  assert.equal(discovery?.summary.title, "Discovery");
  const { ctx, sent } = fakeContext({ deezer: () => fixture("deezer/get_album.json") });
  const out = await details.run!(ctx, view(discovery));
  assert.deepEqual(
    sent.map((r) => [r.provider, r.method, r.path]),
    [["deezer", "GET", "/album/302127"]],
  );
  assert.equal(((out.detail as JsonObject).release as JsonObject).date, "2001-03-07");
  assert.equal((out.detail as JsonObject).title, "Discovery");
  assert.equal(out.credits, 0);
  assert.equal(out.costUsd, 0);
  assert.ok(out.links.some((l) => l.url === "https://www.deezer.com/album/302127"), "out.links.some((l) => l.url === \"https://www.deezer.com/album/302127\")");
});

test("details: a track record asks for its album's id", async () => {
  const search = fakeContext({ deezer: () => fixture("deezer/search_simple.json") });
  const page = await musicSearch.search(search.ctx, q({ query: "Soliloquy" }), null);
  const { ctx, sent } = fakeContext({ deezer: () => ({ id: 259135282, release_date: "2020-10-02" }) });
  const out = await details.run!(ctx, view(page.records[0]));
  assert.equal(sent[0]?.path, "/album/259135282");
  assert.deepEqual((out.detail as JsonObject).release, { date: "2020-10-02" });
  assert.equal((out.detail as JsonObject).duration, "3:19");
});

test("details: a Deezer error body or a failed album call rejects as provider_error", async () => {
  const search = fakeContext({ deezer: () => fixture("deezer/search_album.json") });
  const page = await musicSearch.search(search.ctx, q({ query: "Daft Punk", kind: "album" }), null);
  const errorBody = fakeContext({ deezer: () => fixture("deezer/error_no_data_album.json") });
  await assert.rejects(
    details.run!(errorBody.ctx, view(page.records[0])),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /no data/.test(e.message),
  );
  const down = fakeContext({ deezer: deezerDown });
  await assert.rejects(
    details.run!(down.ctx, view(page.records[0])),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error",
  );
});

test("details: a record with nothing pending is session_expired", async () => {
  const { ctx, sent } = fakeContext({});
  const artist = {
    summary: { title: "Daft Punk" },
    ref: { source: "deezer", deezer_id: 27 },
    detail: null,
    query: {},
  };
  await assert.rejects(
    details.run!(ctx, artist),
    (e: unknown) => e instanceof ApiError && e.code === "session_expired",
  );
  assert.equal(sent.length, 0);
});

test("search: a Deezer cursor continues on Deezer at its offset", async () => {
  const { ctx, sent } = fakeContext({ deezer: () => fixture("deezer/search_album.json") });
  const page = await musicSearch.search(ctx, q({ query: "Daft Punk", kind: "album", num: 5 }), {
    offset: 5,
    source: "deezer",
  });
  assert.equal(sent[0]?.path, "/search/album");
  assert.equal(sent[0]?.query?.index, 5);
  assert.equal(sent[0]?.query?.limit, 5);
  assert.deepEqual(page.next, { offset: 10, source: "deezer" });
});

test("fallback: Deezer rejecting with provider_error is answered by MusicBrainz", async () => {
  const { ctx, sent, providers } = fakeContext({
    deezer: deezerDown,
    musicbrainz: () => fixture("musicbrainz/artist_search.json"),
  });
  const page = await musicSearch.search(ctx, q({ query: "YOASOBI", kind: "artist" }), null);
  assert.deepEqual(providers(), ["deezer", "musicbrainz"]);
  assert.equal(sent[0]?.path, "/search/artist");
  assert.equal(sent[1]?.path, "/ws/2/artist");
  assert.deepEqual(sent[1]?.query, { query: "YOASOBI", offset: 0, limit: 10, fmt: "json" });
  assert.equal(page.records[0]?.summary.title, "YOASOBI");
  assert.equal(page.records[0]?.summary.musicbrainz_id, "df6c619f-4334-43e2-8b6a-4a32af1e4f85");
  assert.equal("fans" in (page.records[0]?.summary ?? {}), false);
  assert.equal(page.records[0]?.detail?.name, "YOASOBI");
  assert.equal(page.notes?.length, 1);
  assert.match(page.notes?.[0] ?? "", /unavailable/);
  assert.match(page.notes?.[0] ?? "", /fans, albums, picture/);
  assert.equal(page.next, null);
});

test("fallback: a Deezer error body (HTTP 200) also falls back, and paging stays on MusicBrainz", async () => {
  const recordings = (fixture("musicbrainz/recording_search.json") as { recordings: unknown[] }).recordings;
  const { ctx, sent } = fakeContext({
    deezer: () => fixture("deezer/error_exception_no_code_episode.json"),
    musicbrainz: () => ({ count: 30, offset: 0, recordings }),
  });
  const query = q({ query: "ミックスナッツ", num: 3 });
  const first = await musicSearch.search(ctx, query, null);
  assert.equal(sent[1]?.path, "/ws/2/recording");
  assert.deepEqual(first.next, { offset: 3, source: "musicbrainz" });
  const second = await musicSearch.search(ctx, query, first.next);
  assert.equal(sent.length, 3, "the second slice asks MusicBrainz only");
  assert.equal(sent[2]?.provider, "musicbrainz");
  assert.equal(sent[2]?.query?.offset, 3);
  assert.deepEqual(second.next, { offset: 6, source: "musicbrainz" });
  assert.equal(second.notes?.length, 1, "every fallback page carries the note");
});

test("fallback: a Deezer timeout within the deadline falls back", async () => {
  const { ctx, providers } = fakeContext({
    deezer: () => {
      throw new ApiError("provider_timeout", "Deezer took too long");
    },
    musicbrainz: () => fixture("musicbrainz/recording_search.json"),
  });
  const page = await musicSearch.search(ctx, q({ query: "ミックスナッツ" }), null);
  assert.deepEqual(providers(), ["deezer", "musicbrainz"]);
  assert.equal(page.records.length, 3);
});

test("no fallback once the deadline has passed", async () => {
  const controller = new AbortController();
  controller.abort();
  const { ctx, providers } = fakeContext(
    {
      deezer: () => {
        throw new ApiError("provider_timeout", "deadline");
      },
      musicbrainz: () => fixture("musicbrainz/recording_search.json"),
    },
    controller.signal,
  );
  await assert.rejects(
    musicSearch.search(ctx, q({ query: "x" }), null),
    (e: unknown) => e instanceof ApiError && e.code === "provider_timeout",
  );
  assert.deepEqual(providers(), ["deezer"]);
});

test("no fallback on a later Deezer slice: the error is reported, MusicBrainz is not asked", async () => {
  const { ctx, providers } = fakeContext({
    deezer: deezerDown,
    musicbrainz: () => fixture("musicbrainz/recording_search.json"),
  });
  await assert.rejects(
    musicSearch.search(ctx, q({ query: "x" }), { offset: 10, source: "deezer" }),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error",
  );
  assert.deepEqual(providers(), ["deezer"]);
});

test("no fallback for faults that are not provider failures", async () => {
  const { ctx, providers } = fakeContext({
    deezer: () => {
      throw new TypeError("bug");
    },
    musicbrainz: () => fixture("musicbrainz/recording_search.json"),
  });
  await assert.rejects(musicSearch.search(ctx, q({ query: "x" }), null), TypeError);
  assert.deepEqual(providers(), ["deezer"]);
});

test("both sources failing is a provider error naming both", async () => {
  const { ctx } = fakeContext({
    deezer: deezerDown,
    musicbrainz: () => {
      throw new ApiError("provider_error", "MusicBrainz answered 503");
    },
  });
  await assert.rejects(
    musicSearch.search(ctx, q({ query: "x" }), null),
    (e: unknown) =>
      e instanceof ApiError &&
      e.code === "provider_error" &&
      e.message.includes("Deezer answered 503") &&
      e.message.includes("MusicBrainz answered 503"),
  );
});

test("empty results from Deezer are an empty page, not a fallback", async () => {
  const { ctx, providers } = fakeContext({ deezer: () => ({ data: [], total: 0 }) });
  const page = await musicSearch.search(ctx, q({ query: "zzzz" }), null);
  assert.deepEqual(page.records, []);
  assert.equal(page.next, null);
  assert.deepEqual(providers(), ["deezer"]);
});
