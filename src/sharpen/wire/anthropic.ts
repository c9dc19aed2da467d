/**
 * Anthropic Messages: `POST {baseUrl}/v1/messages` with `x-api-key`, `anthropic-version`,
 * `model`, `max_tokens`, `system`, `messages`; the answer is the text blocks of `content`.
 */
import { type Static, Type } from "@sinclair/typebox";
import { nullish } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { Reviewer } from "../reviewers.ts";
import { errorBodyOf, type ModelCall, noText, upstreamName, type WireFormat } from "./types.ts";

/** What the reader takes from a message: its content blocks (text blocks read, others skipped) and why it stopped. */
export const anthropicAnswer = Type.Object({
  content: Type.Array(Type.Object({ type: Type.String(), text: Type.Optional(Type.String()) })),
  stop_reason: nullish(Type.String()),
});

export const ANTHROPIC_VERSION = "2023-06-01";

export function anthropicRequest(reviewer: Reviewer, call: ModelCall): JsonRequest<typeof anthropicAnswer> {
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
    refusal: errorBodyOf(reviewer),
    response: anthropicAnswer,
  };
}

export function anthropicText(body: Static<typeof anthropicAnswer>, reviewer: Reviewer): string {
  const text = body.content
    .map((block) => (block.type === "text" ? (block.text ?? "") : ""))
    .join("")
    .trim();
  if (!text) throw noText(reviewer, `empty content (stop_reason ${body.stop_reason ?? "unknown"})`);
  return text;
}

export const anthropicWire: WireFormat<typeof anthropicAnswer> = { request: anthropicRequest, text: anthropicText };
