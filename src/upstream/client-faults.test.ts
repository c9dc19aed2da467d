/**
 * The upstream client against the replay upstream's fault modes: every fault maps to its spec code
 * within the deadline plus a small margin, idempotent requests retry a bounded number of times,
 * keys are placed by the client and never appear in logs, and a dead provider's breaker opens.
 */
import { Type } from "@sinclair/typebox";
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { after, before, describe, test } from "node:test";
import { loadConfig } from "../config.ts";
import { ApiError } from "../errors.ts";
import { type ReplayServer, startReplay } from "../demo/replay/replay-server.ts";
import { replayEnvironment } from "../demo/replay/replay-env.ts";
import { HttpUpstreamClient } from "./client.ts";
import { DeadlineSignals } from "./deadlines.ts";
import type { UpstreamRequest } from "./types.ts";

const QUOTE = {
  provider: "serpapi",
  method: "GET" as const,
  path: "/search.json",
  query: { engine: "google_finance", q: "GOOGL:NASDAQ", hl: "en" },
  response: Type.Object({ summary: Type.Object({ title: Type.String() }) }),
} satisfies UpstreamRequest;

let replay: ReplayServer;
const warnings: object[] = [];
let client: HttpUpstreamClient;

before(async () => {
  replay = await startReplay();
  const config = loadConfig({ ...replayEnvironment(replay.url), SERPAPI_API_KEY: "secret-serpapi-key-123" });
  client = new HttpUpstreamClient(config, { warn: (obj) => warnings.push(obj) }, { threshold: 1000, halfOpenAfterMs: 30_000 });
});
after(async () => {
  await client.close();
  await replay.close();
});

