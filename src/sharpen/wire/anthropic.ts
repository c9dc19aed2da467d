/**
 * Anthropic Messages: `POST {baseUrl}/v1/messages` with `x-api-key`, `anthropic-version`,
 * `model`, `max_tokens`, `system`, `messages`; the answer is the text blocks of `content`.
 */
import type { UpstreamRequest } from "../../upstream/types.ts";
import { isObject } from "../../validation.ts";
import type { Reviewer } from "../reviewers.ts";
import { errorMessage, type ModelCall, noText, upstreamName, type WireFormat } from "./types.ts";

export const ANTHROPIC_VERSION = "2023-06-01";

export function anthropicRequest(reviewer: Reviewer, call: ModelCall): UpstreamRequest {
  return {
    provider: upstreamName(reviewer),
    baseUrl: reviewer.baseUrl,
    method: "POST",
    path: "/v1/messages",
    headers: { "x-api-key": reviewer.apiKey, "anthropic-version": ANTHROPIC_VERSION },
    body: {
      model: reviewer.model,
      max_tokens: call.maxOutputTokens,
      system: call.system,
      messages: [{ role: "user", content: call.user }],
    },
  };
}

export function anthropicText(body: unknown, reviewer: Reviewer): string {
  if (!isObject(body)) throw noText(reviewer, "the answer is not a JSON object");
  if (body.type === "error" || (body.error !== undefined && body.error !== null)) {
    throw noText(reviewer, errorMessage(body.error));
  }
  if (!Array.isArray(body.content)) throw noText(reviewer, "no content");
  const text = body.content
    .map((block: unknown) =>
      isObject(block) && block.type === "text" && typeof block.text === "string" ? block.text : "",
    )
    .join("")
    .trim();
  if (!text) throw noText(reviewer, `empty content (stop_reason ${String(body.stop_reason ?? "unknown")})`);
  return text;
}

export const anthropicWire: WireFormat = { request: anthropicRequest, text: anthropicText };
