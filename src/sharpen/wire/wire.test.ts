/**
 * The three reviewer wire formats as pure mappers: the request each builds (path, key header,
 * body shape) and the text each reads, including error bodies and empty or blocked answers. Answers
 * are read as the upstream client reads them: its answer check (the request's refusal, then its
 * declared schema) before the wire's reader.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Static, TSchema } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import { checkJsonAnswer, ProviderDrift } from "../../upstream/response-check.ts";
import type { Reviewer } from "../reviewers.ts";
import { ANTHROPIC_VERSION, anthropicRequest, anthropicWire } from "./anthropic.ts";
import { geminiRequest, geminiWire } from "./gemini.ts";
import { openaiRequest, openaiWire } from "./openai.ts";
import type { WireFormat } from "./types.ts";

/** An answer body as the client hands it to the wire: checked against the request, then read. */
function reader<S extends TSchema>(wire: WireFormat<S>) {
  return (body: unknown, r: Reviewer): string => {
    checkJsonAnswer(wire.request(r, call), 200, body);
    return wire.text(body as Static<S>, r);
  };
}
const openaiText = reader(openaiWire);
const anthropicText = reader(anthropicWire);
const geminiText = reader(geminiWire);

function reviewer(kind: Reviewer["kind"], model = "m-1"): Reviewer {
  return {
    family: "family_b",
    kind,
    model,
    baseUrl: "https://example.test/base",
    keyVar: "K",
    tiers: ["sharpen"],
    apiKey: "secret-key",
    maxOutputTokens: 321,
  };
}

const call = { system: "SYSTEM TEXT", user: "USER TEXT", maxOutputTokens: 321 };

function providerError(pattern: RegExp) {
  return (err: unknown) =>
    err instanceof ApiError && err.code === "provider_error" && pattern.test(err.message);
}

test("openai: chat completions request with a bearer key, system and user messages", () => {
  const req = openaiRequest(reviewer("openai"), call);
  assert.equal(req.baseUrl, "https://example.test/base");
  assert.equal(req.method, "POST");
  assert.equal(req.path, "/chat/completions");
  assert.deepEqual(req.headers, { authorization: "Bearer secret-key" });
  assert.equal(req.provider, "sharpen:family_b/m-1");
  assert.deepEqual(req.body, {
    model: "m-1",
    messages: [
      { role: "system", content: "SYSTEM TEXT" },
      { role: "user", content: "USER TEXT" },
    ],
    max_tokens: 321,
  });
});

test("openai: reads string content and text-part arrays; refuses errors, no choices, empty content", () => {
  const r = reviewer("openai");
  assert.equal(
    openaiText({ choices: [{ message: { role: "assistant", content: " hi " }, finish_reason: "stop" }] }, r),
    "hi",
  );
  assert.equal(
    openaiText(
      {
        choices: [
          {
            message: {
              content: [
                { type: "text", text: "a" },
                { type: "text", text: "b" },
              ],
            },
          },
        ],
      },
      r,
    ),
    "ab",
  );
  assert.throws(
    () => openaiText({ error: { message: "quota exceeded" } }, r),
    providerError(/quota exceeded/),
  );
  assert.throws(() => openaiText({ choices: [] }, r), providerError(/no choices/));
  assert.throws(
    () => openaiText({ choices: [{ message: { content: null }, finish_reason: "content_filter" }] }, r),
    providerError(/content_filter/),
  );
  assert.throws(() => openaiText("not json object", r), (err: unknown) => err instanceof ProviderDrift && err.pointer === "");
  assert.throws(() => openaiText({ answers: [] }, r), (err: unknown) => err instanceof ProviderDrift && err.pointer === "/choices" && /sharpen:family_b\/m-1/.test(err.message));
});

test("anthropic: messages request with x-api-key, version header, max_tokens and system", () => {
  const req = anthropicRequest(reviewer("anthropic"), call);
  assert.equal(req.path, "/v1/messages");
  assert.deepEqual(req.headers, { "x-api-key": "secret-key", "anthropic-version": ANTHROPIC_VERSION });
  assert.equal(ANTHROPIC_VERSION, "2023-06-01");
  assert.deepEqual(req.body, {
    model: "m-1",
    max_tokens: 321,
    system: "SYSTEM TEXT",
    messages: [{ role: "user", content: "USER TEXT" }],
  });
});

test("anthropic: joins text blocks, skips others; refuses error bodies and empty content", () => {
  const r = reviewer("anthropic");
  const ok = {
    type: "message",
    content: [
      { type: "thinking", thinking: "hidden" },
      { type: "text", text: "first " },
      { type: "text", text: "second" },
    ],
    stop_reason: "end_turn",
  };
  assert.equal(anthropicText(ok, r), "first second");
  assert.throws(
    () => anthropicText({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, r),
    providerError(/Overloaded/),
  );
  assert.throws(
    () => anthropicText({ type: "message", content: [], stop_reason: "max_tokens" }, r),
    providerError(/max_tokens/),
  );
  assert.throws(() => anthropicText({ type: "message" }, r), (err: unknown) => err instanceof ProviderDrift && err.pointer === "/content");
});

test("gemini: generateContent request with x-goog-api-key, systemInstruction and contents parts", () => {
  const req = geminiRequest(reviewer("gemini", "models/gemini-x"), call);
  assert.equal(req.path, "/v1beta/models/gemini-x:generateContent");
  assert.deepEqual(req.headers, { "x-goog-api-key": "secret-key" });
  assert.deepEqual(req.body, {
    systemInstruction: { parts: [{ text: "SYSTEM TEXT" }] },
    contents: [{ role: "user", parts: [{ text: "USER TEXT" }] }],
    generationConfig: { maxOutputTokens: 321 },
  });
});

test("gemini: reads the first candidate's parts (not thoughts); refuses errors, blocks, no or empty candidates", () => {
  const r = reviewer("gemini");
  const ok = {
    candidates: [
      { content: { role: "model", parts: [{ text: "thinking", thought: true }, { text: "answer" }] } },
    ],
  };
  assert.equal(geminiText(ok, r), "answer");
  assert.throws(
    () => geminiText({ error: { code: 400, message: "API key not valid", status: "INVALID_ARGUMENT" } }, r),
    providerError(/API key not valid/),
  );
  assert.throws(
    () => geminiText({ promptFeedback: { blockReason: "SAFETY" } }, r),
    providerError(/blocked \(SAFETY\)/),
  );
  assert.throws(() => geminiText({ candidates: [] }, r), providerError(/no candidates/));
  assert.throws(
    () => geminiText({ candidates: [{ content: { parts: [] }, finishReason: "MAX_TOKENS" }] }, r),
    providerError(/MAX_TOKENS/),
  );
});

test("no mapper puts the key anywhere but its header", () => {
  for (const [kind, build] of [
    ["openai", openaiRequest],
    ["anthropic", anthropicRequest],
    ["gemini", geminiRequest],
  ] as const) {
    const req = build(reviewer(kind), call);
    const { headers, ...rest } = req;
    assert.ok(!JSON.stringify(rest).includes("secret-key"), kind);
    assert.ok(JSON.stringify(headers).includes("secret-key"), kind);
  }
});