async function expectCode(promise: Promise<unknown>, code: string): Promise<ApiError> {
  const err = await promise.then(
    () => assert.fail(`expected ${code}`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ApiError, String(err));
  assert.equal(err.code, code, err.message);
  return err;
}

// The service's own deadline signals (shared by calls that start within 10 ms).
const deadlines = new DeadlineSignals();
const deadline = (ms: number) => deadlines.signal(ms);

describe("fault mapping", () => {
  test("a recorded answer parses, with the key placed in the query and a descriptive User-Agent", async () => {
    const res = await client.send(QUOTE, deadline(5000));
    assert.equal(res.status, 200);
    assert.equal(typeof res.body.summary.title, "string");
    const seen = replay.requests.at(-1)!;
    assert.equal(seen.query.api_key, "secret-serpapi-key-123");
    assert.match(String(seen.headers["user-agent"]), /^Quarry\/0\.1\.0 /);
  });

  test("hang past the deadline → provider_timeout, within deadline + margin", async () => {
    replay.setFault("serpapi", { kind: "hang" });
    try {
      const started = Date.now();
      await expectCode(client.send(QUOTE, deadline(300)), "provider_timeout");
      assert.ok(Date.now() - started < 300 + 500, `took ${Date.now() - started} ms`);
    } finally {
      replay.setFault("serpapi", null);
    }
  });

  test("finished calls, answered or failed, leave no listener on the deadline signal", async () => {
    const signal = new AbortController().signal;
    await Promise.all(Array.from({ length: 5 }, () => client.send(QUOTE, signal)));
    replay.setFault("serpapi", { kind: "status", status: 503 });
    try {
      await expectCode(client.send(QUOTE, signal), "provider_error");
    } finally {
      replay.setFault("serpapi", null);
    }
    // undici lets go of its listener when the response body closes, a tick after the body is read.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(getEventListeners(signal, "abort").length, 0);
    assert.equal(signal.aborted, false);
  });

  test("latency under the deadline still answers", async () => {
    replay.setFault("serpapi", { kind: "latency", ms: 100 });
    try {
      assert.equal((await client.send(QUOTE, deadline(2000))).status, 200);
    } finally {
      replay.setFault("serpapi", null);
    }
  });

  for (const [name, fault] of [
    ["connection reset", { kind: "reset" }],
    ["truncated body", { kind: "truncate" }],
    ["HTTP 503", { kind: "status", status: 503 }],
    ["invalid JSON", { kind: "invalid_json" }],
  ] as const) {
    test(`${name} → provider_error (retryable) after bounded retries`, async () => {
      replay.setFault("serpapi", fault);
      const before = replay.requests.length;
      try {
        const err = await expectCode(client.send(QUOTE, deadline(5000)), "provider_error");
        assert.equal(err.retryable, true);
      } finally {
        replay.setFault("serpapi", null);
      }
      // One attempt plus UPSTREAM_MAX_RETRIES (2) for an idempotent GET.
      assert.equal(replay.requests.length - before, 3);
    });
  }

  test("a transient failure is retried and then succeeds", async () => {
    replay.setFault("serpapi", { kind: "status", status: 502, times: 1 });
    const res = await client.send(QUOTE, deadline(5000));
    assert.equal(res.status, 200);
  });

  test("a POST is not retried", async () => {
    replay.setFault("serpapi", { kind: "status", status: 500 });
    const before = replay.requests.length;
    try {
      await expectCode(client.send({ ...QUOTE, method: "POST", body: {} }, deadline(5000)), "provider_error");
    } finally {
      replay.setFault("serpapi", null);
    }
    assert.equal(replay.requests.length - before, 1);
  });

  test("429 with a long Retry-After fails fast with provider_error carrying retryAfter; the wait is kept by that client", async () => {
    // A client of its own: the provider's wait applies to every later call of the client that got it.
    const waiting = new HttpUpstreamClient(loadConfig({ ...replayEnvironment(replay.url), SERPAPI_API_KEY: "k" }));
    replay.setFault("serpapi", { kind: "rate_limit", retryAfterSeconds: 30 });
    try {
      const started = Date.now();
      const err = await expectCode(waiting.send(QUOTE, deadline(5000)), "provider_error");
      assert.equal(err.retryAfter, 30);
      assert.ok(Date.now() - started < 1000, "Date.now() - started < 1000");
      replay.setFault("serpapi", null);
      const before = replay.requests.length;
      const again = await expectCode(waiting.send(QUOTE, deadline(5000)), "provider_error");
      assert.equal(replay.requests.length, before, "not called while the provider's wait lasts");
      assert.ok((again.retryAfter ?? 0) >= 29, "(again.retryAfter ?? 0) >= 29");
    } finally {
      replay.setFault("serpapi", null);
      await waiting.close();
    }
  });

  test("an oversized body is refused without reading it all", async () => {
    const small = new HttpUpstreamClient(
      loadConfig({ ...replayEnvironment(replay.url), SERPAPI_API_KEY: "k", UPSTREAM_MAX_RESPONSE_BYTES: "4096" }),
    );
    replay.setFault("serpapi", { kind: "oversized", bytes: 1_000_000 });
    const before = replay.requests.length;
    try {
      await expectCode(small.send(QUOTE, deadline(5000)), "provider_error");
    } finally {
      replay.setFault("serpapi", null);
      await small.close();
    }
    assert.equal(replay.requests.length - before, 1, "an oversized body is not worth another attempt");
  });

  test("a 4xx is a provider_error without retries", async () => {
    const before = replay.requests.length;
    await expectCode(client.send({ ...QUOTE, path: "/nothing.json" }, deadline(5000)), "provider_error");
    assert.equal(replay.requests.length - before, 1);
  });

  test("no warning logged by the client contains the key", () => {
    assert.ok(warnings.length > 0, "failures were logged");
    for (const w of warnings) assert.doesNotMatch(JSON.stringify(w), /secret-serpapi-key-123/);
  });
});

describe("circuit breaker", () => {
  test("a dead provider opens its breaker and then fails fast without calling it", async () => {
    const breaking = new HttpUpstreamClient(
      loadConfig({ ...replayEnvironment(replay.url), SERPAPI_API_KEY: "k", UPSTREAM_MAX_RETRIES: "0" }),
      undefined,
      { threshold: 3, halfOpenAfterMs: 60_000 },
    );
    replay.setFault("serpapi", { kind: "status", status: 500 });
    try {
      for (let i = 0; i < 3; i++) await expectCode(breaking.send(QUOTE, deadline(5000)), "provider_error");
      assert.equal(breaking.breakerState("serpapi"), "open");
      const before = replay.requests.length;
      const started = Date.now();
      const err = await expectCode(breaking.send(QUOTE, deadline(5000)), "provider_error");
      assert.match(err.hint ?? "", /try again/);
      assert.equal(replay.requests.length, before, "an open breaker makes no call");
      assert.ok(Date.now() - started < 50, "Date.now() - started < 50");
      // Other providers are unaffected.
      const music = await breaking.send({ provider: "deezer", method: "GET", path: "/search", query: { q: "Soliloquy" }, response: Type.Unknown() }, deadline(5000));
      assert.equal(music.status, 200);
    } finally {
      replay.setFault("serpapi", null);
      await breaking.close();
    }
  });
});

describe("URLs no server takes", () => {
  test("a URL over UPSTREAM_MAX_URL_BYTES is refused before sending, not retried, and never opens the provider's breaker", async () => {
    const strict = new HttpUpstreamClient(
      loadConfig({ ...replayEnvironment(replay.url), SERPAPI_API_KEY: "k", UPSTREAM_MAX_URL_BYTES: "4096" }),
      undefined,
      { threshold: 2, halfOpenAfterMs: 30_000 },
    );
    try {
      const from = replay.requests.length;
      // 400 emoji: 400 characters, 4,800 bytes once percent-encoded.
      const long: UpstreamRequest = { ...QUOTE, query: { ...QUOTE.query, q: "😀".repeat(400) } };
      for (let i = 0; i < 5; i++) {
        const err = await expectCode(strict.send(long, deadline(5000)), "provider_error");
        assert.equal(err.retryable, false);
        assert.match(err.message, /would need a URL of 4\d{3} bytes; providers take at most 4096/);
        assert.match(err.hint ?? "", /Shorten the longest values/);
      }
      assert.equal(replay.requests.length, from, "nothing was sent");
      assert.equal(strict.breakerState("serpapi"), "closed");
      const ok = await strict.send(QUOTE, deadline(5000));
      assert.equal(ok.status, 200, "the provider still answers the next caller");
    } finally {
      await strict.close();
    }
  });

  test("up to the default cap (32 KiB) the request is sent and answered", async () => {
    const from = replay.requests.length;
    // No recording holds this query: the replay's 404 is an answer (not a reset), which is the point.
    const res = await client.send({ ...QUOTE, query: { ...QUOTE.query, q: "a".repeat(30_000) }, acceptStatus: [404] }, deadline(5000));
    assert.equal(res.status, 404);
    assert.equal(replay.requests.length, from + 1);
  });
});
