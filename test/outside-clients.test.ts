/**
 * What outside clients ran into (the fuzzers, the MCP hosts, a newcomer), each as a test that
 * failed before its fix: router refusals carry X-Request-Id; a provider's refusal is not retryable;
 * the offline demo says plainly what it has no recording of.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Harness, startHarness } from "./helpers/harness.ts";

let h: Harness;
let key: string;
/** The offline demo (QUARRY_DEMO=1) on the same replay, and a key of it. */
let demo: Harness;
let k: string;

before(async () => {
  h = await startHarness();
  ({ key } = await h.account("pro"));
  demo = await startHarness({ env: { QUARRY_DEMO: "1" }, replay: h.replay });
  ({ key: k } = await demo.account("pro"));
});
after(async () => {
  await demo.close();
  await h.close();
});

test("every answer carries X-Request-Id, router refusals too (bad percent-encoding, an over-long segment)", async () => {
  const paths = [
    "/v1/capabilities/%zz",
    "/v1/capabilities/%E0%A4%A/execute",
    `/v1/capabilities/${"a".repeat(120)}`,
    "/mcp/k/%zz",
  ];
  for (const path of paths) {
    for (const method of ["GET", "POST"]) {
      const res = await h.call(method, path, { key, ...(method === "POST" ? { body: {} } : {}) });
      assert.ok(res.status >= 400 && res.status < 500, `${method} ${path}: ${res.status}`);
      const header = res.headers.get("x-request-id");
      assert.match(header ?? "", /^req_/, `${method} ${path}`);
      assert.equal(res.body.error.requestId, header, `${method} ${path}`);
    }
  }
});

test("a provider's refusal (a 4xx) is not retryable; a provider's failure (5xx) is", async () => {
  // No recording for this query: the replay answers 404 to both music sources.
  const refused = await h.call("POST", "/v1/capabilities/music.search/execute", { key, body: { query: "no recording 9Zq" } });
  assert.equal(refused.status, 502);
  assert.equal(refused.body.error.retryable, false);
  assert.match(refused.body.error.hint, /likely to be refused again/);
  h.replay.setFault("openalex", { kind: "status", status: 503, times: 3 });
  const failed = await h.call("POST", "/v1/capabilities/academic.search/execute", { key, body: { query: "state of open access" } });
  h.replay.setFault("openalex", null);
  assert.equal(failed.status, 502);
  assert.equal(failed.body.error.retryable, true);
});

