/**
 * The failures every authenticated route shares, checked for each route in one helper:
 * no key, a malformed key, an unknown key — each a 401 in the spec envelope with a request id.
 * (Unknown body keys, 402 and 429 are covered per route kind in the e2e suites.)
 */
import assert from "node:assert/strict";
import type { Harness } from "./harness.ts";

export async function expectCommonFailures(h: Harness, routes: [string, string][]): Promise<void> {
  const unknownKey = "qk_live_" + "A".repeat(32);
  for (const [method, path] of routes) {
    const body = method === "POST" ? {} : undefined;
    const variants: Record<string, string>[] = [
      {},
      { authorization: "Bearer not-a-key" },
      { authorization: `Bearer ${unknownKey}` },
      { authorization: `Basic ${unknownKey}` },
    ];
    for (const headers of variants) {
      const res = await h.call(method, path, { headers, ...(body === undefined ? {} : { body }) });
      assert.equal(res.status, 401, `${method} ${path} with ${JSON.stringify(headers)}`);
      assert.equal(res.body.error.code, "unauthorized");
      assert.equal(res.body.error.retryable, false);
      assert.match(res.body.error.requestId, /^req_/);
      assert.ok(!res.text.includes(unknownKey), "the key must not be echoed");
    }
  }
}
