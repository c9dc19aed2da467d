/**
 * The review flow. Per reviewer, two calls through the shared upstream client: a blind attempt
 * built from task, context and approach only, then a critique of the draft against that attempt
 * (returned as the review). Deadlines are AbortSignals: one for the whole review, one per
 * reviewer (both of its calls), so a hung reviewer still leaves time for a fallback.
 */
import type { UpstreamClient } from "../upstream/types.ts";
import { blindPrompt, type CritiqueInput, critiquePrompt, type PromptSet } from "./prompts.ts";
import type { Reviewer, ReviewerKind } from "./reviewers.ts";
import { type RouteOutcome, route } from "./routing.ts";
import { anthropicWire } from "./wire/anthropic.ts";
import { geminiWire } from "./wire/gemini.ts";
import { openaiWire } from "./wire/openai.ts";
import type { ModelCall, WireFormat } from "./wire/types.ts";

export const WIRE_FORMATS: Record<ReviewerKind, WireFormat> = {
  openai: openaiWire,
  anthropic: anthropicWire,
  gemini: geminiWire,
};

async function ask(
  upstream: UpstreamClient,
  reviewer: Reviewer,
  call: ModelCall,
  signal: AbortSignal,
): Promise<string> {
  const wire = WIRE_FORMATS[reviewer.kind];
  const response = await upstream.send(wire.request(reviewer, call), signal);
  return wire.text(response.body, reviewer);
}

/** One reviewer's review: blind attempt, then critique. */
export async function reviewWith(
  upstream: UpstreamClient,
  prompts: PromptSet,
  reviewer: Reviewer,
  input: CritiqueInput,
  signal: AbortSignal,
): Promise<string> {
  const max = reviewer.maxOutputTokens;
  const blind = blindPrompt(prompts, input);
  const attempt = await ask(upstream, reviewer, { ...blind, maxOutputTokens: max }, signal);
  const critique = critiquePrompt(prompts, input, attempt);
  return ask(upstream, reviewer, { ...critique, maxOutputTokens: max }, signal);
}

export interface ReviewPlan {
  upstream: UpstreamClient;
  prompts: PromptSet;
  /** Eligible reviewers in the order to try them. */
  candidates: Reviewer[];
  needed: number;
  input: CritiqueInput;
  deadlineMs: number;
  reviewerDeadlineMs: number;
}

/** Ask reviewers until `needed` have answered, the candidates run out or the deadline passes. */
export async function reviewDraft(plan: ReviewPlan): Promise<RouteOutcome<Reviewer, string>> {
  const overall = new AbortController();
  const timer = setTimeout(() => overall.abort(new Error("sharpen deadline")), plan.deadlineMs);
  try {
    return await route(
      plan.candidates,
      plan.needed,
      (reviewer) => {
        const signal = AbortSignal.any([overall.signal, AbortSignal.timeout(plan.reviewerDeadlineMs)]);
        return reviewWith(plan.upstream, plan.prompts, reviewer, plan.input, signal);
      },
      () => overall.signal.aborted,
    );
  } finally {
    clearTimeout(timer);
  }
}
