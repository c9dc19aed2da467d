// The Jina engine (WEB_READ_ENGINE=jina) end to end against the replay upstream's Jina recording
// (a documented example): the request Jina gets, the URL rules applied before it, a missing key, and
// the circuit breaker kept per target host, so a broken site never pauses Jina for the others.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startReplay, type ReplayServer } from "../demo/replay/replay-server.ts";
import { type Harness, startHarness } from "../../test/helpers/harness.ts";
import { checkShape, ProviderDrift } from "../upstream/response-check.ts";
import { jinaAnswer, jinaPage, jinaRefusal, jinaRequest } from "./jina.ts";

let replay: ReplayServer;
let h: Harness;
let key: string;

before(async () => {
  replay = await startReplay();
  // Without the replay environment's allow-list of its own address: loopback is refused here as anywhere.
  h = await startHarness({ replay, env: { WEB_READ_ENGINE: "jina", UPSTREAM_BREAKER_THRESHOLD: "2", WEB_READ_ALLOW_CIDRS: "" } });
  ({ key } = await h.account("pro"));
});
after(async () => {
  await h.close();
  await replay.close();
});

const read = (body: Record<string, unknown>, k = key, on = h) => on.call("POST", "/v1/capabilities/web.read/execute", { key: k, body });

test("reads through Jina Reader: GET /<url>, the key as a Bearer token, JSON asked for, the format as X-Return-Format", async () => {
  const res = await read({ url: "https://example.com/", format: "text" });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.charged_credits, 5);
  const [page] = res.body.results;
  assert.equal(page.title, "Example Domain");
  assert.equal(page.url, "https://example.com/");
  assert.match(page.content, /^This domain is for use in illustrative examples in documents\./);
  assert.equal(page.chars, [...page.content].length);
  assert.deepEqual(res.body.notes, ["Read by Jina Reader."]);
  const sent = replay.requests.at(-1)!;
  assert.equal(sent.path, "/jina/https://example.com/");
  assert.equal(sent.headers.authorization, "Bearer demo-key");
  assert.equal(sent.headers.accept, "application/json");
  assert.equal(sent.headers["x-return-format"], "text");
});

test("the URL rules hold before Jina is asked: scheme, credentials, port, literal addresses", async () => {
  const seen = replay.requests.length;
  for (const [url, why] of [
    ["http://127.0.0.1/", /loopback/],
    ["http://169.254.169.254/latest/meta-data/", /link-local/],
    ["ftp://example.com/", /scheme ftp/],
    ["https://u:p@example.com/", /credentials/],
    ["https://example.com:22/", /port 22/],
  ] as const) {
    const res = await read({ url });
    assert.equal(res.status, 400, url);
    assert.equal(res.body.error.violations[0].path, "/url");
    assert.match(res.body.error.violations[0].message, why);
  }
  assert.equal(replay.requests.length, seen, "Jina was not asked");
});

test("a failing site opens the breaker for that site only: other sites are still read", async () => {
  replay.setFault("jina", { kind: "status", status: 503 });
  try {
    for (let i = 0; i < 2; i++) {
      const res = await read({ url: "https://broken.example/" });
      assert.equal(res.status, 502);
    }
    const paused = await read({ url: "https://broken.example/" });
    assert.equal(paused.status, 502);
    assert.match(paused.body.error.message, /jina is failing; calls to it are paused/, "the broken site's own breaker opened");
  } finally {
    replay.setFault("jina", null);
  }
  const other = await read({ url: "https://example.com/" });
  assert.equal(other.status, 200, `another site is read: ${other.text}`);
});

test("with WEB_READ_ENGINE=jina and no JINA_API_KEY: 503 naming the variable, nothing charged", async () => {
  const bare = await startHarness({ replay, env: { WEB_READ_ENGINE: "jina", JINA_API_KEY: "" } });
  try {
    const account = await bare.account("pro");
    const res = await read({ url: "https://example.com/" }, account.key, bare);
    assert.equal(res.status, 503);
    assert.equal(res.body.error.code, "capability_unavailable");
    assert.match(res.body.error.message, /JINA_API_KEY is not set in this deployment/);
    assert.equal((await bare.store.getAccount(account.accountId))!.creditsUsed, 0);
  } finally {
    await bare.close();
  }
});

test("mappers: the request's breaker key is the target host; Jina's error bodies are provider errors", () => {
  const req = jinaRequest(new URL("https://news.example.org/a?b=1"), "markdown");
  assert.equal(req.path, "/https://news.example.org/a?b=1");
  assert.equal(req.breakerKey, "jina:news.example.org");
  assert.deepEqual(req.headers, { "x-return-format": "markdown" });
  assert.match(String(jinaRefusal({ code: 422, name: "AssertionFailureError", readableMessage: "Failed to goto https://x.example/" }, 422)?.message), /Jina Reader could not read the page: Failed to goto/);
  assert.match(String(jinaRefusal({ code: 401, message: "Invalid API key" }, 401)?.message), /refused this deployment's account/);
  assert.equal(jinaRefusal({ code: 200, data: {} }, 200), undefined);
  assert.deepEqual(jinaPage({ data: { title: " T ", url: "https://x.example/", content: " body " } }), { url: "https://x.example/", title: "T", content: "body" });
  assert.throws(() => checkShape("jina", jinaAnswer, { code: 200, data: { text: "renamed" } }), (err: unknown) => err instanceof ProviderDrift && err.pointer === "/data/content");
});
