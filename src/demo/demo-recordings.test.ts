/** DemoRecordings: one call's watch over the replay's "not made with" header (the offline demo). */
import { Type } from "@sinclair/typebox";
import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError, ClientGone, invalidRequest } from "../errors.ts";
import { UNHELD_HEADER, unheldHeader } from "./replay/replay-headers.ts";
import type { UpstreamClient, UpstreamRequest } from "../upstream/types.ts";
import { DemoRecordings } from "./demo-recordings.ts";

/** A client whose answers carry the given unheld params, one list per request. */
function replaying(...answers: string[][]): UpstreamClient {
  let i = 0;
  return {
    send: async <T>() => {
      const unheld = answers[i++] ?? [];
      return { status: 200, headers: unheld.length === 0 ? {} : { [UNHELD_HEADER]: unheldHeader(unheld) }, body: {} as T };
    },
    hasKey: () => true,
    close: async () => {},
  };
}

const request: UpstreamRequest = { provider: "openalex", method: "GET", path: "/works", response: Type.Unknown() };

test("a call answered as recorded has no note and its failures pass unchanged", async () => {
  const demo = new DemoRecordings();
  await demo.watch(replaying([])).send(request, AbortSignal.timeout(1000));
  assert.equal(demo.note(), undefined);
  const refusal = invalidRequest([{ path: "/location", message: "no such place" }]);
  assert.equal(demo.failure(refusal), refusal);
});

test("what every answer of the call was not made with is named once, in one note", async () => {
  const demo = new DemoRecordings();
  const client = demo.watch(replaying(["sort=date"], [], ["sort=date", "q=Lyon"]));
  for (let i = 0; i < 3; i++) await client.send(request, AbortSignal.timeout(1000));
  assert.match(demo.note() ?? "", /^DEMO: answered from a recording not made with sort=date, q=Lyon \(provider parameters\)/);
});

test("after a loosely matched recording, a refusal or provider error is 'no recording', not retryable; other failures pass", async () => {
  const demo = new DemoRecordings();
  await demo.watch(replaying(["name=Paris"])).send(request, AbortSignal.timeout(1000));
  const refused = demo.failure(invalidRequest([{ path: "/location", message: '"Paris" did not match any place' }]));
  assert.ok(refused instanceof ApiError, "refused instanceof ApiError");
  assert.equal(refused.code, "provider_error");
  assert.equal(refused.retryable, false);
  assert.match(refused.message, /^No recording of this request in the offline demo: the nearest recording was not made with name=Paris, .*\/location: "Paris" did not match any place/);
  assert.match(refused.hint ?? "", /inspect examples/);
  const odd = demo.failure(new ApiError("provider_error", "YouTube's player answered for video A, not B."));
  assert.match((odd as ApiError).message, /it gave: YouTube's player answered for video A, not B\./);
  for (const other of [new ApiError("provider_timeout", "late"), new ApiError("rate_limited", "slow down"), new ClientGone()]) {
    assert.equal(demo.failure(other), other);
  }
});
