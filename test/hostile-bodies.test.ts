/**
 * Hostile input that the schema-driven fuzzing (fuzz.test.ts) does not generate: bodies nested
 * thousands of levels deep. Each is refused in the envelope (400 invalid_request with a pointer into
 * the body) on every body-taking route, REST and MCP, and charges nothing.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { MAX_BODY_DEPTH } from "../src/validation.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";

let h: Harness;
before(async () => {
  // One Sharpen reviewer, so /v1/sharpen gets as far as validating (it is never called: port 9).
  const reviewer = { family: "family_b", kind: "anthropic", model: "m", baseUrl: "http://127.0.0.1:9", keyVar: "SIM_KEY", tiers: ["sharpen"] };
  h = await startHarness({ env: { SHARPEN_REVIEWERS: JSON.stringify([reviewer]), SIM_KEY: "k" } });
});
after(async () => {
  await h.close();
});

/** `[[[…[leaf]…]]]` (or `{"a":{"a":…}}`) `levels` deep, as text: built without recursion. */
function nested(levels: number, kind: "array" | "object", leaf = "1"): string {
  return kind === "array" ? "[".repeat(levels) + leaf + "]".repeat(levels) : '{"a":'.repeat(levels) + leaf + "}".repeat(levels);
}

describe("bodies nested deeper than the limit", () => {
  const deep = (kind: "array" | "object") => nested(10_000, kind);

  test("are 400 invalid_request on execute, follow-up and sharpen, for arrays and objects alike", async () => {
    const { key, accountId } = await h.account("free");
    const bodies: [string, string, string][] = [];
    for (const kind of ["array", "object"] as const) {
      bodies.push(
        ["/v1/capabilities/music.search/execute", `{"query":"x","foo":${deep(kind)}}`, "/foo"],
        ["/v1/capabilities/recipes.search/execute", `{"category":${deep(kind)}}`, "/category"],
        ["/v1/follow-up", `{"search_id":"srch_${"a".repeat(16)}","action":"update","params":${deep(kind)}}`, "/params"],
        ["/v1/sharpen", `{"task":"t","draft":"d","caller_provider":"family_a","extra":${deep(kind)}}`, "/extra"],
      );
    }
    for (const [path, text, under] of bodies) {
      const res = await fetch(h.url + path, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: text,
      });
      const body = (await res.json()) as { error: { code: string; violations?: { path: string; message: string }[] } };
      assert.equal(res.status, 400, `${path}: ${JSON.stringify(body).slice(0, 300)}`);
      assert.equal(body.error.code, "invalid_request");
      const paths = (body.error.violations ?? []).map((v) => v.path);
      assert.ok(paths.length > 0 && paths.every((p) => p.startsWith(under)), `${path}: ${paths.join(", ")}`);
    }
    assert.equal((await h.store.getAccount(accountId))?.creditsUsed, 0);
  });

  test("the violation points at the first level past the limit; the limit itself is accepted by the walk", async () => {
    const { key } = await h.account("free");
    const at = async (levels: number) => {
      const res = await h.call("POST", "/v1/capabilities/music.search/execute", {
        key,
        body: { query: "x", foo: JSON.parse(nested(levels, "array")) },
      });
      assert.equal(res.status, 400);
      return res.body.error.violations as { path: string; message: string }[];
    };
    // Within the limit only the unknown key is reported.
    assert.deepEqual(await at(MAX_BODY_DEPTH - 1), [{ path: "/foo", message: 'unknown field "foo"' }]);
    const past = await at(MAX_BODY_DEPTH + 5);
    const tooDeep = past.filter((v) => v.message.includes("nested too deeply"));
    assert.equal(tooDeep.length, 1);
    // "/foo" is one level, each array one more: the value at depth MAX_BODY_DEPTH + 1 is refused.
    assert.equal(tooDeep[0]!.path, `/foo${"/0".repeat(MAX_BODY_DEPTH)}`);
  });

  test("are refused the same way through MCP's execute tool", async () => {
    const { key, accountId } = await h.account("free");
    const res = await fetch(`${h.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
      },
      body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute","arguments":{"capability":"music.search","params":{"query":"x","foo":${deep("array")}}}}}`,
    });
    assert.equal(res.status, 200);
    const rpc = (await res.json()) as { result: { isError: boolean; structuredContent: { error: { code: string } } } };
    assert.equal(rpc.result.isError, true);
    assert.equal(rpc.result.structuredContent.error.code, "invalid_request");
    assert.equal((await h.store.getAccount(accountId))?.creditsUsed, 0);
  });
});
