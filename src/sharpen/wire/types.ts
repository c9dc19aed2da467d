/**
 * The contract of a reviewer wire format: a pure request builder (the only place a reviewer's key
 * is put on a request) and a pure response reader that returns the model's text or throws
 * ApiError provider_error. All I/O goes through the shared upstream client.
 */
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { Reviewer } from "../reviewers.ts";

/** One model call: a system prompt, one user message, an output budget. */
export interface ModelCall {
  system: string;
  user: string;
  maxOutputTokens: number;
}

export interface WireFormat {
  request(reviewer: Reviewer, call: ModelCall): UpstreamRequest;
  /** The answer's text; throws provider_error for error bodies and empty or blocked answers. */
  text(body: unknown, reviewer: Reviewer): string;
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
