/**
 * OpenAI-compatible chat completions (OpenAI, OpenRouter, xAI, Mistral, DeepSeek, vLLM, Ollama…):
 * `POST {baseUrl}/chat/completions` with `Authorization: Bearer`, `model`, `messages`.
 */
import { type Static, Type } from "@sinclair/typebox";
import { nullish } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { Reviewer } from "../reviewers.ts";
import { errorBodyOf, type ModelCall, noText, upstreamName, type WireFormat } from "./types.ts";

/** What the reader takes from a chat completion: the first choice's content (a string, or text parts) and why it stopped. */
export const openaiAnswer = Type.Object({
  choices: Type.Array(
    Type.Object({
      message: nullish(Type.Object({ content: nullish(Type.Union([Type.String(), Type.Array(Type.Object({ text: Type.Optional(Type.String()) }))])) })),
      finish_reason: nullish(Type.String()),
    }),
  ),
});

export function openaiRequest(reviewer: Reviewer, call: ModelCall): JsonRequest<typeof openaiAnswer> {
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
    refusal: errorBodyOf(reviewer),
    response: openaiAnswer,
  };
}

/** `choices[0].message.content`, a string or (some servers) an array of text parts. */
export function openaiText(body: Static<typeof openaiAnswer>, reviewer: Reviewer): string {
  const choice = body.choices[0];
  if (choice === undefined) throw noText(reviewer, "no choices");
  const content = choice.message?.content;
  const text = (typeof content === "string" ? content : (content ?? []).map((part) => part.text ?? "").join("")).trim();
  if (!text) throw noText(reviewer, `empty content (finish_reason ${choice.finish_reason ?? "unknown"})`);
  return text;
}

export const openaiWire: WireFormat<typeof openaiAnswer> = { request: openaiRequest, text: openaiText };
