/**
 * The offline demo's "no recording": a request its recordings do not hold is said plainly, not as
 * the provider's 404 (nothing is wrong with the provider), and is not retryable. The replay marks
 * such an answer with a header; the demo's answer screen (installed on the upstream client by
 * src/demo/install.ts) turns it into this error.
 */
import { ApiError } from "../errors.ts";
import type { AnswerScreen } from "../upstream/types.ts";
import { REPLAY_MISS_HEADER } from "./replay/replay-headers.ts";

/** The error; `detail` follows the opening words ("No recording of this request in the offline demo"). */
export function demoNoRecording(detail: string, cause?: unknown): ApiError {
  return new ApiError("provider_error", `No recording of this request in the offline demo${detail}`, {
    retryable: false,
    hint:
      "The demo answers from recorded responses: each capability's inspect examples, and the follow-ups `npm run demo -- --check` " +
      "runs (the first example's more, update and its first record's actions); other queries, pages and records are mostly not " +
      "recorded. Run `npm start` (real providers) for them.",
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * A miss of the demo's recordings is said plainly, unless the request fetches an optional part (its
 * absence is then the reading): an adapter would report another 404 as the caller's id not existing
 * (found by an agent walkthrough: "EUR-Lex has no document" for a real CELEX).
 */
export const demoAnswerScreen: AnswerScreen = (req, answer, accepted) => {
  if (answer.headers[REPLAY_MISS_HEADER] !== undefined && !(accepted && req.optionalPart)) {
    throw demoNoRecording(` (${req.provider} ${req.method} ${req.path}).`);
  }
};
