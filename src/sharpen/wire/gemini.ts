/**
 * Google Gemini generateContent: `POST {baseUrl}/v1beta/models/{model}:generateContent` with
 * `x-goog-api-key`, `systemInstruction`, `contents[].parts[].text`; the answer is the first
 * candidate's text parts (thought summaries skipped).
 */
import { type Static, Type } from "@sinclair/typebox";
import type { ApiError } from "../../errors.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { Reviewer } from "../reviewers.ts";
import { errorBodyOf, type ModelCall, noText, upstreamName, type WireFormat } from "./types.ts";

/**
 * What the reader takes from generateContent: the first candidate's parts (thoughts skipped) and why
 * it finished. A blocked prompt has no candidates (its refusal says why); a blocked candidate has no
 * content.
 */
export const geminiAnswer = Type.Object({
  candidates: Type.Array(
    Type.Object({
      content: Type.Optional(Type.Object({ parts: Type.Optional(Type.Array(Type.Object({ text: Type.Optional(Type.String()), thought: Type.Optional(Type.Boolean()) }))) })),
      finishReason: Type.Optional(Type.String()),
    }),
  ),
});

/** Gemini's error bodies, and a prompt it blocked (`promptFeedback.blockReason`, no candidates). */
function geminiRefusal(reviewer: Reviewer): (body: unknown) => ApiError | undefined {
  const errorBody = errorBodyOf(reviewer);
  return (body) => {
    const refused = errorBody(body);
    if (refused !== undefined) return refused;
    const feedback = typeof body === "object" && body !== null ? (body as { promptFeedback?: { blockReason?: unknown } }).promptFeedback : undefined;
    return typeof feedback?.blockReason === "string" ? noText(reviewer, `the prompt was blocked (${feedback.blockReason})`) : undefined;
  };
}

export function geminiRequest(reviewer: Reviewer, call: ModelCall): JsonRequest<typeof geminiAnswer> {
  // Accept both "gemini-2.5-pro" and the resource form "models/gemini-2.5-pro".
  const model = encodeURIComponent(reviewer.model.replace(/^models\//, ""));
  return {
    provider: upstreamName(reviewer),
    baseUrl: reviewer.baseUrl,
    method: "POST",
    path: `/v1beta/models/${model}:generateContent`,
    headers: { "x-goog-api-key": reviewer.apiKey },
    body: {
      systemInstruction: { parts: [{ text: call.system }] },
      contents: [{ role: "user", parts: [{ text: call.user }] }],
      generationConfig: { maxOutputTokens: call.maxOutputTokens },
    },
    refusal: geminiRefusal(reviewer),
    response: geminiAnswer,
  };
}

export function geminiText(body: Static<typeof geminiAnswer>, reviewer: Reviewer): string {
  const candidate = body.candidates[0];
  if (candidate === undefined) throw noText(reviewer, "no candidates");
  const text = (candidate.content?.parts ?? [])
    .map((part) => (part.thought !== true ? (part.text ?? "") : ""))
    .join("")
    .trim();
  if (!text) throw noText(reviewer, `empty candidate (finishReason ${candidate.finishReason ?? "unknown"})`);
  return text;
}

export const geminiWire: WireFormat<typeof geminiAnswer> = { request: geminiRequest, text: geminiText };
