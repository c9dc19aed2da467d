/**
 * Sharpen prompts: the v1 files load, the blind attempt never carries the draft (even when the
 * draft is passed in), rendering is one pass, and bad versions are refused.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError } from "../config.ts";
import { blindPrompt, critiquePrompt, loadPrompts } from "./prompts.ts";

const input = {
  task: "TASK-MARKER {{draft}}",
  context: "CONTEXT-MARKER",
  approach: "",
  draft: "DRAFT-MARKER",
};

test("v1 loads once: the same object every time, with both instruction texts", () => {
  const p = loadPrompts("v1");
  assert.equal(loadPrompts("v1"), p);
  assert.equal(p.version, "v1");
  assert.ok(p.blind.system.length > 100, "p.blind.system.length > 100");
  assert.ok(p.critique.system.length > 100, "p.critique.system.length > 100");
  assert.notEqual(p.instruction.one, p.instruction.two);
  assert.ok(!p.blind.system.includes("<!--"), "header comments are not part of the prompt");
});

test("the blind attempt has task and context but never the draft, even if handed the whole input", () => {
  const blind = blindPrompt(loadPrompts("v1"), input);
  const all = blind.system + blind.user;
  assert.ok(all.includes("TASK-MARKER"), "all.includes(\"TASK-MARKER\")");
  assert.ok(all.includes("CONTEXT-MARKER"), "all.includes(\"CONTEXT-MARKER\")");
  assert.ok(!all.includes("DRAFT-MARKER"), "!all.includes(\"DRAFT-MARKER\")");
  // One-pass rendering: a value holding a placeholder is not expanded.
  assert.ok(all.includes("TASK-MARKER {{draft}}"), "all.includes(\"TASK-MARKER {{draft}}\")");
  assert.match(blind.user, /<approach>\n\(none given\)\n<\/approach>/);
});

test("the critique has the draft and the reviewer's own attempt", () => {
  const critique = critiquePrompt(loadPrompts("v1"), input, "ATTEMPT-MARKER");
  assert.match(critique.user, /<draft>\nDRAFT-MARKER\n<\/draft>/);
  assert.match(critique.user, /<my_attempt>\nATTEMPT-MARKER\n<\/my_attempt>/);
});

test("unknown or malformed versions are refused", () => {
  assert.throws(() => loadPrompts("v999"), ConfigError);
  assert.throws(() => loadPrompts("../etc"), ConfigError);
});
