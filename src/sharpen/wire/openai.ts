/**
 * OpenAI-compatible chat completions (OpenAI, OpenRouter, xAI, Mistral, DeepSeek, vLLM, Ollama…):
 * `POST {baseUrl}/chat/completions` with `Authorization: Bearer`, `model`, `messages`.
 */
import type { UpstreamRequest } from "../../upstream/types.ts";
import { isObject } from "../../validation.ts";
import type { Reviewer } from "../reviewers.ts";
import { errorMessage, type ModelCall, noText, upstreamName, type WireFormat } from "./types.ts";

export function openaiRequest(reviewer: Reviewer, call: ModelCall): UpstreamRequest {
  return {
    provider: upstreamName(reviewer),
    baseUrl: reviewer.baseUrl,
    method: "POST",
    path: "/chat/completions",
    headers: { authorization: `Bearer ${reviewer.apiKey}` },
    body: {
      model: reviewer.model,
      messages: [
        { role: "system", content: call.system },
        { role: "user", content: call.user },
      ],
      // `max_tokens` is what every compatible server accepts (OpenAI's o-series wants
      // `max_completion_tokens`; declare such models behind a proxy or leave them out).
      max_tokens: call.maxOutputTokens,
    },
  };
}

/** `choices[0].message.content`, a string or (some servers) an array of text parts. */
export function openaiText(body: unknown, reviewer: Reviewer): string {
  if (!isObject(body)) throw noText(reviewer, "the answer is not a JSON object");
  if (body.error !== undefined && body.error !== null) throw noText(reviewer, errorMessage(body.error));
  const choice: unknown = Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isObject(choice)) throw noText(reviewer, "no choices");
  const message = choice.message;
  const content = isObject(message) ? message.content : undefined;
  let text = "";
  if (typeof content === "string") text = content;
  else if (Array.isArray(content)) {
    text = content
      .map((part: unknown) => (isObject(part) && typeof part.text === "string" ? part.text : ""))
      .join("");
  }
  text = text.trim();
  if (!text)
    throw noText(reviewer, `empty content (finish_reason ${String(choice.finish_reason ?? "unknown")})`);
  return text;
}

export const openaiWire: WireFormat = { request: openaiRequest, text: openaiText };
