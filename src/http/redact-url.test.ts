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
  // Quadratic, 64 KB of slashes took seconds of the event loop; linear, about a millisecond. The
  // bound is far above the linear scan and far below the quadratic one, on any host.
  for (const url of ["/".repeat(65_536), `/mcp${"/".repeat(65_536)}`, `${"/".repeat(65_536)}mcp/k/secret`]) {
    const started = performance.now();
    const shown = redactUrl(url);
    const ms = performance.now() - started;
    assert.ok(ms < 500, `${ms.toFixed(0)} ms for ${url.length} characters`);
    assert.ok(!shown.includes("secret"));
  }
});
