/**
 * Sharpen routing, without I/O (the attempt is passed in): which reviewers may answer, in which
 * order, and how failures fall through. Rules: a reviewer's family is never the caller's
 * (`other` may get any family); a reviewer serves only its declared tiers; `ultra2x` fills two
 * slots whose families differ. Each slot takes the first candidate whose family no other slot
 * holds; when it fails, the slot releases the family and takes the next one, until the list or
 * the deadline runs out. Candidate order is the declaration order, rotated by a per-request
 * counter (SHARPEN_ORDER=rotate, spreads load) or not (priority).
 */
import type { SharpenTier } from "../config.ts";
import { ApiError } from "../errors.ts";

export interface RoutableReviewer {
  family: string;
  model: string;
  tiers: SharpenTier[];
}

export interface Answer<R, T> {
  reviewer: R;
  result: T;
}

export interface Failure<R> {
  reviewer: R;
  error: ApiError;
}

export interface RouteOutcome<R, T> {
  /** In slot order. */
  answers: Answer<R, T>[];
  /** In the order they happened. */
  failures: Failure<R>[];
}

/** How many independent reviews a tier asks for. */
export function reviewsFor(tier: SharpenTier): 1 | 2 {
  return tier === "ultra2x" ? 2 : 1;
}

/** Reviewers allowed for this caller and tier, in declaration order. */
export function eligibleReviewers<R extends RoutableReviewer>(
  reviewers: R[],
  callerProvider: string,
  tier: SharpenTier,
): R[] {
  return reviewers.filter((r) => r.family !== callerProvider && r.tiers.includes(tier));
}

/** Rotate a list left by `offset` (any integer). */
export function rotate<R>(list: R[], offset: number): R[] {
  if (list.length === 0) return [];
  const k = ((offset % list.length) + list.length) % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

export function distinctFamilies(reviewers: RoutableReviewer[]): number {
  return new Set(reviewers.map((r) => r.family)).size;
}

function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError("provider_error", "The reviewer's answer could not be used.", { cause: err });
}

/**
 * Fill `needed` slots from `candidates`, concurrently. `stopped()` is checked before each new
 * attempt (the overall deadline): once it is true, no further reviewer is started.
 */
export async function route<R extends RoutableReviewer, T>(
  candidates: R[],
  needed: number,
  attempt: (reviewer: R) => Promise<T>,
  stopped: () => boolean = () => false,
): Promise<RouteOutcome<R, T>> {
  const queue = [...candidates];
  const held = new Set<string>();
  const failures: Failure<R>[] = [];

  async function slot(): Promise<Answer<R, T> | undefined> {
    for (;;) {
      if (stopped()) return undefined;
      const index = queue.findIndex((r) => !held.has(r.family));
      if (index < 0) return undefined;
      const reviewer = queue.splice(index, 1)[0]!;
      held.add(reviewer.family);
      try {
        return { reviewer, result: await attempt(reviewer) };
      } catch (err) {
        failures.push({ reviewer, error: asApiError(err) });
        held.delete(reviewer.family);
      }
    }
  }

  const slots = await Promise.all(Array.from({ length: needed }, () => slot()));
  return { answers: slots.filter((a): a is Answer<R, T> => a !== undefined), failures };
}

function label(r: RoutableReviewer): string {
  return `${r.family} (${r.model})`;
}

/** A human-readable account of fallbacks and shortfalls; undefined when nothing went astray. */
export function routingNote<R extends RoutableReviewer, T>(
  outcome: RouteOutcome<R, T>,
  needed: number,
  candidates: R[],
  callerProvider: string,
  tier: SharpenTier,
): string | undefined {
  const parts: string[] = [];
  if (needed > 1 && distinctFamilies(candidates) < needed) {
    const except = callerProvider === "other" ? "" : ` other than ${callerProvider}`;
    parts.push(
      `Only ${distinctFamilies(candidates)} reviewer family${except} serves tier ${tier} in this deployment.`,
    );
  }
  if (outcome.failures.length > 0) {
    const failed = outcome.failures
      .map(
        (f) =>
          `${label(f.reviewer)} ${f.error.code === "provider_timeout" ? "timed out" : `failed (${f.error.code})`}`,
      )
      .join("; ");
    parts.push(`${failed}.`);
    if (outcome.answers.length > 0) {
      parts.push(
        `Tried the next eligible reviewer; answered by ${outcome.answers.map((a) => label(a.reviewer)).join(" and ")}.`,
      );
    }
  }
  if (outcome.answers.length > 0 && outcome.answers.length < needed) {
    parts.push(`Only ${outcome.answers.length} of ${needed} reviews could be delivered.`);
  }
  return parts.length > 0 ? parts.join(" ") : undefined;
}

/**
 * The error when no reviewer answered: always 503 sharpen_no_reviewer (spec 4.8 and the errors
 * table name this outcome), whether the reviewers failed, refused or ran out of time. The message
 * says which: "before the Sharpen deadline" when every attempt timed out, else each reviewer's
 * outcome. Retryable; the caller is charged nothing (the billing run releases the reservation).
 */
export function noReviewerError(failures: Failure<RoutableReviewer>[]): ApiError {
  const timedOut = (f: Failure<RoutableReviewer>) => f.error.code === "provider_timeout";
  if (failures.length > 0 && failures.every(timedOut)) {
    const tried = failures.map((f) => label(f.reviewer)).join(", ");
    return new ApiError(
      "sharpen_no_reviewer",
      `No reviewer answered before the Sharpen deadline (tried ${tried}; every attempt timed out).`,
      { hint: "Nothing was charged. Retry shortly; a shorter context or draft answers faster." },
    );
  }
  const tried = failures
    .map((f) => `${label(f.reviewer)} ${timedOut(f) ? "timed out" : `failed (${f.error.code})`}`)
    .join("; ");
  return new ApiError("sharpen_no_reviewer", `No reviewer answered${tried ? ` (${tried})` : ""}.`, {
    hint: "Nothing was charged. Retry shortly.",
  });
}