test("the offline demo answers a request it has no recording of plainly, not as a provider's 404", async () => {
  const res = await demo.call("POST", "/v1/capabilities/academic.search/execute", { key: k, body: { query: "nothing recorded 4Kw" } });
  assert.equal(res.status, 502);
  assert.match(res.body.error.message, /No recording of this request in the offline demo \(openalex GET \/works\)/);
  assert.doesNotMatch(res.body.error.message, /HTTP 404/);
  assert.equal(res.body.error.retryable, false);
  assert.match(res.body.error.hint, /inspect examples/);
  // What is recorded still answers, as recorded: no note.
  const ok = await demo.call("POST", "/v1/capabilities/academic.search/execute", { key: k, body: { query: "state of open access" } });
  assert.equal(ok.status, 200);
  assert.equal(ok.body.notes, undefined, JSON.stringify(ok.body.notes));
  // A request whose adapter reads the provider's 404 as "no such document" is not told that of a
  // real document the demo merely did not record (it would blame the caller's CELEX).
  const unrecorded = await demo.call("POST", "/v1/capabilities/legal.read/execute", {
    key: k,
    body: { document: { source: "eu_official", celex: "32002L0058", language: "EN" } },
  });
  assert.equal(unrecorded.status, 502, JSON.stringify(unrecorded.body));
  assert.match(unrecorded.body.error.message, /No recording of this request in the offline demo \(eu_publications GET/);
});

test("the offline demo says on the answer when its recording was not made with the order asked for; a live deployment never does", async () => {
  const first = await demo.call("POST", "/v1/capabilities/academic.search/execute", { key: k, body: { query: "state of open access" } });
  assert.equal(first.status, 200);
  const sorted = await demo.call("POST", "/v1/follow-up", {
    key: k,
    body: { search_id: first.body.search_id, action: "update", params: { sort: "cited" } },
  });
  assert.equal(sorted.status, 200, JSON.stringify(sorted.body));
  assert.deepEqual(
    sorted.body.notes.filter((n: string) => n.startsWith("DEMO:")),
    ["DEMO: answered from a recording not made with sort=cited_by_count:desc (provider parameters); a live provider would apply them, so its results may differ."],
  );
  // A nearest recording the capability cannot use (the outbound flights, for a return-flights
  // search) is "no recording", not a provider failure worth retrying.
  const trip = { origin: "SIN", destination: "AUS", departure_date: "2025-09-09", return_date: "2025-09-19" };
  const outbound = await demo.call("POST", "/v1/capabilities/flights.search/execute", { key: k, body: trip });
  const selection = await demo.call("POST", "/v1/follow-up", { key: k, body: { record_id: outbound.body.results[0].record_id, action: "details" } });
  const returns = await demo.call("POST", "/v1/capabilities/flights.search/execute", { key: k, body: selection.body.detail.return_search.params });
  assert.equal(returns.status, 502, JSON.stringify(returns.body));
  assert.match(returns.body.error.message, /^No recording of this request in the offline demo: the nearest recording was not made with departure_token=/);
  assert.equal(returns.body.error.retryable, false);
  assert.match(returns.body.error.hint, /inspect examples/);
  // The recording that stands in for any unknown place name does not make the demo say a real
  // place does not exist.
  const paris = await demo.call("POST", "/v1/capabilities/weather.forecast/execute", { key: k, body: { location: "Paris" } });
  assert.equal(paris.status, 502, JSON.stringify(paris.body));
  assert.match(paris.body.error.message, /^No recording of this request in the offline demo: the nearest recording was not made with name=Paris[,;]? /);
  assert.match(paris.body.error.message, /did not match any place/, "what the recording gave is still said");
  // A record action on a video whose player answer was not recorded (another video's was): no
  // recording, not a retryable provider failure.
  const videos = await demo.call("POST", "/v1/capabilities/video.search/execute", { key: k, body: { query: "actions on google" } });
  const transcript = await demo.call("POST", "/v1/follow-up", { key: k, body: { record_id: videos.body.results[0].record_id, action: "transcript" } });
  assert.equal(transcript.status, 502, JSON.stringify(transcript.body));
  assert.match(transcript.body.error.message, /^No recording of this request in the offline demo/);
  assert.equal(transcript.body.error.retryable, false);
  // Outside the demo the replay's header is not read: the same update carries no such note.
  const live = await h.call("POST", "/v1/capabilities/academic.search/execute", { key, body: { query: "state of open access" } });
  const liveSorted = await h.call("POST", "/v1/follow-up", { key, body: { search_id: live.body.search_id, action: "update", params: { sort: "cited" } } });
  assert.equal(liveSorted.status, 200);
  assert.ok(!(liveSorted.body.notes ?? []).some((n: string) => n.startsWith("DEMO:")), JSON.stringify(liveSorted.body.notes));
});

test("a malformed or doubled id keeps the 'fix the fields' hint; only a record action's refusal of its record says to choose another", async () => {
  for (const body of [
    { record_id: "rec_bad", action: "details" },
    { search_id: "srch_AAAAAAAAAAAAAAAA", record_id: "rec_AAAAAAAAAAAAAAAA", action: "more" },
  ]) {
    const res = await h.call("POST", "/v1/follow-up", { key, body });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.ok(res.body.error.violations.every((v: { path: string }) => v.path === "/record_id" || v.path === "/search_id"), "res.body.error.violations.every((v: { path: string }) => v.path === \"/record_id\" || v.p...");
    assert.match(res.body.error.hint, /^Fix the fields named in violations\[\]/, JSON.stringify(body));
  }
});
