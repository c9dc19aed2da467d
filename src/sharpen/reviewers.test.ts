/**
 * Sharpen settings from the environment: defaults, declared reviewers (inline and file), key
 * eligibility, tier credits, deadlines and order, and refusals of bad configuration.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ConfigError } from "../config.ts";
import { DEFAULT_TIER_CREDITS } from "./entitlement.ts";
import { DEFAULT_MAX_OUTPUT_TOKENS, DEFAULT_REVIEWERS, FAMILIES, loadSharpenSettings } from "./reviewers.ts";

const one = {
  family: "family_b",
  kind: "anthropic",
  model: "m",
  baseUrl: "http://127.0.0.1:1",
  keyVar: "KEY_B",
  tiers: ["plus"],
};

test("defaults: one reviewer per family, none eligible without keys, default credits and deadlines", () => {
  const s = loadSharpenSettings({});
  assert.deepEqual(
    s.declared.map((d) => d.family),
    [...FAMILIES],
  );
  assert.equal(s.declared, DEFAULT_REVIEWERS);
  assert.deepEqual([...new Set(DEFAULT_REVIEWERS.map((d) => d.kind))].sort(), [
    "anthropic",
    "gemini",
    "openai",
  ]);
  assert.equal(s.reviewers.length, 0);
  assert.deepEqual(s.tierCredits, DEFAULT_TIER_CREDITS);
  assert.equal(s.tierCredits.sharpen, 5);
  assert.equal(s.deadlineMs, 60_000);
  assert.equal(s.reviewerDeadlineMs, 40_000);
  assert.equal(s.order, "rotate");
  assert.equal(s.promptVersion, "v1");
});

test("a default reviewer becomes eligible when its key variable is set", () => {
  const s = loadSharpenSettings({ SHARPEN_ANTHROPIC_API_KEY: "k" });
  assert.deepEqual(
    s.reviewers.map((r) => [r.family, r.kind, r.apiKey]),
    [["family_b", "anthropic", "k"]],
  );
  assert.equal(s.reviewers[0]?.maxOutputTokens, DEFAULT_MAX_OUTPUT_TOKENS);
});

test("SHARPEN_REVIEWERS replaces the defaults; an unset key variable makes a reviewer ineligible", () => {
  const two = { ...one, family: "family_c", kind: "gemini", keyVar: "KEY_C", maxOutputTokens: 99 };
  const s = loadSharpenSettings({ SHARPEN_REVIEWERS: JSON.stringify([one, two]), KEY_C: "c" });
  assert.equal(s.declared.length, 2);
  assert.deepEqual(
    s.reviewers.map((r) => [r.family, r.maxOutputTokens]),
    [["family_c", 99]],
  );
});

test("SHARPEN_REVIEWERS_FILE is read (and wins over the inline variable)", () => {
  const dir = mkdtempSync(join(tmpdir(), "quarry-sharpen-"));
  try {
    const file = join(dir, "reviewers.json");
    writeFileSync(file, JSON.stringify([{ ...one, model: "from-file" }]));
    const s = loadSharpenSettings({
      SHARPEN_REVIEWERS_FILE: file,
      SHARPEN_REVIEWERS: JSON.stringify([one]),
      KEY_B: "b",
    });
    assert.equal(s.reviewers[0]?.model, "from-file");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("bad reviewer declarations are refused with the field named", () => {
  const bad = (value: unknown, pattern: RegExp) =>
    assert.throws(
      () => loadSharpenSettings({ SHARPEN_REVIEWERS: JSON.stringify(value) }),
      (err: unknown) => err instanceof ConfigError && pattern.test(err.message),
    );
  bad({ not: "an array" }, /JSON array/);
  bad([{ ...one, family: "other" }], /\[0\].*\/family/);
  bad([{ ...one, kind: "cohere" }], /\/kind/);
  bad([{ ...one, baseUrl: "ftp://x" }], /\/baseUrl/);
  bad([{ ...one, tiers: [] }], /\/tiers/);
  bad([{ ...one, extra: 1 }], /\/extra/);
  assert.throws(() => loadSharpenSettings({ SHARPEN_REVIEWERS: "[" }), ConfigError);
});

test("SHARPEN_TIER_CREDITS overrides some tiers and keeps the rest; bad values refused", () => {
  const s = loadSharpenSettings({ SHARPEN_TIER_CREDITS: '{"sharpen":3,"ultra2x":50}' });
  assert.deepEqual(s.tierCredits, { ...DEFAULT_TIER_CREDITS, sharpen: 3, ultra2x: 50 });
  assert.throws(() => loadSharpenSettings({ SHARPEN_TIER_CREDITS: '{"mega":1}' }), /unknown tier/);
  assert.throws(() => loadSharpenSettings({ SHARPEN_TIER_CREDITS: '{"plus":-1}' }), /integer >= 0/);
  assert.throws(() => loadSharpenSettings({ SHARPEN_TIER_CREDITS: "[1]" }), /JSON object/);
});

test("deadlines, order: the reviewer deadline never exceeds the whole; bad values refused", () => {
  const s = loadSharpenSettings({
    SHARPEN_DEADLINE_MS: "500",
    SHARPEN_REVIEWER_DEADLINE_MS: "900",
    SHARPEN_ORDER: "priority",
  });
  assert.equal(s.deadlineMs, 500);
  assert.equal(s.reviewerDeadlineMs, 500);
  assert.equal(s.order, "priority");
  assert.throws(() => loadSharpenSettings({ SHARPEN_ORDER: "random" }), ConfigError);
  assert.throws(() => loadSharpenSettings({ SHARPEN_DEADLINE_MS: "0" }), ConfigError);
});
