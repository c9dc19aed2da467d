/**
 * video.search declaration: spec 4.6's row (0 typical credits, 15 s, token paging, num 10/50),
 * YOUTUBE_API_KEY required, free fetched `details`, `transcript` fetched at 4 credits.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { violationsOf } from "../../../test/helpers/capability-kit.ts";
import { videoSearch } from "./capability.ts";

test("metadata follows spec 4.6", () => {
  assert.equal(videoSearch.topic, "media and entertainment");
  assert.equal(videoSearch.paging, "token");
  assert.equal(videoSearch.deadlineMs, 15_000);
  assert.equal(videoSearch.typicalCredits, 0);
  assert.deepEqual(videoSearch.availability(new Set()), { missing: "YOUTUBE_API_KEY" });
  assert.deepEqual(
    Object.values(videoSearch.actions).map((a) => [a.name, a.mode, a.credits]),
    [
      ["details", "fetched", 0],
      ["transcript", "fetched", 4],
    ],
  );
  assert.equal(videoSearch.maxCredits({ query: "x", num: 50 }), 0, "a search reserves nothing");
});

test("defaults and bounds", () => {
  const body = { query: "surfing" };
  assert.deepEqual(violationsOf(videoSearch, body), []);
  assert.deepEqual(body, { query: "surfing", num: 10 });
  assert.deepEqual(violationsOf(videoSearch, { query: "x", num: 50, published_after: "2024-01-01T00:00:00+01:00", duration: "long" }), []);
  assert.deepEqual(violationsOf(videoSearch, { query: "x", published_after: "2024-01-01" }).map((v) => v.path), ["/published_after"]);
  for (const e of videoSearch.examples) assert.deepEqual(violationsOf(videoSearch, structuredClone(e.body)), [], e.title);
});
