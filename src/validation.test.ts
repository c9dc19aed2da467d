import assert from "node:assert/strict";
import { test } from "node:test";
import { Type } from "@sinclair/typebox";
import { pointerToken } from "./errors.ts";
import { NOT_BLANK_PATTERN, validate } from "./validation.ts";

const ILL_FORMED = "must not contain NUL characters or unpaired surrogates";

test("ill-formed strings are refused at their own pointer, however deep, with keys escaped", () => {
  const body = {
    fine: "text",
    "a/b": ["ok", "x\u0000y", { "c~d": "\ud800" }],
    nested: { deeper: { last: "\udfff tail" }, ok: ["é", "😀"] },
  };
  const violations = validate(Type.Object({}, { additionalProperties: true }), body, "/params");
  assert.deepEqual(
    violations.map((v) => [v.path, v.message]),
    [
      ["/params/a~1b/1", ILL_FORMED],
      ["/params/a~1b/2/c~0d", ILL_FORMED],
      ["/params/nested/deeper/last", ILL_FORMED],
    ],
  );
});

test("well-formed bodies give no violations and leave nothing behind for the next call", () => {
  const schema = Type.Object({}, { additionalProperties: true });
  assert.deepEqual(validate(schema, { a: ["x", { b: "y" }], c: "z" }), []);
  // After a walk that found a violation deep inside, a later one starts from the root again.
  assert.deepEqual(validate(schema, { list: [{ bad: "\u0000" }] }).map((v) => v.path), ["/list/0/bad"]);
  assert.deepEqual(validate(schema, { top: "\u0000" }).map((v) => v.path), ["/top"]);
  assert.deepEqual(validate(Type.String(), "\u0000").map((v) => v.path), [""]);
});

test("pointer tokens escape ~ before /, and pass plain tokens through", () => {
  assert.equal(pointerToken("plain"), "plain");
  assert.equal(pointerToken(7), "7");
  assert.equal(pointerToken("a/b"), "a~1b");
  assert.equal(pointerToken("~1"), "~01");
  assert.equal(pointerToken("/~"), "~1~0");
});

test("not blank: one violation that says so, and the pattern means the same with and without the u flag", () => {
  const schema = Type.Object({ q: Type.String({ pattern: NOT_BLANK_PATTERN }) });
  assert.deepEqual(validate(schema, { q: " \u200b\t" }), [
    { path: "/q", message: "must not be blank (whitespace or invisible characters only)" },
  ]);
  assert.deepEqual(validate(schema, { q: "\u200bx" }), []);
  // A client may compile the published pattern without `u`: every sample must get the same answer.
  const withU = new RegExp(NOT_BLANK_PATTERN, "u");
  const without = new RegExp(NOT_BLANK_PATTERN);
  const samples = ["", " ", "\u00a0", "\ufeff", "\u200d", "\u202e", "\u3164", "\u0007", "x", "é", "😀", "\u{e0061}", "p", "u"];
  for (const s of samples) assert.equal(without.test(s), withU.test(s), JSON.stringify(s));
  // Other patterns keep Ajv's own wording.
  assert.match(validate(Type.String({ pattern: "^a$" }), "b")[0]?.message ?? "", /must match pattern/);
  // With the field's description, which says what it takes.
  assert.equal(
    validate(Type.String({ pattern: "^[A-Z]{2}$", description: "ISO country code, e.g. US." }), "us")[0]?.message,
    'must match pattern "^[A-Z]{2}$"; expected: ISO country code, e.g. US.',
  );
});

test("lengths are said plainly, in characters, and unknown fields list the accepted ones", () => {
  const schema = Type.Object(
    { name: Type.String({ minLength: 1, maxLength: 3 }), code: Type.Optional(Type.String({ minLength: 2 })) },
    { additionalProperties: false },
  );
  assert.deepEqual(validate(schema, { name: "" }), [{ path: "/name", message: "must be at least 1 character long" }]);
  assert.deepEqual(validate(schema, { name: "abcd" }), [{ path: "/name", message: "must be at most 3 characters long" }]);
  assert.deepEqual(validate(schema, { name: "a", code: "x" }), [{ path: "/code", message: "must be at least 2 characters long" }]);
  assert.deepEqual(validate(schema, { name: "a", nam: 1 }), [{ path: "/nam", message: 'unknown field "nam" (did you mean "name"?); fields: name, code' }]);
});

test("a union of types reports the branch of the value's own type; a value of none of them names every type", () => {
  const place = Type.Union([
    Type.String({ maxLength: 5 }),
    Type.Object({ lat: Type.Number(), lon: Type.Number() }, { additionalProperties: false }),
  ]);
  const schema = Type.Object({ origin: place, stops: Type.Optional(Type.Array(place)) }, { additionalProperties: false });
  const said = (body: unknown, at = "") => validate(schema, body, at).map((v) => `${v.path} ${v.message}`);
  assert.deepEqual(said({ origin: { lat: 1 } }), ["/origin/lon is required"]);
  assert.deepEqual(said({ origin: { lat: 1, lon: 2, alt: 3 } }), ['/origin/alt unknown field "alt" (did you mean "lat"?); fields: lat, lon']);
  assert.deepEqual(said({ origin: "too long" }), ["/origin must be at most 5 characters long"]);
  assert.deepEqual(said({ origin: 7 }), ["/origin must be string or object"]);
  assert.deepEqual(said({ origin: "ok", stops: [{ lon: 1 }, 3] }, "/params"), ["/params/stops/0/lat is required", "/params/stops/1 must be string or object"]);
  // A nullable field (update's removal) is a union too: a wrong value is judged by its own branch.
  const nullable = Type.Object({ origin: Type.Union([place, Type.Null()]) });
  assert.deepEqual(validate(nullable, { origin: { lat: 1 } }).map((v) => `${v.path} ${v.message}`), ["/origin/lon is required"]);
  assert.deepEqual(validate(nullable, { origin: null }), []);
});

test("a number literal too large for a double (1e999 parses to Infinity) is refused at its pointer, nested too", () => {
  const schema = Type.Object({ max_price: Type.Optional(Type.Number({ minimum: 0 })), list: Type.Optional(Type.Array(Type.Number())) }, { additionalProperties: false });
  const body = JSON.parse('{"max_price": 1e999, "list": [1, -1e999]}') as Record<string, unknown>;
  assert.deepEqual(validate(schema, body), [
    { path: "/max_price", message: "must be a finite number (this literal is too large for a double)" },
    { path: "/list/1", message: "must be a finite number (this literal is too large for a double)" },
  ]);
  assert.deepEqual(validate(schema, { max_price: 1e308 }), []);
});
