/**
 * Google Gemini generateContent: `POST {baseUrl}/v1beta/models/{model}:generateContent` with
 * `x-goog-api-key`, `systemInstruction`, `contents[].parts[].text`; the answer is the first
 * candidate's text parts (thought summaries skipped).
 */
import type { UpstreamRequest } from "../../upstream/types.ts";
import { isObject } from "../../validation.ts";
import type { Reviewer } from "../reviewers.ts";
import { errorMessage, type ModelCall, noText, upstreamName, type WireFormat } from "./types.ts";

export function geminiRequest(reviewer: Reviewer, call: ModelCall): UpstreamRequest {
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
  };
}

export function geminiText(body: unknown, reviewer: Reviewer): string {
  if (!isObject(body)) throw noText(reviewer, "the answer is not a JSON object");
  if (body.error !== undefined && body.error !== null) throw noText(reviewer, errorMessage(body.error));
  const feedback = body.promptFeedback;
  if (isObject(feedback) && typeof feedback.blockReason === "string") {
    throw noText(reviewer, `the prompt was blocked (${feedback.blockReason})`);
  }
  const candidate: unknown = Array.isArray(body.candidates) ? body.candidates[0] : undefined;
  if (!isObject(candidate)) throw noText(reviewer, "no candidates");
  const content = candidate.content;
  const parts: unknown[] = isObject(content) && Array.isArray(content.parts) ? content.parts : [];
  const text = parts
    .map((part: unknown) =>
      isObject(part) && part.thought !== true && typeof part.text === "string" ? part.text : "",
    )
    .join("")
    .trim();
  if (!text)
    throw noText(reviewer, `empty candidate (finishReason ${String(candidate.finishReason ?? "unknown")})`);
  return text;
}

export const geminiWire: WireFormat = { request: geminiRequest, text: geminiText };
