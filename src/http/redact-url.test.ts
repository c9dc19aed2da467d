/**
 * redactUrl (error-handler.ts): the MCP URL form's key is never logged, however the path spells it,
 * and the scan stays linear in the URL's length (it runs on every request's access line, before auth).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { redactUrl } from "./error-handler.ts";

test("the key of /mcp/k/<key> is replaced however the path spells the route", () => {
  assert.equal(redactUrl("/mcp/k/qk_live_abc"), "/mcp/k/***");
  assert.equal(redactUrl("//MCP//K//secret?x=1"), "/mcp/k/***?x=1");
  assert.equal(redactUrl("/a//mcp/k/xyz#f"), "/a/mcp/k/***#f");
  assert.equal(redactUrl("/mcp/%6B/secret"), "/mcp/k/***");
  assert.equal(redactUrl("/v1/x?token=qk_live_abc123"), "/v1/x?token=qk_live_***");
  assert.equal(redactUrl("/mcp/k"), "/mcp/k", "the route without a key has nothing to hide");
  assert.equal(redactUrl("/mcp/kx/abc"), "/mcp/kx/abc");
  assert.equal(redactUrl("/v1/catalog"), "/v1/catalog");
});

test("a URL of nothing but slashes is scanned in linear time (no backtracking over the run)", () => {
  // Against a baseline measured here: the same length of letters, which no pattern backtracks over.
  // Quadratic, 64 KB of slashes took 1.9 s against about a millisecond for the letters (some
  // thousand times); linear, the two are alike. The bound leaves room for a host's pauses.
  const time = (url: string) => {
    const started = performance.now();
    const shown = redactUrl(url);
    return { ms: performance.now() - started, shown };
  };
  const length = 65_536;
  time("/".repeat(1000)); // warm-up
  const baseline = Math.max(time(`/${"a".repeat(length)}`).ms, 2);
  for (const url of ["/".repeat(length), `/mcp${"/".repeat(length)}`, `${"/".repeat(length)}mcp/k/secret`]) {
    const { ms, shown } = time(url);
    assert.ok(ms < 50 * baseline, `${ms.toFixed(1)} ms for ${url.length} characters, against ${baseline.toFixed(1)} ms for letters`);
    assert.ok(!shown.includes("secret"), "!shown.includes(\"secret\")");
  }
});
