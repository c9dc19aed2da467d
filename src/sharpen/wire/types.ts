/**
 * The contract of a reviewer wire format: a pure request builder (the only place a reviewer's key
 * is put on a request) that declares the answer's schema and recognises the API's error bodies
 * (its `refusal`), and a pure reader of the checked answer that returns the model's text or throws
 * ApiError provider_error. All I/O goes through the shared upstream client, which checks the answer
 * before the reader sees it (a changed API is drift, not "no usable answer").
 */
import type { Static, TSchema } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { Reviewer } from "../reviewers.ts";

/** One model call: a system prompt, one user message, an output budget. */
export interface ModelCall {
  system: string;
  user: string;
  maxOutputTokens: number;
}

export interface WireFormat<S extends TSchema = TSchema> {
  request(reviewer: Reviewer, call: ModelCall): JsonRequest<S>;
  /** The checked answer's text; throws provider_error for empty or blocked answers. */
  text(body: Static<S>, reviewer: Reviewer): string;
}

/** Breaker/log name of a reviewer: per endpoint and model, never the key. */
export function upstreamName(reviewer: Pick<Reviewer, "family" | "model">): string {
  return `sharpen:${reviewer.family}/${reviewer.model}`;
}

export function noText(reviewer: Pick<Reviewer, "family" | "model">, why: string): ApiError {
  return new ApiError(
    "provider_error",
    `Reviewer ${reviewer.family} (${reviewer.model}) gave no usable answer: ${why}.`,
    {
      hint: "The reviewer failed; nothing was charged. Retry shortly.",
    },
  );
}

/** A short printable reason from an error body's `message`, if any. */
export function errorMessage(error: unknown): string {
  if (
    typeof error === "object" &&
    error !== null &&
    "message" in error &&
    typeof error.message === "string"
  ) {
    return error.message.slice(0, 200);
  }
  return "error body";
}

/** A refusal hook (UpstreamRequest.refusal) for an API whose error bodies carry `error` (and, for Anthropic, `type: "error"`). */
export function errorBodyOf(reviewer: Pick<Reviewer, "family" | "model">): (body: unknown) => ApiError | undefined {
  return (body) => {
    if (typeof body !== "object" || body === null) return undefined;
    const b = body as { error?: unknown; type?: unknown };
    return (b.error !== undefined && b.error !== null) || b.type === "error" ? noText(reviewer, errorMessage(b.error)) : undefined;
  };
}
