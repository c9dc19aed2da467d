import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError } from "../errors.ts";
import { parseJsonBody, poisonedKeys } from "./json-body.ts";

function refusal(text: string): ApiError {
  try {
    parseJsonBody(text);
  } catch (error) {
    assert.ok(error instanceof ApiError, "error instanceof ApiError");
    assert.equal(error.code, "invalid_request");
    return error;
  }
  assert.fail(`accepted ${text}`);
}

test("ordinary bodies parse as JSON.parse does, keys that only mention the words included", () => {
  assert.deepEqual(parseJsonBody('{"a":[1,{"b":null}]}'), { a: [1, { b: null }] });
  assert.deepEqual(parseJsonBody('{"prototype":1,"constructor":{"x":2},"s":"__proto__"}'), {
    prototype: 1,
    constructor: { x: 2 },
    s: "__proto__",
  });
  assert.deepEqual(parseJsonBody('"\\u00e9"'), "é");
  assert.equal(parseJsonBody("7"), 7);
});

test("empty and malformed bodies are refused at the root, with the parser's message", () => {
  assert.match(refusal("").message, /empty/);
  for (const text of ['{"a": tru}', '{"a":1}x', '{"q":']) {
    let own = "";
    try {
      JSON.parse(text);
    } catch (error) {
      own = (error as Error).message;
    }
    const bad = refusal(text);
    assert.equal(bad.message, `The body is not valid JSON: ${own}.`);
    assert.deepEqual(bad.violations, [{ path: "", message: bad.message }]);
  }
});

test("each prototype key is a violation at its pointer, with ~ and / escaped on the way", () => {
  const err = refusal('{"x~y":{"__proto__":1},"l":[0,{"constructor":{"prototype":{}}}],"__proto__":null}');
  assert.deepEqual(
    err.violations?.map((v) => v.path),
    ["/x~0y/__proto__", "/l/1/constructor/prototype", "/__proto__"],
  );
  // Escaped spellings decode to the same keys.
  assert.deepEqual(refusal('{"\\u005f\\u005fproto\\u005f\\u005f":{}}').violations?.map((v) => v.path), ["/__proto__"]);
  assert.deepEqual(
    refusal('{"constructor":{"\\u0070rototype":1}}').violations?.map((v) => v.path),
    ["/constructor/prototype"],
  );
});

test("the check walks deep nesting without recursion", () => {
  const depth = 200_000;
  const deep = JSON.parse(`${"[".repeat(depth)}{"__proto__":1}${"]".repeat(depth)}`);
  const found = poisonedKeys(deep);
  assert.equal(found.length, 1);
  assert.equal(found[0]!.path, `${"/0".repeat(depth)}/__proto__`);
});
